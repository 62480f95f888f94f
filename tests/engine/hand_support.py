"""Helpers for the hand tests: decks that deal exact hands, short-cuts for claims, a hand played by greedy bots."""

from __future__ import annotations

import random

from apps.engine.actions import Action
from apps.engine.bots.greedy import greedy
from apps.engine.cards import COPIES, KINDS, parse_card
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.records.replay import record_of
from apps.engine.rules import resolve_ruleset
from apps.engine.shuffle import deck_from_seed


def cards(text: str) -> list[int]:
    return [parse_card(x) for x in text.split()]


def _near(c: int) -> set[int]:
    """Cards that can share a sentence or 绞 with ``c``, and ``c`` itself."""
    from apps.engine.chi import PARTNERS

    return {x for pair in PARTNERS[c] for x in pair} | {c}


def make_deck(hands: list[str], reveal: str, stock: str = "", block: int = 20) -> list[int]:
    """A deck dealing ``hands`` (in deal order: the dealer first), then ``reveal``, then ``stock``.

    Hands shorter than ``block`` are filled with quiet cards: up to two 坎 of kinds the test never
    names (a 坎 is never eaten with nor discarded), then cards far from every named card and from
    each other (no 吃 with them, no win), then, if need be, anything left (at most two of a kind).
    Unused cards end the stock in notation order.
    """
    pool = [COPIES] * KINDS
    wanted = [cards(h) for h in hands] + [cards(reveal), cards(stock)]
    named = {c for group in wanted for c in group}
    near_named = set().union(*(_near(c) for c in named)) if named else set()
    for group in wanted:
        for c in group:
            pool[c] -= 1
            assert pool[c] >= 0, f"too many copies of card {c}"
    out: list[int] = []
    for h in wanted[: len(hands)]:
        h = list(h)
        mine = [h.count(c) for c in range(KINDS)]
        kans = sum(1 for n in mine if n >= 3)
        for c in reversed(range(KINDS)):
            if len(h) + 3 <= block and kans < 2 and pool[c] >= 3 and c not in named and mine[c] == 0:
                h += [c] * 3
                mine[c] += 3
                pool[c] -= 3
                kans += 1
        blocked = set(near_named)
        for c in range(KINDS):
            if 0 < mine[c] < 3:
                blocked |= _near(c)
        for c in list(range(0, KINDS, 3)) + list(range(KINDS)):
            if c in blocked:
                continue
            take = min(2, pool[c], block - len(h))
            if take > 0 and mine[c] == 0:
                h += [c] * take
                mine[c] += take
                pool[c] -= take
                blocked |= _near(c)
        for c in reversed(range(KINDS)):
            while len(h) < block and pool[c] and mine[c] < 2:
                h.append(c)
                mine[c] += 1
                pool[c] -= 1
        assert len(h) == block, "cannot fill the hand"
        out += h
    out += wanted[-2] + wanted[-1]
    for c in range(KINDS):
        out += [c] * pool[c]
    assert len(out) == 80
    return out


def hand_from(preset: str, hands: list[str], reveal: str, stock: str = "", dealer: int = 0,
              players: int = 3, **options) -> Hand:
    rs = resolve_ruleset(preset, options, players=players)
    block = 14 if rs.deal_all else 20
    hands = list(hands) + [""] * (rs.active_players - len(hands))
    return Hand(rs, dealer, deck=make_deck(hands, reveal, stock, block=block))


def act(h: Hand, seat: int, wire: dict) -> list:
    return h.apply(seat, Action.from_wire(wire))


def wires(actions) -> list[dict]:
    return [a.to_wire() for a in actions]


def types_of(events) -> list[str]:
    return [e.type for e in events]


def pass_all(h: Hand) -> list:
    """Everyone with a pending option on the card in question passes (that card only)."""
    out: list = []
    claim = h.claim
    while h.phase == "claim" and h.claim is claim and h.to_act():
        seat = h.to_act()[0]
        out += act(h, seat, {"type": "pass"})
    return out


def names_of(vec) -> str:
    from apps.engine.cards import card_name

    return " ".join(card_name(c) for c in range(20) for _ in range(vec[c]))


class FakeScore:
    """What ``score_win`` returns, for tests that force a win where the cards need not make one."""

    win = True
    score = 1

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def to_wire(self) -> dict:
        return {"win": True, "score": 1}


def force_wins(monkeypatch, winners: dict[int, set[str]]) -> list[dict]:
    """Make ``winners`` {seat: {win_by, ...}} able to 胡 on any card; returns the score_win calls."""
    import apps.engine.play.turns as turns

    calls: list[dict] = []

    def fake_cards_win(self, seat, card, win_by, pre=None):
        return win_by in winners.get(seat, ())

    def fake_score_win(rs, hand, groups, card, win_by, **kw):
        calls.append({"hand": list(hand), "groups": list(groups), "card": card, "win_by": win_by, **kw})
        return FakeScore()

    monkeypatch.setattr(turns.HandState, "cards_win", fake_cards_win)
    monkeypatch.setattr(turns, "score_win", fake_score_win)
    return calls


def lay(h: Hand, seat: int, kind: str, text: str) -> None:
    """Test set-up: move cards from a seat's hand into a laid group (as if laid earlier)."""
    from apps.engine.groups import Group

    group = cards(text)
    for c in group:
        assert h.hands[seat][c] > 0
        h.hands[seat][c] -= 1
    h.groups[seat].append(Group(kind, tuple(group)))


def greedy_record(preset: str, players: int, label: str, index: int = 0, deck: bool = False) -> dict:
    """Deal ``hand_seed(label, index)`` (its shuffle, or with ``deck`` the same cards as a record's
    ``deck``) played to its end by greedy bots in every seat; the hand's record."""
    rs = resolve_ruleset(preset, {}, players=players)
    seed = hand_seed(label, index)
    if deck:
        hand = Hand(rs, dealer=seed[0] % players, deck=list(deck_from_seed(seed)))
    else:
        hand = Hand(rs, dealer=seed[0] % players, seed=seed)
    rng = random.Random(seed)
    while not hand.finished:
        seat = hand.to_act()[0]
        hand.apply(seat, greedy(hand, seat, hand.decision_actions(seat), rng))
    return record_of(hand)
