"""The plain scorer (RULES.md §8, §9.1, §9.2): every decomposition built as groups, then scored.

``scoring.score_win`` is the fast path (count vectors and precomputed tables); it uses this module
for what it does not compute itself: the chosen decomposition group by group (``ScoreResult.groups``,
built only when read), natural wins, and as the reference its results are checked against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import IS_RED
from .decompose import best_free, free_splits, partial_decompositions, split_groups, split_huxi
from .groups import Group
from .mingtang import MingtangContext, bonuses_of, mingtang_of
from .rules import RuleSet
from .winning import RuleContext, Variant, make_variant, rule_context, variants

WIN_BY = ("self_draw", "other_draw", "discard", "reveal", "natural")
MAO_HU_HUXI = 15


@dataclass(frozen=True)
class ScoreResult:
    """The value of a candidate win; ``to_wire()`` is the ENGINE_CLI ``score`` output."""

    win: bool
    reason: str | None = None  # not a win: "incomplete" | "huxi_below_min"
    message: str | None = None
    huxi: int = 0
    groups: tuple[tuple[Group, int], ...] = ()
    counts: dict[str, int] = field(default_factory=dict, hash=False, compare=False)
    tun: int = 0
    mingtang: tuple[tuple[str, int], ...] = ()
    fan: int = 0
    score: int = 0
    # Effects that are not fans: ("tian_hu", "huxi_x", 2), ("shua_hou", "fan_x", 6),
    # ("kai_di_you_xi", "tun", 2), ("mao_hu", "huxi", 15). On the wire only when present.
    bonuses: tuple[tuple[str, str, int], ...] = ()

    def to_wire(self) -> dict[str, Any]:
        if not self.win:
            out: dict[str, Any] = {"win": False, "reason": self.reason, "message": self.message}
            if self.reason == "huxi_below_min":
                out["huxi"] = self.huxi
            return out
        out = {
            "win": True,
            "huxi": self.huxi,
            "groups": [{**g.to_wire(), "huxi": h} for g, h in self.groups],
            "counts": dict(self.counts),
            "tun": self.tun,
            "mingtang": [{"name": n, "fan": f} for n, f in self.mingtang],
            "fan": self.fan,
            "score": self.score,
        }
        if self.bonuses:
            out["bonuses"] = [{"name": n, effect: v} for n, effect, v in self.bonuses]
        return out

    @classmethod
    def _fast(cls, **fields: Any) -> ScoreResult:
        """Build without the frozen-dataclass ``__init__`` (hot path; every field given)."""
        obj = object.__new__(cls)
        obj.__dict__.update(fields)
        return obj


class LazyScoreResult(ScoreResult):
    """A winning ``ScoreResult`` from the fast path: ``groups`` (the chosen decomposition, group by
    group) is built on first read by ``score_win_slow`` on the same arguments, which picks the same
    decomposition (both keep the first best candidate in the same order). Copies and pickles are
    plain ``ScoreResult`` values."""

    @property  # type: ignore[override]
    def groups(self) -> tuple[tuple[Group, int], ...]:
        d = self.__dict__
        if "_groups" not in d:
            slow = score_win_slow(*d["_args"])
            if (slow.win, slow.huxi, slow.score, slow.mingtang) != (True, self.huxi, self.score, self.mingtang):
                raise AssertionError(f"fast and plain scorers disagree on {d['_args']!r}")
            d["_groups"] = slow.groups
        return d["_groups"]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScoreResult):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in _FIELDS if k != "counts")

    __hash__ = ScoreResult.__hash__

    def __reduce__(self) -> tuple:
        fields = {k: getattr(self, k) for k in _FIELDS}
        return (_plain, (fields,))


def _plain(fields: dict[str, Any]) -> ScoreResult:
    return ScoreResult._fast(**fields)


_FIELDS = ("win", "reason", "message", "huxi", "groups", "counts", "tun", "mingtang", "fan", "score", "bonuses")


def is_zimo(win_by: str, dealer: bool) -> bool:
    """§8.2: own draw (偎胡/提胡 included), the dealer's reveal win, a natural win."""
    return win_by in ("self_draw", "natural") or (win_by == "reveal" and dealer)


def tun_of(rs: RuleSet, huxi: int) -> int:
    """§9.1: 3xi1tun ``floor((huxi - m) / 3) + 1`` with m = min_huxi; 1xi1tun ``huxi``.

    >>> from apps.engine.rules import PRESETS
    >>> [tun_of(PRESETS["full"], h) for h in (15, 17, 18, 21)]
    [1, 1, 2, 3]
    """
    if rs.tun_mode == "1xi1tun":
        return max(1, huxi)
    return max(1, (huxi - rs.min_huxi) // 3 + 1)


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
    min_huxi = rs.min_huxi
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
        # Left-over cards are no group (§3.3): they count for neither 比 nor 双飘.
        value = _value(rc, w, huxi, *_shape(variant.fixed_groups() + list(groups)))
        out.append(((value[0], value[5]), variant, groups_l, value))
    return out


_INCOMPLETE_MESSAGE = "the cards do not make a complete hand"


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
    """Score a candidate win (trusted input: see ``score_io`` for the checked path).

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
            return ScoreResult(False, "incomplete", _INCOMPLETE_MESSAGE)
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
            return ScoreResult(False, "incomplete", _INCOMPLETE_MESSAGE)
        return ScoreResult(False, "huxi_below_min", f"{top} 胡息 is below the minimum of {rs.min_huxi}", huxi=top)
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
    return ScoreResult._fast(
        win=True,
        reason=None,
        message=None,
        huxi=shown,
        groups=tuple((_group(k, c), huxi(k, c)) for k, c in variant.table_groups() + in_hand),
        counts={"red": w.red, "big": w.big, "small": w.small},
        tun=tun,
        mingtang=mingtang,
        fan=fan,
        score=score,
        bonuses=bonuses,
    )
