"""Cards, hands and helpers that the rule tests of several sections share."""

from __future__ import annotations

import copy
from pathlib import Path

from apps.engine.cards import card_name, parse_card
from apps.engine.groups import Group
from apps.engine.play.hand import Hand
from apps.engine.rules import resolve_ruleset
from apps.engine.scoring.mingtang import MingtangContext, bonuses_of, mingtang_of
from tests.engine.hand_support import cards, make_deck, pass_all

S3, S6 = cards("s3 s6")


REVEAL_WINNER = "b1 b1 b1 b2 b2 b2 b3 b3 b3 s1 s2 s3 s4 s5 s6 s7 s8 s9 b4 b5"


def last(h, type_):
    return [e.to_wire() for e in h.events if e.type == type_][-1]


RECORDS = Path(__file__).parents[1] / "records"


def counts_of_text(text: str) -> list[int]:
    vec = [0] * 20
    for c in cards(text):
        vec[c] += 1
    return vec


def to_stock_end(deck: list[int], text: str, stock_from: int = 61) -> list[int]:
    """The deck with the named cards moved, in order, from the stock to its very end."""
    deck = list(deck)
    for moved, c in enumerate(cards(text)):
        i = max(i for i in range(stock_from, len(deck) - moved) if deck[i] == c)
        deck.append(deck.pop(i))
    return deck


def luzhou4(deck: list[int], dealer: int = 0, **options) -> Hand:
    return Hand(resolve_ruleset("luzhou", options, players=4), dealer, deck=deck)


def last_card_hand(stock_pos: int, seat3: str, seat1: str, dealer: str = "s6 s6", **options) -> Hand:
    """Dealer 0 (sitter 2) holds ``dealer`` (a pair of s6) and discards a card nobody takes; the
    stock ends with two s6; seat 1 then draws stock[stock_pos] (an s6)."""
    deck = to_stock_end(make_deck([dealer, seat1, seat3], "b7", stock="s6 s6"), "s6 s6")
    h = luzhou4(deck, **options)
    assert card_name(h.stock[-1]) == "s6" == card_name(h.stock[-2]) and h.to_act() == [0]
    h._stock_pos = stock_pos  # as if the stock before it had been drawn (cards are not checked here)
    for discard in h.legal_actions(0):  # a discard nobody takes: seat 1 draws next
        if discard.card in (parse_card("s6"), parse_card("b7")):
            continue
        after = copy.deepcopy(h)
        after.apply(0, discard)
        if after.phase == "claim" and after.claim is not None and after.claim.source == "discard":
            pass_all(after)  # seat 1 lets it go
        if after.phase == "claim" and after.claim is not None and after.claim.seat == 1 and any(
                e.type == "draw" for e in after.events[-3:]):
            return after
        if after.phase == "discard" and after.turn == 1:  # his forced 偎 left him to discard
            return after
    raise AssertionError("no quiet discard for the dealer")


WINS_ON_S6 = "b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10 s4 s5"


KANS_TI2 = "s1 s1 s1 s1 s2 s2 s2 s2"


COMPLETE_WITH_S7 = "b1 b2 b3 b2 b7 b10 s1 s2 s3 s4 s5 s6 b4 b5 b6 b7 b8 b9 s8 s9"


ON_PENG = "b4 b6 s1 s2 s3 b1 b2 b3 s2 s7 s10 b7 b8 b9 s4 s5 s6"


def group_of(kind: str, text: str) -> Group:
    return Group(kind, tuple(cards(text)))


def mt(preset: str, red: int = 5, big: int = 10, small: int = 11, options: dict | None = None, **kw):
    rs = resolve_ruleset(preset, options or {})
    fields = dict(win_by="other_draw", dealer=False, zimo=False, last_card=False, reveal_card=None, shua_hou=False)
    fields.update(kw)
    ctx = MingtangContext(rs=rs, red=red, big=big, small=small, **fields)
    entries, fan = mingtang_of(rs, ctx)
    return dict(entries), fan, bonuses_of(rs, ctx)


BASE = ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")
