"""The deal and the opening (RULES.md §2, §3, §11.7)."""

from __future__ import annotations

from hand_support import act, cards, hand_from, types_of, wires

from apps.engine.cards import full_deck
from apps.engine.play.hand import Hand
from apps.engine.rules import resolve_ruleset
from apps.engine.shuffle import deck_from_seed


def test_s11_7_blocks_of_20_from_the_dealer_then_reveal_then_stock():
    deck = deck_from_seed(bytes(32))
    h = Hand(resolve_ruleset("full"), dealer=1, seed=bytes(32))
    assert h.deck == deck
    deal = h.events[0].to_wire()
    assert deal["type"] == "deal"
    # Dealer 1 gets the first block, then seat 2, then seat 0.
    assert sorted(cards(" ".join(deal["hands"][1]))) == sorted(deck[0:20])
    assert sorted(cards(" ".join(deal["hands"][2]))) == sorted(deck[20:40])
    assert sorted(cards(" ".join(deal["hands"][0]))) == sorted(deck[40:60])
    assert h.events[1].to_wire() == {"seq": 2, "type": "reveal", "card": __import__("apps.engine.cards").engine.cards.card_name(deck[60])}
    assert h.reveal == deck[60]
    assert h.stock == deck[61:]


def test_s2_two_players_deal_like_three():
    h = Hand(resolve_ruleset("chenzhou", players=2), dealer=0, deck=full_deck())
    assert len(h.stock) == 39
    assert h.active_seats == [0, 1]


def test_s2_sit_out_seat_opposite_the_dealer_gets_no_block():
    rs = resolve_ruleset("luzhou", players=4)
    h = Hand(rs, dealer=1, seed=bytes(32))
    assert h.active_seats == [0, 1, 2]
    assert sum(h.hands[3]) == 0 and h.groups[3] == []
    assert set(h.events[0].to_wire()["hands"]) == {0, 1, 2}
    assert len(h.stock) == 19
    deck = h.deck
    assert sorted(cards(" ".join(h.events[0].to_wire()["hands"][2]))) == sorted(deck[20:40])
    assert sorted(cards(" ".join(h.events[0].to_wire()["hands"][0]))) == sorted(deck[40:60])
    while not h.finished:
        assert 3 not in h.to_act()
        seat = h.to_act()[0]
        h.apply(seat, h.default_action(seat))
    if h.result["winner"] is not None:
        assert h.result["settlement"]["deltas"].get(3, 0) == 0


def test_s2_deal_all_blocks_of_14_and_stock_23():
    rs = resolve_ruleset("chenzhou", players=4)
    h = Hand(rs, dealer=0, seed=bytes(32))
    assert h.active_seats == [0, 1, 2, 3]
    assert len(h.stock) == 23
    assert [len(v) for v in h.events[0].to_wire()["hands"].values()] == [14, 14, 14, 14]
    assert h.held(0) == 15  # the reveal card joined the dealer


def test_s3_3_natural_win_with_three_ti_is_forced():
    h = hand_from("full", ["", "s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3 s3"], "s9")
    assert types_of(h.events) == ["deal", "reveal", "natural_win", "hu"]
    assert h.finished and h.result["winner"] == 1 and h.result["win_by"] == "natural"
    assert h.result["card"] is None


def test_s3_3_natural_win_with_five_kan_or_ti():
    h = hand_from("full", ["", "s1 s1 s1 s1 s2 s2 s2 s3 s3 s3 s4 s4 s4 s5 s5 s5"], "s9")
    assert h.result["winner"] == 1 and h.events[2].type == "natural_win"


def test_s3_3_dealer_counts_the_reveal_card():
    # Two 提 in hand and a 坎 of the reveal card: the reveal makes the dealer's third 提.
    h = hand_from("full", ["s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3"], "s3")
    assert h.events[2].to_wire() == {"seq": 3, "type": "natural_win", "seat": 0}
    assert h.result["winner"] == 0


def test_s3_3_natural_win_in_seat_order_from_the_dealer():
    three_ti = "s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3 s3"
    other = "s4 s4 s4 s4 s5 s5 s5 s5 s6 s6 s6 s6"
    # Dealer 2: seats deal in order 2, 0, 1; seats 0 and 1 both qualify, seat 0 comes first.
    h = hand_from("full", ["", three_ti, other], "s9", dealer=2)
    assert h.result["winner"] == 0


REVEAL_WINNER = "b1 b1 b1 b2 b2 b2 b3 b3 b3 s1 s2 s3 s4 s5 s6 s7 s8 s9 b4 b5"


def test_s3_4_reveal_win_is_a_choice_of_each_player():
    h = hand_from("full", ["", REVEAL_WINNER], "b6")
    assert h.to_act() == [1]
    assert wires(h.legal_actions(1)) == [{"type": "hu"}, {"type": "pass"}]
    assert h.table_card == cards("b6")[0]
    events = act(h, 1, {"type": "hu"})
    assert types_of(events) == ["hu"]
    assert h.result["winner"] == 1 and h.result["win_by"] == "reveal" and h.result["card"] == "b6"


def test_s3_5_passed_reveal_card_joins_the_dealer():
    h = hand_from("full", ["", REVEAL_WINNER], "b6")
    events = act(h, 1, {"type": "pass"})
    assert types_of(events) == ["pass"]
    assert h.hands[0][cards("b6")[0]] >= 1 and h.held(0) == 21
    assert h.to_act() == [0] and h.phase == "discard"


def test_s3_6_opening_ti_every_four_of_a_kind_is_laid():
    h = hand_from("full", ["s5 s5 s5", "s1 s1 s1 s1"], "s5")
    tis = [e.to_wire() for e in h.events if e.type == "ti"]
    assert tis == [
        {"seq": 3, "type": "ti", "seat": 0, "card": "s5", "from": "deal"},
        {"seq": 4, "type": "ti", "seat": 1, "card": "s1", "from": "deal"},
    ]
    assert [g.kind for g in h.groups[0]] == ["ti"] and [g.kind for g in h.groups[1]] == ["ti"]


def test_s3_7_dealer_discards_first():
    h = hand_from("full", ["s5"], "s6")
    assert h.phase == "discard" and h.to_act() == [0]


def test_s5_6_dealer_with_two_opening_ti_keeps_after_the_reveal():
    h = hand_from("full", ["s5 s5 s5 s5 s6 s6 s6 s6"], "s1", "s2")
    assert h.held(0) == 21 and h.count_of(0) == 21
    # No discard: the dealer's next player draws at once.
    after = [e.to_wire() for e in h.events if e.type not in ("deal", "reveal", "ti")]
    assert after[0] == {"seq": 5, "type": "draw", "seat": 1, "card": "s2"}
