"""A cheap necessary condition for a win, checked before the scorer's ``can_win`` (speed only).

``may_complete(hand, card)``: the hidden hand plus the card splits into 3-card groups (three of a
kind, sentences, 二七十, 绞) and at most one pair, ignoring 胡息 and whether a 坎 stays whole. Every
complete hand in which the card joins a hand group passes; most hands fail within a few steps.
"""

from __future__ import annotations

from functools import lru_cache


def may_complete(hand: tuple[int, ...], card: int) -> bool:
    """Whether ``hand`` (20 counts) plus ``card`` could split into groups and at most one pair.

    >>> from apps.engine.cards import counts_of, parse_card as p
    >>> may_complete(tuple(counts_of([p("s1"), p("s2")])), p("s3"))
    True
    >>> may_complete(tuple(counts_of([p("s1"), p("s5")])), p("s3"))
    False
    """
    vec = list(hand)
    vec[card] += 1
    if sum(vec) % 3 == 1:  # groups of 3 plus at most one pair
        return False
    return _splits(tuple(vec), False)


@lru_cache(maxsize=1 << 17)
def _splits(vec: tuple[int, ...], pair_used: bool) -> bool:
    x = 0
    while x < 20 and not vec[x]:
        x += 1
    if x == 20:
        return True
    v = list(vec)
    n = v[x]
    r = x % 10 + 1
    # Every group holding x, with x as its lowest card (lower cards are all used up).
    tries: list[tuple[int, ...]] = []
    if n >= 3:
        tries.append((x, x, x))
    if r <= 8 and v[x + 1] and v[x + 2]:
        tries.append((x, x + 1, x + 2))
    if r == 2 and v[x + 5] and v[x + 8]:
        tries.append((x, x + 5, x + 8))
    if x < 10 and v[x + 10]:
        if n >= 2:
            tries.append((x, x, x + 10))
        if v[x + 10] >= 2:
            tries.append((x, x + 10, x + 10))
    for group in tries:
        for c in group:
            v[c] -= 1
        if _splits(tuple(v), pair_used):
            return True
        for c in group:
            v[c] += 1
    if n >= 2 and not pair_used:
        v[x] -= 2
        if _splits(tuple(v), True):
            return True
    return False
