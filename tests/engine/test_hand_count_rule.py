"""The count rule (RULES.md §5.6): discard iff the total held exceeds base + max(0, k − 1)."""

from __future__ import annotations

from tests.engine.hand_support import act, hand_from, pass_all


def test_s5_6_first_ti_is_followed_by_a_discard():
    h = hand_from("full", ["s9", "s6 s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert h.held(1) == 21 and h.count_of(1) == 20
    assert h.phase == "discard" and h.to_act() == [1]


def test_s5_6_second_ti_skips_discard():
    h = hand_from("full", ["s9", "s1 s1 s1 s1 s6 s6 s6"], "s10", "s6")
    assert [g.kind for g in h.groups[1]] == ["ti"] and h.held(1) == 20
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert h.held(1) == 21 and h.count_of(1) == 21
    assert 1 not in h.to_act() or h.phase != "discard"
    assert [e.to_wire()["seat"] for e in h.events if e.type == "draw"][:2] == [1, 2]


def test_s5_6_second_pao_skips_discard():
    h = hand_from("full", ["s3", "s1 s1 s1 s1 s3 s3 s3"], "s10")
    events = act(h, 0, {"type": "discard", "card": "s3"})
    assert [e.type for e in events][:2] == ["discard", "pao"]
    assert h.held(1) == 21 and h.count_of(1) == 21
    assert h.phase != "discard" or h.turn != 1


def test_s5_6_three_four_card_groups_non_dealer_with_two_opening_ti():
    # Two opening 提: 20 held, count 21 — below the count; a 吃 brings him to 21 = count: no discard.
    h = hand_from("full", ["s3", "s1 s1 s1 s1 s2 s2 s2 s2 s4 s5 s7 s7 s7"], "s10", "s7")
    assert h.held(1) == 20 and h.count_of(1) == 21
    act(h, 0, {"type": "discard", "card": "s3"})
    events = act(h, 1, {"type": "chi", "groups": [["s3", "s4", "s5"]]})
    # No discard: seat 2 draws s7, and seat 1's 坎 takes it as his third 4-card group (跑):
    # 22 held, count 22 — still no discard, seat 2 draws again.
    wire = [e.to_wire() for e in events]
    assert [w["type"] for w in wire[:5]] == ["chi", "draw", "show", "pao", "draw"]
    assert wire[1]["seat"] == 2 and wire[3]["seat"] == 1 and wire[4]["seat"] == 2
    assert h.held(1) == 22 and h.count_of(1) == 22


def test_s5_6_peng_is_followed_by_a_discard():
    h = hand_from("full", ["s3", "", "s3 s3"], "s10")
    act(h, 0, {"type": "discard", "card": "s3"})
    act(h, 2, {"type": "peng"})
    assert h.phase == "discard" and h.to_act() == [2] and h.held(2) == 21
