"""The role of the winning card (RULES.md §8.2) and the fixed part of a winning hand.

``variants`` turns (hidden hand, laid groups, winning card, where it came from) into the ways the
cards can be counted: the laid groups (one possibly upgraded: 偎→提/跑, 碰→跑), the group the
winning card formed by a forced action (偎, 提, 跑), the 坎 (and, at a reveal or natural win, four of
a kind) held in hand, and the free cards left for sentences, 绞 and the 将. There are two variants
only when another player's card meets a pair in hand: used whole it is a 碰, or the three cards are
free (§8.2, §11.3).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from .cards import IS_RED
from .decompose import ADD_GE3, B7, FIELD, code_values
from .huxi import SENTENCE_PATTERNS, group_huxi_by_key, same_huxi, sentence_weights, table_key
from .rules import RuleSet

GroupT = tuple[str, tuple[int, ...]]
_SAME_KINDS = ("ti", "pao", "wei", "chou_wei", "kan", "peng")


class RuleContext:
    """Per-ruleset values the scorer needs in its hot loops (cached by ruleset identity)."""

    __slots__ = (
        "rs", "key", "weights", "groups_to_win", "huxi", "value_cache", "every_split",
        "w4", "same", "fan_cache", "laid", "one_xi_one_tun", "zimo_tun", "call_keys", "kai_di",
        "split_path", "laid_huxi", "vs", "vb", "kan_rev", "ti_rev",
    )

    def __init__(self, rs: RuleSet) -> None:
        self.rs = rs
        self.key = table_key(rs)
        self.weights = sentence_weights(self.key)
        self.groups_to_win = rs.groups_to_win
        self.huxi: dict[GroupT, int] | None = None  # ``_huxi_table``, on first use (not the fast path)
        self.value_cache: dict[tuple, tuple] = {}
        # 比 and 双飘 (changsha) look at the whole decomposition, 毛胡 at 0-胡息 ones: try every split.
        self.every_split = rs.mingtang == "changsha" or rs.mao_hu
        # Fast path (scoring.py): 胡息 of 一二三 / 二七十 per case, of same-card groups per (kind, card),
        # the fans per ``mingtang.fan_key`` and what a laid (kind, cards) group contributes (packed,
        # ``LAID_*`` below).
        small, big = self.weights
        self.w4 = (small[0], small[8], big[0], big[8])
        self.vs, self.vb = _code_values(self.key)  # 胡息 by decompose.SENT_CODE/PAIR_CODE, per case
        self.same = _same_table(self.key)
        self.laid = LAID
        self.laid_huxi = LAID_HUXI + 8 * _KEY_LANE[self.key]  # where this table's 胡息 is in ``LAID``
        self.fan_cache: dict[tuple, tuple] = {}
        self.one_xi_one_tun = rs.tun_mode == "1xi1tun"
        self.zimo_tun = rs.zimo == "+1tun"
        # 胡息 of the 坎 (提) of a set of cards (a 1 at bit 8c for card c): ``(ones * kan_rev) >> 152
        # & 0xFF``, the coefficient of 256**19 in the product (no carry: 7 groups of at most 18).
        self.kan_rev, self.ti_rev = _reversed_same(self.key)
        # Where the scorer must look at every split: ``scoring._score_split``.
        self.split_path = self.every_split
        # Per (win_by, dealer): the part of ``mingtang.fan_key`` fixed by them, and the 自摸 +1 tun.
        self.call_keys = _call_keys(rs.zimo)
        self.kai_di = rs.kai_di_you_xi

    def huxi_of(self, kind: str, cards: tuple[int, ...]) -> int:
        if self.huxi is None:
            self.huxi = _huxi_table(self.key)
        h = self.huxi.get((kind, cards))
        return group_huxi_by_key(self.key, kind, cards) if h is None else h


def _call_key(rs_zimo: str, win_by: str, dealer: bool) -> tuple[str, bool, bool, int]:
    """(win_by, dealer, zimo fields of ``mingtang.fan_key``, 自摸 +1 tun) for one (win_by, dealer),
    under the ruleset's ``zimo`` option."""
    zimo = win_by in ("self_draw", "natural") or (win_by == "reveal" and dealer)
    return (
        "other_draw" if win_by == "self_draw" else win_by,
        dealer and (win_by == "reveal" or win_by == "natural"),
        zimo and rs_zimo == "fan",
        int(rs_zimo == "+1tun" and (win_by == "self_draw" or (win_by == "reveal" and dealer))),
    )


