"""The plain scorer (RULES.md §8, §9.1, §9.2): every decomposition built as groups, then scored;
its results are ``ScoreResult`` (result.py), and it owns the natural wins (§3.3).

``scoring.score_win`` is the fast path (count vectors and precomputed tables); it uses this module
for what it does not compute itself: the chosen decomposition group by group (``ScoreResult.groups``,
built only when read), natural wins, and as the reference its results are checked against.

``variants`` turns (hidden hand, laid groups, winning card, where it came from) into the ways the
cards can be counted, by the winning card's role (``winning_card.card_role``): the laid groups (one
possibly upgraded: 偎→提/跑, 碰→跑), the group the winning card formed by a forced action (偎, 提, 跑),
the 坎 (and, at a reveal win, four of a kind) held in hand, and the free cards left for sentences, 绞
and the 将. There are two variants only when another player's card meets a pair in hand: used whole
it is a 碰, or the three cards are free (§8.2, §11.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..cards import IS_RED
from ..groups import Group
from ..rules import RuleSet
from .decompose import best_free, free_splits, partial_decompositions, split_groups, split_huxi
from .huxi import tun_of
from .mingtang import MingtangContext, bonuses_of, mingtang_of
from .result import INCOMPLETE_MESSAGE, MAO_HU_HUXI, ScoreResult
from .tables import GroupT, RuleContext, rule_context
from .winning_card import (
    KAN_TO_FOUR,
    LAID_PENG,
    LAID_WEI,
    NO_LAID,
    PAIR_FREE,
    PAIR_TO_WEI,
    PENG_TO_PAO,
    WEI_TO_FOUR,
    WIN_BY,
    card_role,
    is_zimo,
)

__all__ = ["WIN_BY", "is_zimo", "score_win_slow", "tun_of", "variants"]

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


def _upgrade(laid: list[GroupT], card: int, kinds: tuple[str, ...], to: str) -> list[GroupT]:
    """A copy of ``laid`` with the group of ``card`` whose kind is in ``kinds`` upgraded to ``to``."""
    laid = list(laid)
    for i, (kind, cards) in enumerate(laid):
        if cards[0] == card and kind in kinds:
            laid[i] = (to, (card,) * 4)
            break
    return laid


def _laid_of(laid: Sequence[GroupT], card: int) -> int:
    """The laid 偎/臭偎 (``LAID_WEI``) or 碰 (``LAID_PENG``) of ``card``, if any (``NO_LAID``)."""
    for kind, cards in laid:
        if cards[0] == card:
            if kind == "wei" or kind == "chou_wei":
                return LAID_WEI
            if kind == "peng":
                return LAID_PENG
    return NO_LAID


def variants(
    rc: RuleContext, counts: list[int], laid: list[GroupT], card: int, win_by: str, dealer: bool
) -> list[Variant]:
    """The ways the winning card counts (§8.2, ``card_role``), keeping only those with the right
    number of groups. ``counts`` (the hidden hand) and ``laid`` are copied, never changed."""
    counts = list(counts)
    if card is None:  # no winning card (never valid input here): the hand as it is
        return _shaped(rc, ((laid, None, counts, -1),))
    held = counts[card]
    role, kind = card_role(win_by, dealer, held, _laid_of(laid, card) if held < 2 else NO_LAID)
    formed: GroupT | None = None
    shapes = None
    if role == KAN_TO_FOUR or role == PAIR_TO_WEI:
        counts[card] = 0
        formed = (kind, (card,) * (held + 1))
    elif role == WEI_TO_FOUR:
        laid = _upgrade(laid, card, ("wei", "chou_wei"), kind)
    elif role == PENG_TO_PAO:
        laid = _upgrade(laid, card, ("peng",), kind)
    elif role == PAIR_FREE:  # used whole: a 碰; or three free cards
        whole = list(counts)
        whole[card] = 0
        counts[card] = 3
        shapes = ((laid, (kind, (card,) * 3), whole, -1), (laid, None, counts, card))
    else:  # JOIN
        counts[card] += 1
    return _shaped(rc, shapes or ((laid, formed, counts, -1),))


def _shaped(rc: RuleContext, shapes: tuple) -> list[Variant]:
    """The variants of (laid, formed, counts, card kept free) shapes with the right number of groups:
    every 坎 (and four of a kind) in hand set aside, never broken."""
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


@dataclass
class _Win:
    """Facts about the candidate win that do not depend on the decomposition."""

    rs: RuleSet
    win_by: str
    dealer: bool
    last_card: bool
    reveal_card: int | None
    shua_hou: bool
    red: int
    big: int
    small: int


def _value(rc: RuleContext, w: _Win, huxi: int, dui_dui: bool, bi: int, piao: int) -> tuple:
    """(score, tun, mingtang, fan, bonuses, counted 胡息) of a decomposition (§9.1 order), memoised."""
    key = (huxi, w.red, w.big, w.small, w.win_by, w.dealer, w.last_card, w.reveal_card, w.shua_hou, dui_dui, bi, piao)
    hit = rc.value_cache.get(key)
    if hit is None:
        if len(rc.value_cache) > 100_000:
            rc.value_cache.clear()
        hit = rc.value_cache[key] = _compute_value(w, huxi, dui_dui, bi, piao)
    return hit


def _compute_value(w: _Win, huxi: int, dui_dui: bool, bi: int, piao: int) -> tuple:
    rs = w.rs
    ctx = MingtangContext(
        rs=rs,
        red=w.red,
        big=w.big,
        small=w.small,
        win_by=w.win_by,
        dealer=w.dealer,
        zimo=is_zimo(w.win_by, w.dealer),
        last_card=w.last_card,
        reveal_card=w.reveal_card,
        shua_hou=w.shua_hou,
        dui_dui=dui_dui,
        bi=bi,
        piao=piao,
    )
    mingtang, fan = mingtang_of(rs, ctx)
    bonuses = bonuses_of(rs, ctx)
    counted = huxi
    if rs.mao_hu and huxi == 0 and w.win_by != "natural":
        counted = MAO_HU_HUXI
        bonuses += (("mao_hu", "huxi", MAO_HU_HUXI),)
    shown = counted
    tun_bonus = 0
    for _, effect, value in bonuses:
        if effect == "huxi_x":
            counted *= value
        elif effect == "fan_x":
            fan *= value
        elif effect == "tun":
            tun_bonus += value
    tun = tun_of(rs, counted) + tun_bonus
    if rs.zimo == "+1tun" and ctx.zimo:
        tun += 1
    return tun * fan, tun, mingtang, fan, bonuses, shown


def _shape(groups: Sequence[tuple[str, tuple[int, ...]]]) -> tuple[bool, int, int]:
    """(对对胡?, 比 count, 双飘 count) of a full list of groups (§10, §11.15)."""
    dui_dui = True
    sentences: dict[tuple[int, ...], int] = {}
    piao = 0
    for kind, cards in groups:
        if kind in ("chi", "sentence", "jiao"):
            dui_dui = False
            if cards[0] != cards[1] and cards[1] != cards[2]:  # a sentence, not a 绞
                sentences[cards] = sentences.get(cards, 0) + 1
        if all(IS_RED[c] for c in cards):
            piao += 1
    bi = max(sentences.values(), default=0)
    return dui_dui, (bi if bi >= 2 else 0), piao


# A scored decomposition: ((score, 胡息), variant, free groups or split, value).
_Candidate = tuple


def _candidates(rc: RuleContext, w: _Win, variant: Variant, out: list) -> int:
    """Append the variant's decompositions meeting min_huxi to ``out``; return the best plain 胡息 (-1: none)."""
    rs = rc.rs
    if rc.every_split:
        splits = [(split_huxi(s, rc.weights), s) for s in free_splits(variant.free, variant.need_jiang)]
    else:
        best = best_free(variant.free, variant.need_jiang, rc.weights)
        if best is None:
            return -1
        splits = [best]
    top = -1
    min_huxi = rs.win_min_huxi  # max(min_huxi, qi_hu): the gate of §8.1, §9.6
    for h, split in splits:
        huxi = variant.fixed_huxi + h
        if huxi > top:
            top = huxi
        if huxi < min_huxi and not (rs.mao_hu and huxi == 0):
            continue
        if rc.every_split:
            shape = _shape(variant.fixed_groups() + split_groups(split))
        else:
            dui_dui = not (split[0] or split[1][0] or split[2][0]) and all(k != "chi" for k, _ in variant.laid)
            shape = (dui_dui, 0, 0)
        value = _value(rc, w, huxi, *shape)
        out.append(((value[0], value[5]), variant, split, value))
    return top


