"""RULES.md §5.6: When a player discards: the count rule (八块 / 重跑 included)."""

from __future__ import annotations

from tests.engine.hand_support import act, hand_from, pass_all, types_of
from tests.engine.rules.support import KANS_TI2


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


def test_s5_6_dealer_with_two_opening_ti_keeps_after_the_reveal():
    h = hand_from("full", ["s5 s5 s5 s5 s6 s6 s6 s6"], "s1", "s2")
    assert h.held(0) == 21 and h.count_of(0) == 21
    # No discard: the dealer's next player draws at once.
    after = [e.to_wire() for e in h.events if e.type not in ("deal", "reveal", "ti")]
    assert after[0] == {"seq": 5, "type": "draw", "seat": 1, "card": "s2"}


def test_s5_6_dealer_with_one_opening_ti_discards_after_the_reveal():
    h = hand_from("full", ["s5 s5 s5 s5"], "s1")
    assert h.held(0) == 21 and h.count_of(0) == 20
    assert h.phase == "discard" and h.to_act() == [0]


def test_s5_6_dealer_whose_reveal_card_makes_his_second_ti_keeps():
    h = hand_from("full", ["s5 s5 s5 s5 s6 s6 s6"], "s6", "s2")
    assert [g.kind for g in h.groups[0]] == ["ti", "ti"]
    assert h.held(0) == 21 and h.count_of(0) == 21
    draws = [e.to_wire() for e in h.events if e.type == "draw"]
    assert draws[0]["seat"] == 1


def test_s5_6_dealer_two_opening_ti_then_a_pao_keeps_then_a_peng_discards():
    # 八块/重跑: the third 4-card group is not followed by a discard; the next acquisition is.
    h = hand_from("full", [KANS_TI2 + " s3 s3 s3 s6 s6"], "s9", "s3 s6")
    assert h.held(0) == 21 and h.count_of(0) == 21
    # Seat 1 drew s3: the dealer's 坎 takes it as 跑 (22 held, count 22): seat 1 draws again.
    assert h.claim.pao_seat == 0
    pass_all(h)  # a filler hand may be offered 胡 on the s3
    paos = [e.to_wire() for e in h.events if e.type == "pao"]
    assert paos == [{"seq": paos[0]["seq"], "type": "pao", "seat": 0, "card": "s3", "from": "kan"}]
    assert h.held(0) == 22 and h.count_of(0) == 22
    assert h.pending[0] == ["pass", "peng"]  # seat 1 showed s6
    act(h, 0, {"type": "peng"})
    if not h.phase == "discard":  # the filler hand of seat 1 may be offered 胡: he passes
        act(h, 1, {"type": "pass"})
    assert h.held(0) == 23 and h.phase == "discard" and h.to_act() == [0]


def test_s5_6_non_dealer_with_two_opening_ti_keeps_after_a_peng():
    h = hand_from("full", ["s3", KANS_TI2 + " s3 s3"], "s9")
    assert h.held(1) == 20 and h.count_of(1) == 21
    act(h, 0, {"type": "discard", "card": "s3"})
    events = act(h, 1, {"type": "peng"})
    # 21 held = count 21: no discard, seat 2 draws at once.
    assert types_of(events)[:2] == ["peng", "draw"] and events[1].to_wire()["seat"] == 2