@lru_cache(maxsize=8)
def _call_keys(rs_zimo: str) -> dict[str, dict[bool, tuple[str, bool, bool, int]]]:
    """``RuleContext.call_keys``: ``_call_key`` by win_by and dealer (shared, never changed)."""
    return {
        wb: {d: _call_key(rs_zimo, wb, d) for d in (False, True)}
        for wb in ("self_draw", "other_draw", "discard", "reveal", "natural")
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


# Packed cards (scoring.py's fast path): 8 bits per card kind, kind c at bit 8c.
ENC = tuple(1 << (8 * c) for c in range(20))
RED_FIELDS = sum(0xFF << (8 * c) for c in range(20) if IS_RED[c])
ONES20 = sum(1 << (8 * c) for c in range(20))  # (v * ONES20) >> 152 & 0xFF: the cards in v


def packed_counts(h: int) -> tuple[int, int]:
    """(red cards, big cards) of packed cards."""
    return ((h & RED_FIELDS) * ONES20 >> 152) & 0xFF, ((h >> 80) * ONES20 >> 72) & 0xFF

# A laid group packed into one int (``LAID``); the ints of a player's laid groups are summed:
# bit LAID_WEI + c is a 偎/臭偎 of c, bit LAID_PENG + c a 碰 of c (a card has at most one of them),
# 8 bits each at LAID_FOUR (4-card groups) and LAID_CHI (吃), the 胡息 under each of the four 胡息
# tables (``huxi.table_key``) in 8 bits from LAID_HUXI on (``RuleContext.laid_huxi`` says which),
# and the counts of red, big and all cards in 8 bits each from LAID_COUNTS on.
LAID_WEI, LAID_PENG, LAID_FOUR, LAID_CHI, LAID_HUXI, LAID_COUNTS = 0, 20, 40, 48, 56, 88
LAID_FOUR_MASK = 0xFF << LAID_FOUR
LAID_CHI_MASK = 0xFF << LAID_CHI
TABLE_KEYS = ((False, False), (False, True), (True, False), (True, True))
_KEY_LANE = {key: i for i, key in enumerate(TABLE_KEYS)}


def laid_bits(kind: str, cards: tuple[int, ...]) -> int:
    """The packed laid group without its 胡息 (which depends on the 胡息 table)."""
    bits = (kind == "ti" or kind == "pao") << LAID_FOUR | (kind == "chi") << LAID_CHI
    if kind in ("wei", "chou_wei"):
        bits |= 1 << (LAID_WEI + cards[0])
    elif kind == "peng":
        bits |= 1 << (LAID_PENG + cards[0])
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


_BY_ID: dict[int, tuple[RuleSet, RuleContext]] = {}
_BY_VALUE: dict[RuleSet, RuleContext] = {}


def rule_context(rs: RuleSet) -> RuleContext:
    """The shared ``RuleContext`` of a ruleset: by identity first (RuleSet hashing is slow), then
    by value, so equal rulesets (one per hand, one per CLI request) share their caches."""
    hit = _BY_ID.get(id(rs))
    if hit is not None and hit[0] is rs:
        return hit[1]
    rc = _BY_VALUE.get(rs)
    if rc is None:
        if len(_BY_VALUE) > 64:
            _BY_VALUE.clear()
        rc = _BY_VALUE[rs] = RuleContext(rs)
    if len(_BY_ID) > 1024:
        _BY_ID.clear()
    _BY_ID[id(rs)] = (rs, rc)  # keeps rs alive, so its id is not reused while cached
    return rc


class Variant(NamedTuple):
    """One way of counting the winning card: fixed groups plus free cards."""

    laid: tuple[GroupT, ...]  # laid groups after any upgrade, in their order
    formed: GroupT | None  # the group the winning card formed from hand cards (偎, 提, 跑, 碰)
    hand_groups: tuple[GroupT, ...]  # 坎 (and four of a kind at a reveal/natural win) in hand
    free: tuple[int, ...]  # 20 counts
    need_jiang: bool
    fixed_huxi: int

    def table_groups(self) -> list[GroupT]:
        return list(self.laid) + ([self.formed] if self.formed else [])

    def fixed_groups(self) -> list[GroupT]:
        return self.table_groups() + list(self.hand_groups)


def make_variant(
    rc: RuleContext, laid: Sequence[GroupT], formed: GroupT | None, hand_groups: Sequence[GroupT], free: tuple[int, ...]
) -> Variant:
    groups = list(laid) + list(hand_groups) + ([formed] if formed else [])
    need_jiang = any(k == "ti" or k == "pao" for k, _ in groups)
    huxi = rc.huxi_of
    return Variant(tuple(laid), formed, tuple(hand_groups), free, need_jiang, sum(huxi(k, c) for k, c in groups))


def _upgrade(laid: list[GroupT], card: int, kinds: tuple[str, ...], to: str) -> bool:
    """Upgrade the laid group of ``card`` whose kind is in ``kinds`` (偎→提/跑, 碰→跑)."""
    for i, (kind, cards) in enumerate(laid):
        if cards[0] == card and kind in kinds:
            laid[i] = (to, (card,) * 4)
            return True
    return False


def _laid_same(laid: Sequence[GroupT], card: int) -> bool:
    """Whether a laid 偎/臭偎/碰 of ``card`` exists (the only groups a card can upgrade)."""
    return any(cards[0] == card and kind in _UPGRADABLE for kind, cards in laid)


_UPGRADABLE = frozenset({"wei", "chou_wei", "peng"})
_WEI = ("wei", "chou_wei")
_PENG = ("peng",)


def variants(
    rc: RuleContext, counts: list[int], laid: list[GroupT], card: int | None, win_by: str, dealer: bool
) -> list[Variant]:
    """The ways the winning card counts (§8.2), keeping only those with the right number of groups.

    ``counts`` (the hidden hand) and ``laid`` are copied, never changed.
    """
    counts = list(counts)
    own = win_by == "self_draw"
    held = counts[card] if card is not None else 0
    formed: GroupT | None = None
    shapes = None
    if card is None:
        pass
    elif win_by == "reveal" and dealer:
        counts[card] += 1  # one of the dealer's dealt cards: a pair becomes a 坎, a 坎 a 提
    elif held == 3:
        counts[card] = 0
        formed = ("ti" if own else "pao", (card,) * 4)
    elif held < 2 and _laid_same(laid, card):
        laid = list(laid)
        if not _upgrade(laid, card, _WEI, "ti" if own else "pao"):
            if win_by == "discard" or not _upgrade(laid, card, _PENG, "pao"):
                counts[card] += 1  # a discard never upgrades a 碰 (§5.5): the card joins the hand
    elif held == 2 and own:  # own draw onto a pair: 偎
        counts[card] = 0
        formed = ("wei", (card,) * 3)
    elif held == 2:  # another player's card onto a pair: a 碰, or three free cards (§8.2)
        whole = list(counts)
        whole[card] = 0
        counts[card] = 3
        shapes = ((laid, ("peng", (card,) * 3), whole, -1), (laid, None, counts, card))
    else:
        counts[card] += 1
    if shapes is None:
        shapes = ((laid, formed, counts, -1),)
    out = []
    for laid_v, formed_v, cnt, free_c in shapes:
        hand_groups = []
        if max(cnt) >= 3:
            cnt = list(cnt)
            for c in range(20):
                n = cnt[c]
                if n >= 3 and c != free_c:
                    hand_groups.append(("kan" if n == 3 else "ti", (c,) * n))
                    cnt[c] = 0
        v = make_variant(rc, laid_v, formed_v, hand_groups, tuple(cnt))
        n_free = sum(cnt) - (2 if v.need_jiang else 0)
        if n_free < 0 or n_free % 3:
            continue
        n_groups = len(laid_v) + (formed_v is not None) + len(hand_groups) + n_free // 3 + v.need_jiang
        if n_groups == rc.groups_to_win:
            out.append(v)
    return out


def total_cards(hand: Sequence[int], laid: Sequence[GroupT], card: int | None) -> list[int]:
    """Every card of the winner (hand, laid groups, winning card)."""
    return list(hand) + [c for _, cards in laid for c in cards] + ([card] if card is not None else [])


# ---- packed fast path (scoring.py) ----------------------------------------------------------

_GE3 = ADD_GE3 | (ADD_GE3 << 80)  # field + this has its top bit set iff field >= 3 (20 fields)
_GE4 = sum(0x7C << (FIELD * c) for c in range(20))  # field + this has its top bit set iff field >= 4
_TOP = B7 | (B7 << 80)
_RED_TOP = sum(0x80 << (FIELD * c) for c in range(20) if IS_RED[c])  # the top bit of each red card's field


def packed_variants(rc: RuleContext, h: int, n: int, lp: int, n_laid: int, card: int, win_by: str, dealer: bool) -> list:
    """The ways the winning card counts (§8.2, as ``winning.variants``) with the right group count:
    (fixed 胡息, free counts packed, 将 needed, all-red groups among the formed group and the 坎,
    number of free cards besides the 将). ``h``: the hand packed (``ENC``), ``n`` cards; ``lp``: the
    laid groups packed (``LAID``)."""
    same = rc.same
    sh = FIELD * card
    wb = 1 << sh
    held = (h >> sh) & 0xFF
    fixed = (lp >> rc.laid_huxi) & 0xFF
    four = 1 if lp & LAID_FOUR_MASK else 0
    keep = formed = 0
    if win_by == "reveal" and dealer:
        h += wb
        n += 1
    elif held == 3:
        fixed += same["ti" if win_by == "self_draw" else "pao"][card]
        h -= 3 * wb
        n -= 3
        four = formed = 1
    elif held < 2 and (lp >> (LAID_WEI + card)) & 1:
        fixed += same["ti" if win_by == "self_draw" else "pao"][card] - same["wei"][card]
        four = 1
    elif held < 2 and (lp >> (LAID_PENG + card)) & 1 and win_by != "discard":
        fixed += same["pao"][card] - same["peng"][card]
        four = 1
    elif held == 2 and win_by == "self_draw":
        fixed += same["wei"][card]
        h -= 2 * wb
        n -= 2
        formed = 1
    elif held == 2:  # another player's card onto a pair: a 碰, or three free cards
        out = packed_shape(rc, fixed + same["peng"][card], h - 2 * wb, n - 2, n_laid + 1, four, 0, IS_RED[card])
        free = packed_shape(rc, fixed, h + wb, n + 1, n_laid, four, 0xFF << sh, 0)
        return out + free
    else:
        h += wb
        n += 1
    if (h + _GE3) & _TOP:
        return packed_shape(rc, fixed, h, n, n_laid + formed, four, keep, formed and IS_RED[card])
    nf = n - 2 * four  # no 坎: the common case, inline
    if nf >= 0 and nf % 3 == 0 and n_laid + formed + nf // 3 + four == rc.groups_to_win:
        return [(fixed, h, four, formed and IS_RED[card], nf)]
    return []


def packed_shape(rc: RuleContext, fx: int, h: int, n: int, groups: int, need: int, keep: int, red_groups: int) -> list:
    """Set the 坎 (and four of a kind held) aside, all at once; check the number of groups (§8.1)."""
    k = ((h + _GE3) & _TOP) & ~keep
    if k:
        k4 = (h + _GE4) & k  # four of a kind held (reveal and natural wins only)
        ones = k >> 7
        held = k.bit_count()
        if k4:
            fours = k4 >> 7
            n4 = k4.bit_count()
            fx += (((ones - fours) * rc.kan_rev) >> 152 & 0xFF) + ((fours * rc.ti_rev) >> 152 & 0xFF)
            h -= ones * 3 + fours
            n -= 3 * held + n4
            need = 1
        else:
            fx += ((ones * rc.kan_rev) >> 152) & 0xFF
            h -= ones * 3
            n -= 3 * held
        groups += held
        red_groups += (k & _RED_TOP).bit_count()
    nf = n - 2 * need
    if nf >= 0 and nf % 3 == 0 and groups + nf // 3 + need == rc.groups_to_win:
        return [(fx, h, need, red_groups, nf)]
    return []