def _natural_candidates(rc: RuleContext, w: _Win, counts: list[int]) -> list[_Candidate] | None:
    """§3.3: 3 提 or 5 坎+提 in the hand (the dealer's reveal card included); None if not natural."""
    held = [("ti" if n == 4 else "kan", (c,) * n) for c, n in enumerate(counts) if n >= 3]
    n_ti = sum(1 for kind, _ in held if kind == "ti")
    if n_ti < 3 and len(held) < 5:
        return None
    free = tuple(0 if n >= 3 else n for n in counts)
    variant = make_variant(rc, (), None, held, free)
    out = []
    for groups, left in partial_decompositions(free, n_ti > 0):
        groups_l = list(groups) + ([("leftover", left)] if left else [])
        huxi = variant.fixed_huxi + sum(rc.huxi_of(kind, cards) for kind, cards in groups)
        # Left-over cards are no group (§3.3): they count for neither 比 nor 双飘, and a hand with
        # any of them is never 对对胡 (every group of one kind: the left-over cards are in none).
        dui_dui, bi, piao = _shape(variant.fixed_groups() + list(groups))
        if piao == 2 and left and _red_group_in(left, n_ti > 0 and all(k != "jiang" for k, _ in groups)):
            piao = 3  # grouping the left-over red cards makes a third all-red group: no 双飘 (§3.3)
        value = _value(rc, w, huxi, dui_dui and not left, bi, piao)
        out.append(((value[0], value[5]), variant, groups_l, value))
    return out


