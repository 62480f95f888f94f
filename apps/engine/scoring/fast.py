"""Scoring a win (RULES.md §8, §9.1, §9.2): ``score_win`` (full result) and ``can_win`` (fast test).

The fast path works on packed count vectors (``decompose.py``: 8 bits per card kind in one int);
the laid groups come packed from a static table (``tables.LAID``: 胡息 under every 胡息
table, the 偎/碰 a card can upgrade, card counts), so a hand's laid groups are a sum of a few ints.
The winning card first takes the role §8.2 gives it (``winning_card.ROLES``, the tabulated
``card_role`` that ``reference.variants`` calls); the 坎 (never broken) and, at a reveal win,
four of a kind held are set aside; the free cards left are split into 绞, sentences and the 将 by
table look-ups (``SENT_CODE``/``PAIR_CODE``, built with
``CASE_SENT``/``CASE_PAIR``), one case at a time once the 绞 are chosen. Among all decompositions
the engine keeps the one with the highest score, then the highest 胡息 (§8.3). The 名堂 that do not
depend on the decomposition are computed once per (ruleset, ``mingtang.fan_key``); only 对对胡, 比
and 双飘 are looked at per candidate.

The hot loops avoid what costs most in CPython 3.11: comprehensions over a few items (each is a
function call), ``sum()`` over big ints, dict keys built per call; see ``bench --vectors``.

The chosen decomposition group by group (``ScoreResult.groups``) is built on first read by the plain
scorer of ``reference.py``, which picks the same decomposition; natural wins use that scorer too.

>>> from apps.engine.rules import PRESETS
>>> from apps.engine.cards import parse_card as p
>>> hand = [p(x) for x in "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7".split()]
>>> laid = [Group("pao", (8,) * 4), Group("peng", (12,) * 3), Group("chi", (3, 4, 5))]
>>> r = score_win(PRESETS["full"], hand, laid, p("s7"), "self_draw")
>>> (r.huxi, r.tun, r.mingtang, r.fan, r.score)
(24, 5, (('hong_hu', 2),), 2, 10)
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from ..cards import IS_RED
from ..groups import Group
from ..rules import RuleSet
from .decompose import (
    ADD_GE1,
    ADD_GE3,
    B7,
    FIELD,
    M80,
    NIBBLES,
    PAIR_CODE,
    SENT_CODE,
    best_free_packed,
    best_with_jiao,
    free_shapes_packed,
)
from .huxi import tun_of
from .mingtang import BIG_FROM as _BIG_FROM
from .mingtang import SMALL_FROM as _SMALL_FROM
from .mingtang import MingtangContext, bonuses_of, fan_key, mingtang_of
from .reference import WIN_BY, is_zimo, score_win_slow
from .result import INCOMPLETE, MAO_HU_HUXI, ScoreResult
from .tables import (
    CONTEXTS_BY_ID,
    ENC,
    LAID_BY_KIND,
    LAID_CHI_MASK,
    LAID_COUNTS,
    LAID_FOUR_MASK,
    ONES20,
    PENG_BIT,
    PIAO_BY_KIND,
    PIAO_NIBBLES,
    RED_FIELDS,
    WEI_BIT,
    RuleContext,
    laid_bits,
    packed_counts,
    piao_bits,
    rule_context,
)
from .winning_card import (
    JOIN,
    KAN_TO_FOUR,
    LAID_PENG,
    LAID_WEI,
    NO_LAID,
    PAIR_TO_WEI,
    PENG_TO_PAO,
    ROLES,
    WEI_TO_FOUR,
)

__all__ = ["WIN_BY", "ScoreResult", "can_win", "is_zimo", "score_win", "tun_of"]

_GE3 = ADD_GE3 | (ADD_GE3 << 80)  # field + this has its top bit set iff field >= 3 (20 fields)
_TOP = B7 | (B7 << 80)
_GE1 = ADD_GE1
_GE4 = sum(0x7C << (FIELD * c) for c in range(20))  # field + this has its top bit set iff field >= 4
_SENT_NIB = (NIBBLES * 6, NIBBLES * 5, NIBBLES * 4)  # nibble + these has bit 3 set iff nibble >= 2, 3, 4
_NIB8 = NIBBLES * 8
_RED_TOP = sum(0x80 << (FIELD * c) for c in range(20) if IS_RED[c])  # the top bit of each red card's field
_RED_RANKS = (1, 6, 9)


_KIND_CARDS = attrgetter("kind", "cards")


def _laid_packed(rc: RuleContext, groups: Sequence[Group]) -> int:
    """The laid groups packed, straight from the static table (``_laid_sum`` for anything else)."""
    lp = 0
    try:
        laid = LAID_BY_KIND
        for g in groups:
            lp += laid[g.kind][g.cards]
    except KeyError:
        return _laid_sum(rc, groups)
    return lp


def _laid_sum(rc: RuleContext, groups: Sequence[Group]) -> int:
    """The laid groups packed (``tables.LAID_*``), adding any group missing from ``rc.laid`` (never
    one of valid input: ``score_win`` sums the table's entries directly)."""
    total = 0
    for key in map(_KIND_CARDS, groups):
        packed = rc.laid.get(key)
        if packed is None:
            packed = laid_bits(*key) | rc.huxi_of(*key) << rc.laid_huxi
        total += packed
    return total


def _fans(rc: RuleContext, key: tuple) -> tuple:
    """(名堂, fan, bonuses, 胡息 multiplier, added tun) for ``key`` = the fields of ``mingtang.fan_key``
    then 对对胡, 比, 双飘; memoised per ruleset. The +1 tun of 自摸 (``zimo = "+1tun"``) is not in it:
    it does not depend on the key."""
    rs = rc.rs
    # key: red, big, small, win_by, dealer, zimo, last_card, reveal_card, shua_hou, dui_dui, bi, piao
    ctx = MingtangContext(rs, *key)
    mingtang, fan = mingtang_of(rs, ctx)
    bonuses = bonuses_of(rs, ctx)
    mul, tun_add = 1, 0
    for _, effect, value in bonuses:
        if effect == "huxi_x":
            mul *= value
        elif effect == "fan_x":
            fan *= value
        elif effect == "tun":
            tun_add += value
    if len(rc.fan_cache) > 50_000:
        rc.fan_cache.clear()
    out = rc.fan_cache[key] = (mingtang, fan, bonuses, mul, tun_add)
    return out


def _piao_laid(groups: Sequence[Group]) -> tuple[int, int, int]:
    """(all-red laid groups, laid sentences by pattern packed 4 bits per id: small, big) for 比/双飘."""
    packed = 0
    try:
        table = PIAO_BY_KIND
        for g in groups:
            packed += table[g.kind][g.cards]
    except KeyError:  # not a well-formed laid group (never valid input)
        packed = sum(piao_bits(g.kind, g.cards) for g in groups)
    return packed & 0xFF, (packed >> 8) & PIAO_NIBBLES, packed >> 48


def _bi(t: int) -> int:
    """Largest nibble of a packed pattern count if it is 2, 3 or 4, else 0 (§11.15)."""
    ge2, ge3, ge4 = _SENT_NIB
    if not (t + ge2) & _NIB8:
        return 0
    return 4 if (t + ge4) & _NIB8 else 3 if (t + ge3) & _NIB8 else 2


def _every_split(rc: RuleContext, v: tuple, groups: Sequence[Group], chi: bool) -> list[tuple[int, bool, int, int]]:
    """(胡息, 对对胡, 比, 双飘 count) of every split of a variant (changsha's 比/双飘, 毛胡)."""
    fx, h, need, red_groups, _ = v
    shapes = free_shapes_packed(h & M80, h >> 80, bool(need))
    if not shapes:
        return shapes
    piao0, ls, lb = _piao_laid(groups)
    piao0 += red_groups
    w = rc.w4
    out = []
    for e, f, pair, nj, nr in shapes:
        huxi = fx + e[0] * w[0] + e[1] * w[1] + f[0] * w[2] + f[1] * w[3]
        dui_dui = not chi and not nj and not e[2] and not f[2]
        bi = max(_bi(e[2] + ls), _bi(f[2] + lb))
        piao = piao0 + e[1] + f[1] + nr + (pair >= 0 and pair % 10 in _RED_RANKS)
        out.append((huxi, dui_dui, bi, piao))
    return out


def score_win(
    rs: RuleSet,
    hand: Sequence[int],
    groups: Sequence[Group],
    win_card: int | None,
    win_by: str,
    dealer: bool = False,
    last_card: bool = False,
    reveal_card: int | None = None,
) -> ScoreResult:
    """Score a candidate win (trusted input: see ``cli.score_requests`` for the checked path).

    ``hand`` is the hidden hand before the winning card (for ``natural``: the whole dealt hand, the
    dealer's reveal card included, and ``win_card`` None). Forced actions caused by the winning card
    (RULES.md §8.2) are applied here.

    One function on purpose (it is the hot path): the winning card's role (§8.2, as
    ``packed_variants``), the 坎 set aside all at once, the case look-ups and the scoring.
    """
    if win_card is None or win_by == "natural":
        return score_win_slow(rs, hand, groups, win_card, win_by, dealer, last_card, reveal_card)
    hit = CONTEXTS_BY_ID.get(id(rs))
    rc = hit[1] if hit is not None and hit[0] is rs else rule_context(rs)
    hp = 0
    enc = ENC
    for c in hand:  # an explicit loop: cheaper than sum() over a few big ints
        hp += enc[c]
    lp = _laid_packed(rc, groups)
    if rc.every_split or win_by == "reveal":  # ``_score_split`` looks at every split
        return _score_split(rc, hand, groups, win_card, win_by, dealer, last_card, reveal_card, hp, lp)
    # §8.2: the winning card's role. Each shape: (fixed 胡息, hand counts, cards, groups, 将?, kept field).
    sh = FIELD * win_card
    held = (hp >> sh) & 0xFF
    h = hp
    n = len(hand)
    fixed = (lp >> rc.laid_huxi) & 0xFF
    four = 1 if lp & LAID_FOUR_MASK else 0
    n_laid = len(groups)
    # A laid 偎/臭偎 (bit WEI_BIT) or 碰 (bit PENG_BIT) of the winning card, from one shift.
    # Its ``winning_card.LAID_*`` index from the same bits: 偎 (bit 0) → 1, 碰 (bit 20) → 2.
    upgrade = (lp >> win_card) & _WEI_PENG if held < 2 else 0
    role, kind = ROLES[win_by][dealer][3 * held + ((upgrade & 1) | (upgrade >> 19 & 2))]
    same = rc.same
    if role == JOIN:
        shapes = ((fixed, h + (1 << sh), n + 1, n_laid, four, 0),)
    elif role == KAN_TO_FOUR:
        shapes = ((fixed + same[kind][win_card], h - (3 << sh), n - 3, n_laid + 1, 1, 0),)
    elif role == WEI_TO_FOUR:
        shapes = ((fixed + same[kind][win_card] - same["wei"][win_card], h, n, n_laid, 1, 0),)
    elif role == PENG_TO_PAO:
        shapes = ((fixed + same["pao"][win_card] - same["peng"][win_card], h, n, n_laid, 1, 0),)
    elif role == PAIR_TO_WEI:
        shapes = ((fixed + same["wei"][win_card], h - (2 << sh), n - 2, n_laid + 1, four, 0),)
    else:  # PAIR_FREE: used whole, a 碰; or the card and the pair are free (the pair's field kept)
        wb = 1 << sh
        shapes = (
            (fixed + same[kind][win_card], h - 2 * wb, n - 2, n_laid + 1, four, 0),
            (fixed, h + wb, n + 1, n_laid, four, 0xFF << sh),
        )
    to_win = rc.groups_to_win
    cands = []
    top = -1
    for fx, h, n, ng, need, keep in shapes:
        k = (h + _GE3) & _TOP
        if k:  # set every 坎 aside (no four of a kind outside a reveal win)
            if keep:
                k &= ~keep
            if (h + _GE4) & k:  # four of a kind held (never valid input here): the general path
                return _score_split(rc, hand, groups, win_card, win_by, dealer, last_card, reveal_card, hp, lp)
            ones = k >> 7  # a 1 in the field of each 坎
            held = k.bit_count()
            fx += ((ones * rc.kan_rev) >> 152) & 0xFF  # their 胡息 (tables.RuleContext.kan_rev)
            h -= ones * 3
            n -= 3 * held
            ng += held
        nf = n - 2 * need
        if nf < 0 or nf % 3 or ng + nf // 3 + need != to_win:
            continue
        fs = h & M80
        fb = h >> 80
        ranks = (fs + _GE1) & (fb + _GE1) & (fs + fb + ADD_GE3) & B7
        if ranks:
            best = best_with_jiao(fs, fb, need, ranks, rc.vs, rc.vb)
            if best < 0:
                continue
        else:  # ``decompose.best_plain``, inline
            side = fs % 3
            if side == 0:
                a = SENT_CODE.get(fs)
                if a is None:
                    continue
                b = (PAIR_CODE if need else SENT_CODE).get(fb)
            elif side == 2 and need:
                a = PAIR_CODE.get(fs)
                if a is None:
                    continue
                b = SENT_CODE.get(fb)
            else:
                continue
            if b is None:
                continue
            best = rc.vs[a] + rc.vb[b]
        huxi = fx + best
        if huxi > top:
            top = huxi
        if huxi >= rc.win_min:
            # 对对胡: no 吃 laid and nothing but the 将 among the free cards.
            cands.append((huxi, nf == 0 and not lp & LAID_CHI_MASK))
    if not cands:
        if top < 0:
            return INCOMPLETE
        return _below_min(top, rc.win_min)
    hw = hp + (1 << sh)  # every hidden card, the winning card included
    t = lp >> LAID_COUNTS
    red = (((hw & RED_FIELDS) * ONES20 >> 152) & 0xFF) + (t & 0xFF)
    big = (((hw >> 80) * ONES20 >> 72) & 0xFF) + ((t >> 8) & 0xFF)
    small = len(hand) + 1 + ((t >> 16) & 0xFF) - big
    wbk, dealer_k, zimo_k, zimo_tun = rc.call_keys[win_by][dealer]
    shua = len(hand) == 1 and hand[0] == win_card
    fan_cache = rc.fan_cache
    tuns = rc.tun
    best_val = None
    for huxi, dui_dui in cands:
        key = (
            red, big if big >= _BIG_FROM else 0, small if small >= _SMALL_FROM else 0, wbk, dealer_k, zimo_k,
            last_card, reveal_card if rc.kai_di else None, shua, dui_dui, 0, 0,
        )
        mingtang, fan, bonuses, mul, tun_add = fan_cache.get(key) or _fans(rc, key)
        tun = tuns[huxi * mul] + tun_add + zimo_tun  # §9.1: ``huxi.tun_of``, tabulated
        if best_val is None or (tun * fan, huxi) > best_val[0]:
            best_val = ((tun * fan, huxi), tun, mingtang, fan, bonuses)
    (score, shown), tun, mingtang, fan, bonuses = best_val
    return ScoreResult(  # as ``_lazy_win``, inline (hot path)
        True, None, None, shown, None, {"red": red, "big": big, "small": small}, tun, mingtang, fan, score, bonuses,
        [(score_win_slow, (rs, tuple(hand), tuple(groups), win_card, win_by, dealer, last_card, reveal_card))],
    )


_WEI_PENG = 1 << WEI_BIT | 1 << PENG_BIT
# The role index above reads the laid 偎 at bit 0 and the 碰 at bit 20 as ``winning_card.LAID_*`` 1, 2.
assert (WEI_BIT, PENG_BIT, LAID_WEI, LAID_PENG, NO_LAID) == (0, 20, 1, 2, 0)


def _lazy_win(best_val: tuple, red: int, big: int, small: int, args: tuple) -> ScoreResult:
    """The best candidate as a result whose group detail is built only when read."""
    (score, shown), tun, mingtang, fan, bonuses = best_val
    rs, hand, groups, *rest = args
    return ScoreResult(
        True, None, None, shown, None, {"red": red, "big": big, "small": small}, tun, mingtang, fan, score, bonuses,
        [(score_win_slow, (rs, tuple(hand), tuple(groups), *rest))],
    )


def _below_min(top: int, min_huxi: int) -> ScoreResult:
    return ScoreResult(False, "huxi_below_min", f"{top} 胡息 is below the minimum of {min_huxi}", top)


def packed_variants(rc: RuleContext, h: int, n: int, lp: int, n_laid: int, card: int, win_by: str, dealer: bool) -> list:
    """The ways the winning card counts (§8.2, by ``winning_card.ROLES``, as
    ``reference.variants``) with the right group count: (fixed 胡息, free counts packed, 将
    needed, all-red groups among the formed group and the 坎, number of free cards besides the 将).
    ``h``: the hand packed (``ENC``), ``n`` cards; ``lp``: the laid groups packed (``LAID``)."""
    same = rc.same
    sh = FIELD * card
    wb = 1 << sh
    held = (h >> sh) & 0xFF
    fixed = (lp >> rc.laid_huxi) & 0xFF
    four = 1 if lp & LAID_FOUR_MASK else 0
    formed = 0
    upgrade = (lp >> card) & _WEI_PENG if held < 2 else 0  # as in ``score_win``
    role, kind = ROLES[win_by][dealer][3 * held + ((upgrade & 1) | (upgrade >> 19 & 2))]
    if role == JOIN:
        h += wb
        n += 1
    elif role == KAN_TO_FOUR:
        fixed += same[kind][card]
        h -= 3 * wb
        n -= 3
        four = formed = 1
    elif role == WEI_TO_FOUR:
        fixed += same[kind][card] - same["wei"][card]
        four = 1
    elif role == PENG_TO_PAO:
        fixed += same["pao"][card] - same["peng"][card]
        four = 1
    elif role == PAIR_TO_WEI:
        fixed += same["wei"][card]
        h -= 2 * wb
        n -= 2
        formed = 1
    else:  # PAIR_FREE: used whole, a 碰; or three free cards
        out = packed_shape(rc, fixed + same[kind][card], h - 2 * wb, n - 2, n_laid + 1, four, 0, IS_RED[card])
        free = packed_shape(rc, fixed, h + wb, n + 1, n_laid, four, 0xFF << sh, 0)
        return out + free
    if (h + _GE3) & _TOP:
        return packed_shape(rc, fixed, h, n, n_laid + formed, four, 0, formed and IS_RED[card])
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


def _score_split(
    rc: RuleContext, hand: Sequence[int], groups: Sequence[Group], win_card: int, win_by: str, dealer: bool,
    last_card: bool, reveal_card: int | None, hp: int, lp: int,
) -> ScoreResult:
    """``score_win`` where every split counts (changsha's 比/双飘, 毛胡) and at a reveal win."""
    rs = rc.rs
    vs = packed_variants(rc, hp, len(hand), lp, len(groups), win_card, win_by, dealer)
    if not vs:
        return INCOMPLETE
    chi = lp & LAID_CHI_MASK
    min_huxi = rc.win_min  # max(min_huxi, qi_hu): the gate of §8.1, §9.6
    mao_hu = rs.mao_hu
    cands: list[tuple[int, bool, int, int]] = []
    top = -1
    if rc.every_split:
        for v in vs:
            for c in _every_split(rc, v, groups, bool(chi)):
                if c[0] > top:
                    top = c[0]
                if c[0] >= min_huxi or (mao_hu and c[0] == 0):
                    cands.append(c)
    else:
        for fx, h, need, _, nf in vs:
            best = best_free_packed(h & M80, h >> 80, need, rc.vs, rc.vb)
            if best < 0:
                continue
            huxi = fx + best
            if huxi > top:
                top = huxi
            if huxi >= min_huxi:
                cands.append((huxi, not chi and nf == 0, 0, 0))
    if not cands:
        if top < 0:
            return INCOMPLETE
        return _below_min(top, min_huxi)
    red, big = packed_counts(hp + ENC[win_card])
    t = lp >> LAID_COUNTS
    red += t & 0xFF
    big += (t >> 8) & 0xFF
    small = len(hand) + 1 + ((t >> 16) & 0xFF) - big
    base = fan_key(rs, red, big, small, win_by, dealer, last_card, reveal_card, len(hand) == 1 and hand[0] == win_card)
    fan_cache = rc.fan_cache
    zimo_tun = rc.call_keys[win_by][dealer][3]
    best_val: tuple | None = None
    for huxi, dui_dui, bi, piao in cands:
        key = base + (dui_dui, bi, piao)
        mingtang, fan, bonuses, mul, tun_add = fan_cache.get(key) or _fans(rc, key)
        shown = huxi
        if mao_hu and huxi == 0:
            shown = MAO_HU_HUXI
            bonuses += (("mao_hu", "huxi", MAO_HU_HUXI),)
        tun = rc.tun[shown * mul] + tun_add + zimo_tun  # §9.1: ``huxi.tun_of``, tabulated
        if best_val is None or (tun * fan, shown) > best_val[0]:
            best_val = ((tun * fan, shown), tun, mingtang, fan, bonuses)
    return _lazy_win(best_val, red, big, small, (rs, hand, groups, win_card, win_by, dealer, last_card, reveal_card))


def can_win(
    rs: RuleSet,
    hand_counts: Sequence[int],
    groups: Sequence[Group],
    win_card: int | None,
    win_by: str,
    dealer: bool = False,
    last_card: bool = False,
    reveal_card: int | None = None,
) -> bool:
    """Whether ``score_win`` with the same arguments would be a win (fast path, no decomposition
    built). ``hand_counts`` is the 20-count vector of the hidden hand before the winning card."""
    if win_by == "natural" or win_card is None:
        return sum(1 for n in hand_counts if n == 4) >= 3 or sum(1 for n in hand_counts if n >= 3) >= 5
    hit = CONTEXTS_BY_ID.get(id(rs))
    rc = hit[1] if hit is not None and hit[0] is rs else rule_context(rs)
    hp = int.from_bytes(bytes(hand_counts), "little")
    n = sum(hand_counts)
    lp = _laid_packed(rc, groups)
    min_huxi = rc.win_min  # max(min_huxi, qi_hu): the gate of §8.1, §9.6
    if rs.mao_hu:
        return any(
            c[0] >= min_huxi or c[0] == 0
            for v in packed_variants(rc, hp, n, lp, len(groups), win_card, win_by, dealer)
            for c in _every_split(rc, v, groups, False)
        )
    w0, w1, w2, w3 = rc.w4
    for fx, h, need, _, _ in packed_variants(rc, hp, n, lp, len(groups), win_card, win_by, dealer):
        if fx < min_huxi and fx + _free_bound(h, w0, w1, w2, w3) < min_huxi:
            continue  # not enough 一二三/二七十 among the free cards: no split can reach min_huxi
        best = best_free_packed(h & M80, h >> 80, need, rc.vs, rc.vb)
        if best >= 0 and fx + best >= min_huxi:
            return True
    return False


def _free_bound(h: int, w0: int, w1: int, w2: int, w3: int) -> int:
    """An upper bound of the free cards' 胡息: only 一二三 and 二七十 score, each at most as often
    as its scarcest card."""
    a, b, c = h & 0xFF, (h >> 8) & 0xFF, (h >> 16) & 0xFF
    out = w0 * (a if a < b and a < c else b if b < c else c)
    a, c = (h >> 48) & 0xFF, (h >> 72) & 0xFF
    out += w1 * (a if a < b and a < c else b if b < c else c)
    a, b, c = (h >> 80) & 0xFF, (h >> 88) & 0xFF, (h >> 96) & 0xFF
    out += w2 * (a if a < b and a < c else b if b < c else c)
    a, c = (h >> 128) & 0xFF, (h >> 152) & 0xFF
    return out + w3 * (a if a < b and a < c else b if b < c else c)
