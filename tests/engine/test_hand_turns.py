"""The turn cycle: discards, draws, forced actions and upgrades (RULES.md §4.2, §5.1, §5.2, §5.4, §5.5, §8.5)."""

from __future__ import annotations

from tests.engine.hand_support import act, cards, force_wins, hand_from, lay, pass_all, types_of, wires

S3, S6 = cards("s3 s6")


def last(h, type_):
    return [e.to_wire() for e in h.events if e.type == type_][-1]


def test_s5_1_discard_claims_peng_by_others_chi_only_by_next():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3 s4 s5"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    assert S3 in h.chou(0)
    assert h.pending == {1: ["chi", "pass"], 2: ["pass", "peng"]}  # seat 2 holds s4 s5 too: no 吃
    assert {"type": "chi", "groups": [["s3", "s4", "s5"]]} in wires(h.legal_actions(1))


def test_s5_1_pao_on_a_discard_is_forced_for_a_kan():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3 s3"], "s9")
    events = act(h, 0, {"type": "discard", "card": "s3"})
    assert types_of(events) == ["discard", "pao"]
    assert events[1].to_wire() == {"seq": 4, "type": "pao", "seat": 2, "card": "s3", "from": "kan"}
    assert h.to_act() == [2] and h.phase == "discard"  # first 4-card group: he discards


def test_s5_1_a_laid_peng_never_takes_a_discard():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3 s3"], "s9")
    lay(h, 2, "peng", "s3 s3 s3")
    act(h, 0, {"type": "discard", "card": "s3"})
    assert 2 not in h.pending and h.pending[1] == ["chi", "pass"]


def test_s5_1_unclaimed_discard_goes_to_the_row_and_next_draws():
    h = hand_from("full", ["s3", "s4 s5"], "s9", "s1")
    act(h, 0, {"type": "discard", "card": "s3"})
    events = pass_all(h)
    assert h.discards[0][0] == S3
    assert S3 in h.chou(1)  # passed a 吃
    assert [e.to_wire() for e in events if e.type == "draw"][0]["seat"] == 1


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


def test_s7_chou_wei_after_passing_a_peng():
    h = hand_from("full", ["s6", "s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s6"})
    assert "peng" in h.pending[1]
    pass_all(h)
    assert S6 in h.chou(1)
    assert last(h, "wei") == {"seq": last(h, "wei")["seq"], "type": "wei", "seat": 1, "card": "s6", "chou": True}
    assert [g.kind for g in h.groups[1]] == ["chou_wei"]


def test_s5_5_own_peng_plus_own_draw_becomes_pao():
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    h = hand_from("full", ["s9", "s6 s6 s6"], "s10", "s6")
    lay(h, 1, "peng", "s6 s6 s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert [e.type for e in h.events][-2:] == ["show", "pao"] or last(h, "pao")["from"] == "peng"
    assert last(h, "pao")["seat"] == 1 and [g.kind for g in h.groups[1]] == ["pao"]


def test_s5_5_peng_plus_another_players_draw_becomes_pao():
    h = hand_from("full", ["s9", "", "s6 s6 s6"], "s10", "s6")
    lay(h, 2, "peng", "s6 s6 s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show")["seat"] == 1
    assert last(h, "pao") == {"seq": last(h, "pao")["seq"], "type": "pao", "seat": 2, "card": "s6", "from": "peng"}
    assert h.to_act() == [2]


def test_s5_5_wei_plus_a_discard_becomes_pao():
    h = hand_from("full", ["s6", "", "s6 s6 s6"], "s10")
    lay(h, 2, "wei", "s6 s6 s6")
    events = act(h, 0, {"type": "discard", "card": "s6"})
    assert events[-1].to_wire()["type"] == "pao" and events[-1].to_wire()["from"] == "wei"


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


def test_s7_drawer_eats_his_own_card_not_chou_for_his_next():
    h = hand_from("full", ["s9", "s4 s5", "s1 s2"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    act(h, 2, {"type": "pass"})
    events = act(h, 1, {"type": "chi", "groups": [["s3", "s4", "s5"]]})
    assert "chi" in types_of(events)
    assert S3 not in h.chou(2) and S3 not in h.chou(1)


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


def test_s5_3_hu_in_seat_order_from_the_drawer(monkeypatch):
    force_wins(monkeypatch, {0: {"other_draw"}, 2: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    # Seat 1 drew s3; seats 2 then 0 may 胡 on it: seat 2 comes first.
    assert h.pending[0] == ["hu", "pass"] and "hu" in h.pending[2]
    act(h, 0, {"type": "hu"})
    assert not h.finished  # seat 2 could still outrank
    act(h, 2, {"type": "hu"})
    assert h.result["winner"] == 2 and h.result["win_by"] == "other_draw"


def test_s5_3_po_pao_hu_beats_a_forced_pao(monkeypatch):
    force_wins(monkeypatch, {0: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3 s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    for s in h.to_act():
        act(h, s, {"type": "pass"})
    assert h.pending == {0: ["hu", "pass"]}  # 跑 waits for the 胡 decision
    events = act(h, 0, {"type": "hu"})
    assert types_of(events) == ["hu"] and h.result["winner"] == 0


def test_s5_4_declining_the_hu_of_a_forced_pao_leaves_the_pao(monkeypatch):
    force_wins(monkeypatch, {2: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3 s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    for s in h.to_act():
        act(h, s, {"type": "pass"})
    assert h.pending == {2: ["hu", "pass"]}
    events = act(h, 2, {"type": "pass"})
    assert types_of(events) == ["pass", "pao"] and not h.finished


def test_s5_3_peng_executes_at_once_over_an_undecided_chi():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    events = act(h, 2, {"type": "peng"})
    assert types_of(events) == ["peng"]
    assert S3 not in h.chou(1)  # taken by a claim that outranks his 吃
    assert h.to_act() == [2]


def test_s7_passed_peng_is_chou_when_a_lower_chi_takes_the_card():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    act(h, 2, {"type": "pass"})
    act(h, 1, {"type": "chi", "groups": [["s3", "s4", "s5"]]})
    assert S3 in h.chou(2)


def test_s8_5_haidi_passes_last_card_to_the_scorer(monkeypatch):
    calls = force_wins(monkeypatch, {1: {"self_draw"}})
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    h._stock_pos = len(h.stock) - 1
    for s in h.to_act():
        act(h, s, {"type": "pass"})
    assert h.pending == {1: ["hu", "pass"]}
    act(h, 1, {"type": "hu"})
    assert calls[-1]["last_card"] is True and h.result["win_by"] == "self_draw"


def test_s8_4_no_hu_on_a_discard_without_discard_win(monkeypatch):
    force_wins(monkeypatch, {1: {"discard", "other_draw"}, 2: {"discard"}})
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    assert all("hu" not in opts for opts in h.pending.values())


def test_s5_1_hu_on_a_discard_with_discard_win_from_the_discarders_next(monkeypatch):
    force_wins(monkeypatch, {1: {"discard"}, 2: {"discard"}})
    h = hand_from("chenzhou", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    act(h, 2, {"type": "hu"})
    assert not h.finished
    act(h, 1, {"type": "hu"})
    assert h.result["winner"] == 1 and h.result["win_by"] == "discard"
