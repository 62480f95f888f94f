"""RULES.md §3.4: Reveal win (亮张胡)."""

from __future__ import annotations

from tests.engine.hand_support import act, cards, hand_from, types_of, wires
from tests.engine.rules.support import COMPLETE_WITH_S7, REVEAL_WINNER

DEALER_REVEAL = "b1 b1 b1 b2 b2 b2 b3 b3 b3 s1 s2 s3 s4 s5 s6 s7 s8 s9 b4 b5"


SEAT1_REVEAL = "s1 s1 s1 s2 s2 s2 s3 s3 s3 b10 b10 b10 b7 b8 b9 s4 s5 s6 b4 b5"


def test_s3_4_reveal_win_is_a_choice_of_each_player():
    h = hand_from("full", ["", REVEAL_WINNER], "b6")
    assert h.to_act() == [1]
    assert wires(h.legal_actions(1)) == [{"type": "hu"}, {"type": "pass"}]
    assert h.table_card == cards("b6")[0]
    events = act(h, 1, {"type": "hu"})
    assert types_of(events) == ["hu"]
    assert h.result["winner"] == 1 and h.result["win_by"] == "reveal" and h.result["card"] == "b6"


def test_s3_4_others_may_win_on_a_reveal_card_completing_the_dealers_four():
    h = hand_from("full", ["s7 s7 s7", COMPLETE_WITH_S7], "s7")
    assert h.pending == {1: ["hu", "pass"]}
    act(h, 1, {"type": "hu"})
    assert h.result["winner"] == 1 and h.result["win_by"] == "reveal"
    # full: a reveal win doubles the 胡息 (15 → 30: tun 6), a non-dealer's is not 自摸.
    s = h.result["settlement"]
    assert (s["huxi"], s["tun"]) == (15, 6)


def test_s3_4_reveal_win_priority_is_seat_order_from_the_dealer():
    h = hand_from("changsha", [DEALER_REVEAL, SEAT1_REVEAL], "b6")
    assert h.pending == {0: ["hu", "pass"], 1: ["hu", "pass"]}
    act(h, 1, {"type": "hu"})
    assert not h.finished  # the dealer comes first and has not decided
    act(h, 0, {"type": "pass"})
    assert h.result["winner"] == 1
    # changsha: a non-dealer's reveal win is 地胡.
    assert {"name": "di_hu", "fan": 5} in h.result["settlement"]["mingtang"]


def test_s3_4_dealers_reveal_win_is_tian_hu_in_changsha():
    h = hand_from("changsha", [DEALER_REVEAL, SEAT1_REVEAL], "b6")
    act(h, 0, {"type": "hu"})
    assert h.result["winner"] == 0
    assert {"name": "tian_hu", "fan": 5} in h.result["settlement"]["mingtang"]


def test_s3_4_dealer_reveal_card_on_his_kan_is_a_ti_with_a_jiang():
    dealer = "b5 b5 b5 s1 s2 s3 b1 b2 b3 s4 s5 s6 b7 b8 b9 s9 s9 s9 s8 s8"
    h = hand_from("full", [dealer], "b5")
    assert h.pending == {0: ["hu", "pass"]}
    act(h, 0, {"type": "hu"})
    s = h.result["settlement"]
    kinds = [g["kind"] for g in s["groups"]]
    assert kinds.count("ti") == 1 and kinds.count("jiang") == 1 and len(kinds) == 7
    # 12 + 3 + 6 + 3 = 24 胡息, ×2 (天胡) = 48 → tun 12, + 1 自摸 (the dealer's reveal win).
    assert (s["huxi"], s["tun"]) == (24, 13)