def _red_group_in(left: tuple[int, ...], jiang_free: bool) -> bool:
    """Whether left-over cards hold an all-red group: a 二七十, a red 绞, or (``jiang_free``) a red 将."""
    n = [0] * 20
    for c in left:
        n[c] += 1
    if (n[1] and n[6] and n[9]) or (n[11] and n[16] and n[19]):
        return True
    for r in (1, 6, 9):
        if (n[r] >= 2 and n[r + 10]) or (n[r] and n[r + 10] >= 2):
            return True
    return jiang_free and any(n[c] >= 2 for c in (1, 6, 9, 11, 16, 19))




def score_win_slow(
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
    """
    rc = rule_context(rs)
    laid = [(g.kind, g.cards) for g in groups]
    counts = [0] * 20
    for c in hand:
        counts[c] += 1
    natural = win_by == "natural"
    found: list[_Candidate] = []
    top = -1
    if not natural:
        vs = variants(rc, counts, laid, win_card, win_by, dealer)
        if not vs:
            return ScoreResult(False, "incomplete", INCOMPLETE_MESSAGE)
    total = list(counts)
    for _, cards in laid:
        for c in cards:
            total[c] += 1
    if win_card is not None:
        total[win_card] += 1
    big = sum(total[10:])
    w = _Win(
        rs,
        win_by,
        dealer,
        last_card,
        reveal_card,
        not natural and len(hand) == 1 and hand[0] == win_card,
        total[1] + total[6] + total[9] + total[11] + total[16] + total[19],
        big,
        sum(total[:10]),
    )
    if natural:
        found = _natural_candidates(rc, w, counts)
        if found is None:
            return ScoreResult(False, "incomplete", "not a natural win: it needs 3 提 or 5 坎+提 at the deal")
    else:
        for variant in vs:
            top = max(top, _candidates(rc, w, variant, found))
    if not found:
        if top < 0:
            return ScoreResult(False, "incomplete", INCOMPLETE_MESSAGE)
        return ScoreResult(False, "huxi_below_min", f"{top} 胡息 is below the minimum of {rs.win_min_huxi}", huxi=top)
    best = found[0] if len(found) == 1 else max(found, key=lambda cand: cand[0])
    return _result(rc, w, best, hand, win_card)


_GROUPS: dict[tuple[str, tuple[int, ...]], Group] = {}


def _group(kind: str, cards: tuple[int, ...]) -> Group:
    """Interned ``Group`` values (they are immutable; building one is slow in a hot loop)."""
    g = _GROUPS.get((kind, cards))
    if g is None:
        g = _GROUPS[(kind, cards)] = Group(kind, cards)
    return g


def _result(rc: RuleContext, w: _Win, best: _Candidate, hand: Sequence[int], win_card: int | None) -> ScoreResult:
    _, variant, split, (score, tun, mingtang, fan, bonuses, shown) = best
    free_groups = split if isinstance(split, list) else split_groups(split)
    pos: dict[int, int] = {}
    for i, c in enumerate(hand):
        if c not in pos:
            pos[c] = i
    last = len(hand)
    in_hand = list(variant.hand_groups) + free_groups
    in_hand.sort(key=lambda g: (min(pos.get(c, last) for c in g[1]), g))
    huxi = rc.huxi_of
    return ScoreResult(
        True, None, None, shown, tuple((_group(k, c), huxi(k, c)) for k, c in variant.table_groups() + in_hand),
        {"red": w.red, "big": w.big, "small": w.small}, tun, mingtang, fan, score, bonuses,
    )
