"""胡息 of a group (RULES.md §4.1, and luzhou's own table of §10).

``group_huxi(rs, group)`` is the public entry point. The hot loops of the scorer use
``sentence_weights`` (the 胡息 of each sentence pattern per case) and ``same_huxi`` (the 胡息 of a
3- or 4-of-a-kind kind per card), both cached per table.

>>> from apps.engine.rules import PRESETS
>>> group_huxi(PRESETS["full"], Group("ti", (19, 19, 19, 19)))
12
>>> group_huxi(PRESETS["changsha"], Group("sentence", (0, 1, 2)))
0
"""

from __future__ import annotations

from functools import lru_cache

from ..cards import IS_RED
from ..groups import Group
from ..rules import RuleSet

# Sentence patterns within one case, as rank offsets 0..9: starts 0..7 are consecutive, 8 is 二七十.
SENTENCE_PATTERNS: tuple[tuple[int, int, int], ...] = tuple((r, r + 1, r + 2) for r in range(8)) + ((1, 6, 9),)
PATTERN_YI_ER_SAN = 0
PATTERN_ER_QI_SHI = 8

# Standard table (§4.1): (small, big) per same-card kind.
_STANDARD_SAME = {"ti": (9, 12), "pao": (6, 9), "wei": (3, 6), "chou_wei": (3, 6), "kan": (3, 6), "peng": (1, 3)}
# luzhou (§10): 碰 1/3 (red 6/9); 坎/偎 6/9 (red 9/12); 跑 = 坎 + 3; 提 = 跑 + 3.
_LUZHOU_PENG = {False: (1, 3), True: (6, 9)}
_LUZHOU_KAN = {False: (6, 9), True: (9, 12)}
_LUZHOU_EXTRA = {"wei": 0, "chou_wei": 0, "kan": 0, "pao": 3, "ti": 6}


def table_key(rs: RuleSet) -> tuple[bool, bool]:
    """What the 胡息 of a group depends on: (luzhou table?, 一二三 scores?)."""
    return (rs.huxi_table == "luzhou", rs.yi_er_san_huxi)


@lru_cache(maxsize=256)
def same_huxi(key: tuple[bool, bool], kind: str, card: int) -> int:
    """胡息 of a 3/4-of-a-kind group (ti, pao, wei, chou_wei, kan, peng) of ``card``."""
    big = card >= 10
    if key[0]:
        red = IS_RED[card]
        if kind == "peng":
            return _LUZHOU_PENG[red][big]
        return _LUZHOU_KAN[red][big] + _LUZHOU_EXTRA[kind]
    return _STANDARD_SAME[kind][big]


@lru_cache(maxsize=256)
def sentence_weights(key: tuple[bool, bool]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """胡息 of each of the 9 sentence patterns, for the small case and the big case."""
    luzhou, yi_er_san = key
    small = [0] * 9
    big = [0] * 9
    if yi_er_san:
        small[PATTERN_YI_ER_SAN], big[PATTERN_YI_ER_SAN] = 3, 6
    small[PATTERN_ER_QI_SHI], big[PATTERN_ER_QI_SHI] = (6, 9) if luzhou else (3, 6)
    return tuple(small), tuple(big)


@lru_cache(maxsize=4096)
def _huxi(key: tuple[bool, bool], kind: str, cards: tuple[int, ...]) -> int:
    if kind in _STANDARD_SAME:
        return same_huxi(key, kind, cards[0])
    if kind in ("sentence", "chi") and len(cards) == 3:
        small, big = sentence_weights(key)
        weights = big if cards[0] >= 10 else small
        base = 10 if cards[0] >= 10 else 0
        ranks = tuple(c - base for c in cards)
        if ranks in SENTENCE_PATTERNS:
            return weights[SENTENCE_PATTERNS.index(ranks)]
    return 0  # jiao, jiang, leftover cards


def group_huxi(rs: RuleSet, group: Group) -> int:
    """胡息 of one group under the ruleset's table (§4.1 or luzhou's, §10)."""
    return _huxi(table_key(rs), group.kind, group.cards)


def group_huxi_by_key(key: tuple[bool, bool], kind: str, cards: tuple[int, ...]) -> int:
    """``group_huxi`` for callers that already hold ``table_key(rs)`` (hot paths)."""
    return _huxi(key, kind, cards)


def tun_of(rs: RuleSet, huxi: int) -> int:
    """§9.1 胡息 → tun (the one statement of it): 3xi1tun ``floor((huxi - m) / 3) + 1`` with
    m = min_huxi, 1xi1tun ``huxi``; never below 1. The fast path reads it from ``RuleContext.tun``.

    >>> from apps.engine.rules import PRESETS
    >>> [tun_of(PRESETS["full"], h) for h in (15, 17, 18, 21)]
    [1, 1, 2, 3]
    """
    if rs.tun_mode == "1xi1tun":
        return max(1, huxi)
    return max(1, (huxi - rs.min_huxi) // 3 + 1)


def current_huxi(rs: RuleSet, hand: list[int], groups: list[Group]) -> int:
    """A player's **current best 胡息** (RULES.md §8.6, the 逃跑 penalty): his laid groups plus the
    best grouping of his hand cards into groups of §4.1 — a 坎 whole (four of a kind, held only
    before the opening 提, counts as 提), the rest into sentences and 绞 where they score (一二三,
    二七十), cards left over scoring 0; no complete hand, no pair, no multiplier.

    ``hand``: the 20 per-kind counts of his hidden cards.

    >>> from apps.engine.rules import PRESETS
    >>> hand = [0] * 20
    >>> for c in (0, 1, 1, 2, 6, 9, 15, 15, 15):   # s1 s2 s2 s3 s7 s10, a 坎 of b6
    ...     hand[c] += 1
    >>> current_huxi(PRESETS["full"], hand, [Group("peng", (13, 13, 13))])   # 3 + 6 + 3 + 3
    15
    """
    key = table_key(rs)
    total = sum(_huxi(key, g.kind, g.cards) for g in groups)
    small_w, big_w = sentence_weights(key)
    for base, weights in ((0, small_w), (10, big_w)):
        free = []
        for r in range(10):
            n = hand[base + r]
            if n >= 3:
                total += same_huxi(key, "ti" if n == 4 else "kan", base + r)
                n = 0
            free.append(n)
        one = weights[PATTERN_YI_ER_SAN]  # s1 s2 s3 (b1 b2 b3)
        two = weights[PATTERN_ER_QI_SHI]  # s2 s7 s10 (b2 b7 b10)
        best = 0
        for a in range(min(free[0], free[1], free[2]) + 1):
            b = min(free[1] - a, free[6], free[9])
            best = max(best, a * one + b * two)
        total += best
    return total
