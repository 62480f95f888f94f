"""RULES.md §2: Seats, direction, dealer."""

from __future__ import annotations

from apps.engine.cards import full_deck
from apps.engine.play.dealer import next_dealer
from apps.engine.play.hand import Hand
from apps.engine.rules import resolve_ruleset
from tests.engine.hand_support import act, cards, hand_from, pass_all, wires


def test_s2_dealer_rotation():
    full = resolve_ruleset("full")
    h = hand_from("full", ["s3"], "s10")
    h.finished, h.result = True, {"winner": None, "draw": True}
    assert h.next_dealer(0) == (0, 1)
    assert h.next_dealer(2) == (1, 0)  # stay3: the third draw in a row passes the deal
    h.result = {"winner": 2}
    assert h.next_dealer(2) == (2, 0)
    chen = Hand(resolve_ruleset("chenzhou"), 0, seed=bytes(32))
    chen.finished, chen.result = True, {"winner": None, "draw": True}
    assert chen.next_dealer(0)[0] == 1
    assert full.dealer_after_draw == "stay3"


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


def test_s2_deal_all_dealer_holds_fifteen_and_discards():
    h = hand_from("chenzhou", ["s5"], "s1", players=4)
    assert [h.held(s) for s in range(4)] == [15, 14, 14, 14]
    assert h.count_of(0) == 14 and h.phase == "discard" and h.to_act() == [0]
    assert len(h.stock) == 23


def test_s2_sit_out_next_player_skips_the_sitter():
    # Dealer 0: seat 2 sits out; seat 1's next player is seat 3.
    h = hand_from("luzhou", ["s9", "s3", "s4 s5"], "s10", players=4)
    assert h.active_seats == [0, 1, 3] and h.next_seat(1) == 3 and h.next_seat(3) == 0
    act(h, 0, {"type": "discard", "card": "s9"})
    assert 2 not in h.pending
    pass_all(h)
    draws = [e.to_wire()["seat"] for e in h.events if e.type == "draw"]
    assert draws[0] == 1


def test_s2_two_players_the_other_player_is_next_and_may_eat():
    h = hand_from("chenzhou", ["s3", "s4 s5"], "s10", players=2)
    act(h, 0, {"type": "discard", "card": "s3"})
    assert {"type": "chi", "groups": [["s3", "s4", "s5"]]} in wires(h.legal_actions(1))


def test_s2_stay3_third_consecutive_draw_passes_the_deal():
    rs = resolve_ruleset("full")
    assert next_dealer(rs, 1, None, 0) == (1, 1)
    assert next_dealer(rs, 1, None, 1) == (1, 2)
    assert next_dealer(rs, 1, None, 2) == (2, 0)
    assert next_dealer(rs, 2, None, 2) == (0, 0)
    assert next_dealer(rs, 1, 0, 2) == (0, 0)  # the winner deals


def test_s2_chenzhou_passes_the_deal_on_every_draw():
    rs = resolve_ruleset("chenzhou", players=2)
    assert next_dealer(rs, 1, None, 0)[0] == 0
    assert next_dealer(resolve_ruleset("chenzhou", players=4), 3, None, 0)[0] == 0
    assert next_dealer(rs, 0, 0, 0) == (0, 0)
