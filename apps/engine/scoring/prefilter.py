"""A cheap necessary condition for a win, checked before the scorer's ``can_win`` (speed only).

``may_complete(hand, card)``: the hidden hand plus the card splits into 3-card groups (three of a
kind, sentences, 二七十, 绞) and at most one pair, ignoring 胡息 and whether a 坎 stays whole. Every
complete hand in which the card joins a hand group passes; most hands fail within a few steps.

The search runs on the hand packed into one int (8 bits per card kind, card ``c`` at bit ``8c``):
hashing and subtracting ints is much cheaper than building tuples.
"""

from __future__ import annotations

from functools import lru_cache

from ..chi import PARTNERS

# _OTHERS[c]: the pairs of other cards that form a group with c (a sentence, 二七十, or the 绞 c O O).
_OTHERS = tuple(tuple(p for p in PARTNERS[c] if c not in p) for c in range(20))
# UNIT[c]: one card c in the packed form.
UNIT: tuple[int, ...] = tuple(1 << (8 * c) for c in range(20))


def pack(hand) -> int:
    """The packed form of a 20-count vector."""
    return int.from_bytes(bytes(hand), "little")


def may_complete(hand: tuple[int, ...], card: int) -> bool:
    """Whether ``hand`` (20 counts) plus ``card`` could split into groups and at most one pair.

    >>> from apps.engine.cards import counts_of, parse_card as p
    >>> may_complete(tuple(counts_of([p("s1"), p("s2")])), p("s3"))
    True
    >>> may_complete(tuple(counts_of([p("s1"), p("s5")])), p("s3"))
    False
    """
    if not hand[card]:  # the card must join a group: two partners of it must be in the hand
        for a, b in _OTHERS[card]:
            if hand[a] and hand[b] and (a != b or hand[a] >= 2):
                break
        else:
            return False
    if (sum(hand) + 1) % 3 == 1:  # groups of 3 plus at most one pair
        return False
    return _splits(int.from_bytes(bytes(hand), "little") + UNIT[card], False)


def _groups_of(x: int) -> tuple[tuple[int, int, int, int, int], ...]:
    """For the lowest card ``x``: (needed count of x, other card a, need a, other b, need b, packed)
    of every group holding x as its lowest card, as (packed group, x needed, a, a needed, b)."""
    out = []
    r = x % 10 + 1
    u = UNIT
    out.append((u[x] * 3, 3, x, 0, x))  # three of a kind
    if r <= 8:
        out.append((u[x] + u[x + 1] + u[x + 2], 1, x + 1, 1, x + 2))
    if r == 2:
        out.append((u[x] + u[x + 5] + u[x + 8], 1, x + 5, 1, x + 8))
    if x < 10:
        out.append((u[x] * 2 + u[x + 10], 2, x + 10, 1, x + 10))
        out.append((u[x] + u[x + 10] * 2, 1, x + 10, 2, x + 10))
    return tuple(out)


_GROUPS = tuple(_groups_of(x) for x in range(20))


@lru_cache(maxsize=1 << 17)
def _splits(h: int, pair_used: bool) -> bool:
    if not h:
        return True
    x = ((h & -h).bit_length() - 1) >> 3
    n = (h >> (8 * x)) & 0xFF
    for packed, need_x, a, need_a, b in _GROUPS[x]:
        if n < need_x:
            continue
        if a != x and ((h >> (8 * a)) & 0xFF) < need_a:
            continue
        if b != x and b != a and not (h >> (8 * b)) & 0xFF:
            continue
        if _splits(h - packed, pair_used):
            return True
    if n >= 2 and not pair_used:
        return _splits(h - 2 * UNIT[x], True)
    return False
