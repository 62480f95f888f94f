"""RULES.md §1: Cards."""

from __future__ import annotations

import pytest

from apps.engine.cards import CHINESE, RED, card_name, full_deck, parse_card, rank


def test_s1_eighty_cards_twenty_kinds():
    deck = full_deck()
    assert len(deck) == 80
    assert all(deck.count(c) == 4 for c in range(20))


def test_s1_red_cards_and_rank_ignores_case():
    assert {card_name(c) for c in RED} == {"s2", "s7", "s10", "b2", "b7", "b10"}
    assert rank(parse_card("b5")) == rank(parse_card("s5")) == 5
    assert CHINESE[parse_card("b10")] == "拾" and CHINESE[parse_card("s1")] == "一"


@pytest.mark.parametrize("bad", ["s0", "b11", "S3", "", None, 3, "s3 "])
def test_s1_notation_rejects_unknown_cards(bad):
    with pytest.raises(ValueError):
        parse_card(bad)
