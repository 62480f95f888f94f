"""The scorer's tables: per-ruleset values (``RuleContext``, cached by ``rule_context``) and the
static packed tables of laid groups and 胡息 (``LAID``, built at import), used by ``scoring`` (the
fast path) and ``reference``.
"""

from __future__ import annotations

import time
from functools import lru_cache

from ..cards import IS_RED
from ..rules import RuleSet
from .decompose import code_values
from .huxi import SENTENCE_PATTERNS, group_huxi_by_key, same_huxi, sentence_weights, table_key, tun_of
from .mingtang import fan_key
from .winning_card import WIN_BY, is_zimo

GroupT = tuple[str, tuple[int, ...]]
TUN_TABLE_SIZE = 512
_SAME_KINDS = ("ti", "pao", "wei", "chou_wei", "kan", "peng")


class RuleContext:
    """Per-ruleset values the scorer needs in its hot loops (cached by ruleset identity)."""

    __slots__ = (
        "rs", "key", "weights", "groups_to_win", "huxi", "value_cache", "every_split",
        "w4", "same", "fan_cache", "laid", "tun", "call_keys", "kai_di",
        "laid_huxi", "vs", "vb", "kan_rev", "ti_rev", "win_min",
    )

    def __init__(self, rs: RuleSet) -> None:
        self.rs = rs
        self.key = table_key(rs)
        self.weights = sentence_weights(self.key)
        self.groups_to_win = rs.groups_to_win
        self.win_min = rs.win_min_huxi  # max(min_huxi, qi_hu): the plain 胡息 a win needs (§8.1, §9.6)
        self.huxi: dict[GroupT, int] | None = None  # ``_huxi_table``, on first use (not the fast path)
        self.value_cache: dict[tuple, tuple] = {}
        # 比 and 双飘 (changsha) look at the whole decomposition, 毛胡 at 0-胡息 ones: try every split.
        self.every_split = rs.mingtang == "changsha" or rs.mao_hu
        # Fast path (fast.py): 胡息 of 一二三 / 二七十 per case, of same-card groups per (kind, card),
        # the fans per ``mingtang.fan_key`` and what a laid (kind, cards) group contributes (packed,
        # ``LAID_*`` below).
        small, big = self.weights
        self.w4 = (small[0], small[8], big[0], big[8])
        self.vs, self.vb = _code_values(self.key)  # 胡息 by decompose.SENT_CODE/PAIR_CODE, per case
        self.same = _same_table(self.key)
        self.laid = LAID
        self.laid_huxi = LAID_HUXI + 8 * _KEY_LANE[self.key]  # where this table's 胡息 is in ``LAID``
        self.fan_cache: dict[tuple, tuple] = {}
        # ``huxi.tun_of`` by 胡息 (× the 天胡 multiplier): the fast path's 胡息 is at most 7 groups × 12,
        # × 4 at most (quanmin's 天胡), or 毛胡's 15 × 4, all below TUN_TABLE_SIZE.
        self.tun = tuple([tun_of(rs, x) for x in range(TUN_TABLE_SIZE)])
        # 胡息 of the 坎 (提) of a set of cards (a 1 at bit 8c for card c): ``(ones * kan_rev) >> 152
        # & 0xFF``, the coefficient of 256**19 in the product (no carry: 7 groups of at most 18).
        self.kan_rev, self.ti_rev = _reversed_same(self.key)
        # Per (win_by, dealer): the part of ``mingtang.fan_key`` fixed by them, and the 自摸 +1 tun.
        self.call_keys = _call_keys(rs)
        self.kai_di = rs.kai_di_you_xi

    def huxi_of(self, kind: str, cards: tuple[int, ...]) -> int:
        if self.huxi is None:
            self.huxi = _huxi_table(self.key)
        h = self.huxi.get((kind, cards))
        return group_huxi_by_key(self.key, kind, cards) if h is None else h


def _call_keys(rs: RuleSet) -> dict[str, tuple[tuple[str, bool, bool, int], ...]]:
    """``RuleContext.call_keys``: by win_by, then dealer, the fields of ``mingtang.fan_key`` fixed by
    them (win_by, dealer, zimo) and the 自摸 +1 tun (``zimo = "+1tun"``)."""
    plus_one = rs.zimo == "+1tun"
    return {
        wb: tuple(fan_key(rs, 0, 0, 0, wb, d, False, None, False)[3:6] + (int(plus_one and is_zimo(wb, d)),)
                  for d in (False, True))
        for wb in WIN_BY
    }


