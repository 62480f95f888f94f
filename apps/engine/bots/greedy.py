"""The greedy policy (level ``normal``, and the searching bot's play-outs): takes 胡 when offered;
takes a 碰/吃 when the groups it lays score 胡息; discards the card with the fewest partners (pairs,
neighbours for sentences, the other case for 绞, 二七十).
"""

from __future__ import annotations

import random

from ..actions import Action
from ..cards import cards_of, rank
from ..groups import Group
from ..scoring.huxi import group_huxi

# Ranks of the 二七十 sentence.
_ER_QI_SHI = (2, 7, 10)


def greedy(hand, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The greedy choice among ``legal`` (the seat's legal actions, not empty)."""
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
