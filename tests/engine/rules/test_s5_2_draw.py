"""RULES.md §5.2: Draw (摸牌)."""

from __future__ import annotations

from tests.engine.hand_support import act, hand_from, pass_all, types_of
from tests.engine.rules.support import S3, last


def test_s5_2_ti_from_kan_on_own_draw_then_discard():
    h = hand_from("full", ["s9", "s6 s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "ti") == {"seq": last(h, "ti")["seq"], "type": "ti", "seat": 1, "card": "s6", "from": "kan"}
    assert h.phase == "discard" and h.to_act() == [1]


def test_s5_2_wei_from_a_pair_then_ti_from_the_laid_wei():
    h = hand_from("full", ["s9", "s6 s6 s1", "", ], "s10", "s6 b1 b2 s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "wei")["card"] == "s6" and last(h, "wei")["chou"] is False
    assert [g.kind for g in h.groups[1]] == ["wei"]
    act(h, 1, {"type": "discard", "card": "s1"})
    for _ in range(20):  # play on (time-out actions) until seat 1 draws the last s6
        if any(e.type == "ti" for e in h.events) or h.finished:
            break
        seat = h.to_act()[0]
        h.apply(seat, h.default_action(seat))
    assert last(h, "ti")["from"] == "wei" and [g.kind for g in h.groups[1]] == ["ti"]


def test_s5_2_chi_first_the_drawer_then_his_next():
    h = hand_from("full", ["s9", "s4 s5", "s1 s2"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show")["card"] == "s3"
    assert "chi" in h.pending[1] and "chi" in h.pending[2]
    act(h, 2, {"type": "chi", "groups": [["s1", "s2", "s3"]]})
    assert h.to_act() == [1]  # the drawer could still outrank him
    events = act(h, 1, {"type": "pass"})
    assert types_of(events)[:2] == ["pass", "chi"]
    assert S3 in h.chou(1) and S3 not in h.chou(2)


def test_s5_2_unclaimed_shown_card_goes_to_the_drawers_row():
    h = hand_from("full", ["s9", "s4 s5"], "s10", "s3 b1")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    pass_all(h)
    assert S3 in h.discards[1]
    draws = [e.to_wire() for e in h.events if e.type == "draw"]
    assert draws[0]["seat"] == 1 and draws[1]["seat"] == 2


def test_s5_2_empty_stock_is_huang():
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    h._stock_pos = len(h.stock)  # as if the stock had run out
    events = pass_all(h)
    assert types_of(events)[-1] == "huang"
    assert h.finished and h.result == {"winner": None, "draw": True}


def test_s5_2_the_drawer_may_not_peng_his_own_card_others_may():
    # Seat 2 holds a pair of s3; seat 1 draws s3 and shows it (no pair of his own: no 偎).
    h = hand_from("full", ["s9", "", "s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show") == {"seq": last(h, "show")["seq"], "type": "show", "seat": 1, "card": "s3"}
    assert "peng" in h.pending[2] and "peng" not in h.pending.get(1, [])


def test_s5_2_the_player_after_the_drawers_next_may_not_eat():
    # Seat 0 (two seats after drawer 1) holds s4 s5 but is not offered 吃.
    h = hand_from("full", ["s9 s4 s5"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show")["card"] == "s3" and "chi" not in h.pending.get(0, [])


def test_s5_2_a_forced_pao_means_no_peng_or_chi_is_offered():
    # Seat 2 holds a 坎 of s3: its 跑 outranks seat 1's 吃 and is executed at once.
    h = hand_from("full", ["s9", "s4 s5", "s3 s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "pao")["seat"] == 2 and last(h, "pao")["from"] == "kan"
    assert S3 not in h.chou(1)