@lru_cache(maxsize=8)
def _reversed_same(key: tuple[bool, bool]) -> tuple[int, int]:
    """``RuleContext.kan_rev`` and ``ti_rev`` of a 胡息 table."""
    same = _same_table(key)
    return tuple(sum(same[kind][c] << (8 * (19 - c)) for c in range(20)) for kind in ("kan", "ti"))


@lru_cache(maxsize=8)
def _code_values(key: tuple[bool, bool]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    small, big = sentence_weights(key)
    return code_values(small[0], small[8]), code_values(big[0], big[8])


# Packed cards (fast.py): 8 bits per card kind, kind c at bit 8c.
ENC = tuple(1 << (8 * c) for c in range(20))
RED_FIELDS = sum(0xFF << (8 * c) for c in range(20) if IS_RED[c])
ONES20 = sum(1 << (8 * c) for c in range(20))  # (v * ONES20) >> 152 & 0xFF: the cards in v


def packed_counts(h: int) -> tuple[int, int]:
    """(red cards, big cards) of packed cards."""
    return ((h & RED_FIELDS) * ONES20 >> 152) & 0xFF, ((h >> 80) * ONES20 >> 72) & 0xFF

# A laid group packed into one int (``LAID``); the ints of a player's laid groups are summed:
# bit WEI_BIT + c is a 偎/臭偎 of c, bit PENG_BIT + c a 碰 of c (a card has at most one of them),
# 8 bits each at LAID_FOUR (4-card groups) and LAID_CHI (吃), the 胡息 under each of the four 胡息
# tables (``huxi.table_key``) in 8 bits from LAID_HUXI on (``RuleContext.laid_huxi`` says which),
# and the counts of red, big and all cards in 8 bits each from LAID_COUNTS on.
WEI_BIT, PENG_BIT, LAID_FOUR, LAID_CHI, LAID_HUXI, LAID_COUNTS = 0, 20, 40, 48, 56, 88
LAID_FOUR_MASK = 0xFF << LAID_FOUR
LAID_CHI_MASK = 0xFF << LAID_CHI
TABLE_KEYS = ((False, False), (False, True), (True, False), (True, True))
_KEY_LANE = {key: i for i, key in enumerate(TABLE_KEYS)}


def laid_bits(kind: str, cards: tuple[int, ...]) -> int:
    """The packed laid group without its 胡息 (which depends on the 胡息 table)."""
    bits = (kind == "ti" or kind == "pao") << LAID_FOUR | (kind == "chi") << LAID_CHI
    if kind in ("wei", "chou_wei"):
        bits |= 1 << (WEI_BIT + cards[0])
    elif kind == "peng":
        bits |= 1 << (PENG_BIT + cards[0])
    red, big = sum(IS_RED[c] for c in cards), sum(c >= 10 for c in cards)
    return bits | (red | big << 8 | len(cards) << 16) << LAID_COUNTS


def piao_bits(kind: str, cards: tuple[int, ...]) -> int:
    """What 比 and 双飘 (changsha) need of one laid group, packed: 1 if its cards are all red, then
    the sentence it is by pattern id (4 bits per id, ``huxi.SENTENCE_PATTERNS``), in the small case
    from bit 8 on (``PIAO_NIBBLES``), in the big case from bit 48 on."""
    packed = 1 if all(IS_RED[c] for c in cards) else 0
    if kind == "chi" and cards[0] != cards[1] and cards[1] != cards[2]:
        base = cards[0] // 10 * 10
        ranks = (cards[0] - base, cards[1] - base, cards[2] - base)
        pid = 8 if ranks == (1, 6, 9) else ranks[0]
        packed |= 1 << (4 * pid + (48 if base else 8))
    return packed


PIAO_NIBBLES = (1 << 36) - 1


def _laid_groups() -> list[tuple[GroupT, int]]:
    """Every well-formed laid group with its packed form (胡息 left out)."""
    groups: list[GroupT] = []
    for c in range(20):
        groups += [("ti", (c,) * 4), ("pao", (c,) * 4), ("wei", (c,) * 3), ("chou_wei", (c,) * 3), ("peng", (c,) * 3)]
    for base in (0, 10):
        groups += [("chi", tuple(base + x for x in p)) for p in SENTENCE_PATTERNS]
    for r in range(10):
        groups += [("chi", (r, r, r + 10)), ("chi", (r, r + 10, r + 10))]
    return [((k, c), laid_bits(k, c)) for k, c in groups]


_SAME_SIZE = {"ti": 4, "pao": 4, "wei": 3, "chou_wei": 3, "kan": 3, "peng": 3}


@lru_cache(maxsize=8)
def _same_table(key: tuple[bool, bool]) -> dict[str, tuple[int, ...]]:
    """胡息 of same-card groups by kind and card (``huxi.same_huxi``, without its cache per call)."""
    same = same_huxi.__wrapped__
    return {kind: tuple([same(key, kind, c) for c in range(20)]) for kind in _SAME_KINDS}


@lru_cache(maxsize=8)
def _huxi_table(key: tuple[bool, bool]) -> dict[GroupT, int]:
    """胡息 of every possible group (a few hundred), so hot loops do one dict lookup. The same values
    as ``huxi.group_huxi_by_key`` (tests compare them), built from its two tables directly."""
    table: dict[GroupT, int] = {}
    for kind, values in _same_table(key).items():
        size = _SAME_SIZE[kind]
        for c in range(20):
            table[(kind, (c,) * size)] = values[c]
    for c in range(20):
        table[("jiang", (c, c))] = 0
    for base, weights in zip((0, 10), sentence_weights(key), strict=True):
        for pattern, value in zip(SENTENCE_PATTERNS, weights, strict=True):
            cards = (base + pattern[0], base + pattern[1], base + pattern[2])
            table[("sentence", cards)] = table[("chi", cards)] = value
    for r in range(10):
        for cards in ((r, r, r + 10), (r, r + 10, r + 10)):
            table[("jiao", cards)] = table[("chi", cards)] = 0
    return table


def _laid_table() -> dict[GroupT, int]:
    """``LAID``: every well-formed laid group, packed (built at import, timed in ``BUILD_SECONDS``).
    The 胡息 are those of ``_huxi_table`` (tests compare them), taken from its two sources."""
    lanes = [(LAID_HUXI + 8 * lane, _same_table(key), sentence_weights(key)) for lane, key in enumerate(TABLE_KEYS)]
    out = {}
    for (kind, cards), bits in _laid_groups():
        if kind != "chi":
            for shift, same, _ in lanes:
                bits |= same[kind][cards[0]] << shift
        elif cards[0] != cards[1] and cards[1] != cards[2]:  # a sentence (a 绞 scores 0)
            base = 10 if cards[0] >= 10 else 0
            pattern = SENTENCE_PATTERNS.index((cards[0] - base, cards[1] - base, cards[2] - base))
            for shift, _, weights in lanes:
                bits |= weights[base == 10][pattern] << shift
        out[(kind, cards)] = bits
    return out


_start = time.perf_counter()
LAID = _laid_table()
LAID_BY_KIND: dict[str, dict[tuple[int, ...], int]] = {}  # LAID as kind → cards → packed (hot loops)
PIAO_BY_KIND: dict[str, dict[tuple[int, ...], int]] = {}  # ``piao_bits`` of every laid group, the same way
for (_kind, _cards), _packed in LAID.items():
    LAID_BY_KIND.setdefault(_kind, {})[_cards] = _packed
    PIAO_BY_KIND.setdefault(_kind, {})[_cards] = piao_bits(_kind, _cards)
BUILD_SECONDS = time.perf_counter() - _start


CONTEXTS_BY_ID: dict[int, tuple[RuleSet, RuleContext]] = {}  # id(rs) -> (rs, context); the fast path reads it inline
_BY_VALUE: dict[RuleSet, RuleContext] = {}


def rule_context(rs: RuleSet) -> RuleContext:
    """The shared ``RuleContext`` of a ruleset: by identity first (RuleSet hashing is slow), then
    by value, so equal rulesets (one per hand, one per CLI request) share their caches."""
    hit = CONTEXTS_BY_ID.get(id(rs))
    if hit is not None and hit[0] is rs:
        return hit[1]
    rc = _BY_VALUE.get(rs)
    if rc is None:
        if len(_BY_VALUE) > 64:
            _BY_VALUE.clear()
        rc = _BY_VALUE[rs] = RuleContext(rs)
    if len(CONTEXTS_BY_ID) > 1024:
        CONTEXTS_BY_ID.clear()
    CONTEXTS_BY_ID[id(rs)] = (rs, rc)  # keeps rs alive, so its id is not reused while cached
    return rc
