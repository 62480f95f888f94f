"""The engine's bots (practice seats and 托管 auto-play): they only ever pick from legal_actions.

- ``random``: uniform over ``legal_actions(seat)``.
- ``greedy``: takes 胡 when offered; takes a 碰/吃 when the groups it lays score 胡息; discards the
  card with the fewest partners (pairs, neighbours for sentences, the other case for 绞, 二七十).

The levels players choose (``LEVELS``): ``easy`` is greedy that makes a random legal choice one time
in ``EASY_RANDOM`` (it still takes every 胡); ``normal`` is greedy; ``hard`` is the searching bot of
search_bot.py, which decides from ``hand.view(seat)`` alone within a time ``budget``.
"""

from __future__ import annotations

import random

from .actions import HU, Action
from .cards import cards_of, rank
from .groups import Group
from .huxi import group_huxi

# Ranks of the 二七十 sentence.
_ER_QI_SHI = (2, 7, 10)

LEVELS = ("easy", "normal", "hard")
KINDS = ("random", "greedy", *LEVELS)
EASY_RANDOM = 0.3  # the share of easy's decisions (胡 aside) made at random


def bot_choose(hand, seat: int, kind: str = "greedy", rng: random.Random | None = None, budget=None) -> Action:
    """One legal action for ``seat``; ValueError when the seat has nothing to decide.

    ``budget``: a ``search_bot.Budget`` for ``hard`` (default ``search_bot.DEFAULT_BUDGET``)."""
    rng = rng or random.Random()
    if kind == "hard":
        from .search_bot import DEFAULT_BUDGET, search_choose

        return search_choose(hand.rs, hand.view(seat), rng, budget or DEFAULT_BUDGET)
    legal = hand.legal_actions(seat)
    if not legal:
        raise ValueError(f"seat {seat} has nothing to decide")
    if kind == "random":
        return legal[rng.randrange(len(legal))]
    if kind == "easy":
        if HU not in legal and rng.random() < EASY_RANDOM:
            return legal[rng.randrange(len(legal))]
    elif kind not in ("greedy", "normal"):
        raise ValueError(f"unknown bot kind {kind!r}")
    return _greedy(hand, seat, legal, rng)


def _greedy(hand, seat: int, legal: list[Action], rng: random.Random) -> Action:
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    if "hu" in by_type:
        return by_type["hu"][0]
    if "discard" in by_type:
        return _best_discard(hand, seat, by_type["discard"], rng)
    claims = by_type.get("peng", []) + by_type.get("chi", [])
    if claims:
        rules = hand.rs
        scored = [(_claim_huxi(hand, rules, a), i, a) for i, a in enumerate(claims)]
        best_huxi, _, best = max(scored, key=lambda t: (t[0], -t[1]))
        if best_huxi > 0 or "pass" not in by_type:
            return best
    if "pass" in by_type:
        return by_type["pass"][0]
    return legal[0]


def _claim_huxi(hand, rules, action: Action) -> int:
    """胡息 of the groups a 碰 or 吃 would lay."""
    if action.type == "peng":
        card = claimed_card(hand)
        if card is None:
            return 0
        return group_huxi(rules, Group("peng", (card, card, card)))
    return sum(group_huxi(rules, Group("chi", cards)) for cards in action.groups)


def claimed_card(hand) -> int | None:
    """The card in question that claims are about (shown, discarded or the reveal card)."""
    return hand.table_card


def partners(counts: list[int], card: int) -> int:
    """How many other hand cards could form a group with ``card``."""
    score = 3 * (counts[card] - 1)  # pairs make 碰/偎/坎
    big = card >= 10
    base = 10 if big else 0
    r = rank(card)
    for d in (-2, -1, 1, 2):
        if 1 <= r + d <= 10:
            weight = 2 if abs(d) == 1 else 1
            score += weight * min(counts[base + r + d - 1], 1)
    other = card - 10 if big else card + 10
    score += 2 * min(counts[other], 2)  # 绞
    if r in _ER_QI_SHI:
        score += sum(min(counts[base + x - 1], 1) for x in _ER_QI_SHI if x != r)
    return score


def _best_discard(hand, seat: int, discards: list[Action], rng: random.Random) -> Action:
    counts = list(hand.hands[seat])
    best: list[Action] = []
    best_score = None
    for action in discards:
        card = action.card
        score = partners(counts, card)
        if best_score is None or score < best_score:
            best, best_score = [action], score
        elif score == best_score:
            best.append(action)
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def hand_cards(hand, seat: int) -> list[int]:
    """The seat's hidden hand cards, as ints."""
    return cards_of(hand.hands[seat])
