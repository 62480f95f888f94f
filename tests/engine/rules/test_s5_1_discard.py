"""RULES.md §5.1: Discard (打牌 / 出牌)."""

from __future__ import annotations

from tests.engine.hand_support import act, force_wins, hand_from, lay, pass_all, types_of, wires
from tests.engine.rules.support import S3


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


def test_s5_1_hu_on_a_discard_with_discard_win_from_the_discarders_next(monkeypatch):
    force_wins(monkeypatch, {1: {"discard"}, 2: {"discard"}})
    h = hand_from("chenzhou", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    act(h, 2, {"type": "hu"})
    assert not h.finished
    act(h, 1, {"type": "hu"})
    assert h.result["winner"] == 1 and h.result["win_by"] == "discard"


def test_s5_1_only_the_next_player_may_eat_a_discard():
    # Seats 1 and 2 both hold s4 s5; only seat 1 (the discarder's next) is offered 吃.
    h = hand_from("full", ["s3", "s4 s5", "s4 s5"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    assert h.pending == {1: ["chi", "pass"]}
