"""名堂 (RULES.md §9.2, §10, §11.8, §11.14, §11.15): one table row per pattern.

Each family (a preset name, ``RuleSet.mingtang``) is a tuple of ``Mingtang`` rows with
``applies(ctx)`` and ``fan(ctx)``; a new 名堂 is a new row, never an edit to a chain of ``if``.
A row that looks at the big or small count builds its rule with ``_at_least``: ``fan_key`` (the
fast path's cache key) reads the thresholds off the rows, so adding a row never edits it.
Three more kinds of effect are ``Bonus`` rows: a 胡息 multiplier before tun (天胡 in full/quanmin),
a fan multiplier (耍猴) and extra tun (开底有喜). 自摸 as "+1 tun" is handled by the tun step of the
scorer; 自摸 with fans and 放炮 are common rows of every family.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..cards import IS_RED
from ..rules import RuleSet
from .winning_card import is_zimo


@dataclass(slots=True)
class MingtangContext:
    """What the 名堂 look at. Counts are over all the winner's cards, winning card included."""

    rs: RuleSet
    red: int
    big: int
    small: int
    win_by: str
    dealer: bool
    zimo: bool
    last_card: bool
    reveal_card: int | None
    shua_hou: bool  # won with a single card left in hand, the win card pairing it
    dui_dui: bool = False  # every group is 碰/偎/臭偎/坎/跑/提 or the 将
    bi: int = 0  # largest number of identical sentences (§11.15)
    piao: int = 0  # number of groups whose cards are all red (§11.15)
    has_mingtang: bool = False  # set before the late rows (海底) are looked at


Rule = Callable[[MingtangContext], bool]
Fan = Callable[[MingtangContext], int]


@dataclass(frozen=True)
class Mingtang:
    name: str  # snake-case pinyin (ENGINE_CLI.md)
    chinese: str
    applies: Rule
    fan: Fan
    is_mingtang: bool = True  # §11.14: 自摸, 天胡, 海底 and 耍猴 do not make a hand a 名堂 hand
    late: bool = False  # looked at after the others (海底 depends on them)
    replaces: tuple[str, ...] = ()  # names this row stands in for (乌胡+对对胡 = 10)
    stacks: bool = False  # with mingtang_stack = "max": added on top of the largest (自摸, 放炮)


@dataclass(frozen=True)
class Bonus:
    name: str
    chinese: str
    applies: Rule
    value: Fan
    effect: str  # "huxi_x" (胡息 multiplier before tun), "fan_x" (fan multiplier), "tun" (added tun)


def _const(n: int) -> Fan:
    return lambda ctx: n


def _at_least(count: str, n: int) -> Rule:
    """``ctx.<count> >= n`` for ``count`` "big" or "small"; the rule carries ``(count, n)`` so the
    fast path's key (``fan_key``) knows from which value on the rows look at that count."""
    rule = (lambda ctx: ctx.big >= n) if count == "big" else (lambda ctx: ctx.small >= n)
    rule.count_from = (count, n)  # type: ignore[attr-defined]
    return rule


def _red_in(*values: int) -> Rule:
    allowed = frozenset(values)
    return lambda ctx: ctx.red in allowed


_REVEAL_OR_NATURAL: Rule = lambda ctx: ctx.win_by in ("reveal", "natural")  # noqa: E731

# ---- rows shared by several families --------------------------------------------------------

DUI_DUI_HU = Mingtang("dui_dui_hu", "对对胡", lambda ctx: ctx.dui_dui, _const(4))
WU_DUI = Mingtang(
    "wu_hu_dui_dui_hu", "乌胡对对胡", lambda ctx: ctx.dui_dui and ctx.red == 0, _const(10), replaces=("wu_hu", "dui_dui_hu")
)
# half/full 海底: +1 to a 平胡 (fan 2), +2 to a 名堂 hand — the row's own fan is 2 either way.
HAI_DI = Mingtang("hai_di", "海底", lambda ctx: ctx.last_card, _const(2), is_mingtang=False, late=True)

BASIC = (
    Mingtang("hong_hu", "红胡", lambda ctx: 10 <= ctx.red <= 12, _const(2)),
    Mingtang("dian_hu", "点胡", _red_in(1), _const(3)),
    Mingtang("hong_wu", "红乌", lambda ctx: ctx.red >= 13, _const(4)),
    Mingtang("wu_hu", "乌胡", _red_in(0), _const(5)),
)

HALF = BASIC + (DUI_DUI_HU, WU_DUI, HAI_DI)

FULL = (
    Mingtang("hong_hu", "红胡", lambda ctx: ctx.red in (4, 7) or 10 <= ctx.red <= 12, _const(2)),
    Mingtang("dian_hu", "点胡", _red_in(1), _const(3)),
    Mingtang("hong_wu", "红乌", lambda ctx: ctx.red >= 13, lambda ctx: 4 + ctx.red - 13),
    Mingtang("wu_hu", "乌胡", _red_in(0), _const(5)),
    DUI_DUI_HU,
    WU_DUI,
    Mingtang("da_zi_hu", "大字胡", _at_least("big", 18), lambda ctx: 6 + ctx.big - 18),
    Mingtang("xiao_zi_hu", "小字胡", _at_least("small", 16), lambda ctx: 8 + ctx.small - 16),
    HAI_DI,
)

CHANGSHA = (
    Mingtang("tian_hu", "天胡", lambda ctx: ctx.dealer and _REVEAL_OR_NATURAL(ctx), _const(5)),
    Mingtang("di_hu", "地胡", lambda ctx: not ctx.dealer and ctx.win_by == "reveal", _const(5)),
    Mingtang("peng_peng_hu", "碰碰胡", lambda ctx: ctx.dui_dui, _const(5)),
    Mingtang("hei_hu", "黑胡", _red_in(0), _const(5)),
    Mingtang("shi_hong", "十红", lambda ctx: ctx.red >= 10, lambda ctx: 2 + ctx.red - 10),
    Mingtang("yi_dian_hong", "一点红", _red_in(1), _const(4)),
    Mingtang("shi_ba_xiao", "十八小", _at_least("small", 18), lambda ctx: 5 + ctx.small - 18),
    Mingtang("shi_ba_da", "十八大", _at_least("big", 18), lambda ctx: 5 + ctx.big - 18),
    Mingtang("er_bi", "二比", lambda ctx: ctx.bi == 2, _const(2)),
    Mingtang("san_bi", "三比", lambda ctx: ctx.bi == 3, _const(3)),
    Mingtang("si_bi", "四比", lambda ctx: ctx.bi == 4, _const(4)),
    Mingtang("shuang_piao", "双飘", lambda ctx: ctx.piao == 2, _const(2)),
)

QUANMIN = (
    Mingtang("hong_hu", "红胡", _red_in(4, 7, 11, 12), _const(4)),
    Mingtang("zhen_dian_hu", "真点胡", _red_in(1), _const(5)),
    Mingtang("jia_dian_hu", "假点胡", _red_in(10), _const(4)),
    Mingtang("hong_wu", "红乌", lambda ctx: ctx.red >= 13, lambda ctx: 5 + ctx.red - 13),
    Mingtang("wu_hu", "乌胡", _red_in(0), _const(6)),
    Mingtang("dui_dui_hu", "对对胡", lambda ctx: ctx.dui_dui, _const(6)),
    Mingtang("da_zi_hu", "大字胡", _at_least("big", 18), lambda ctx: 7 + ctx.big - 18),
    Mingtang("xiao_zi_hu", "小字胡", _at_least("small", 16), lambda ctx: 9 + ctx.small - 16),
    # 海底: a 平胡 scores fan 6, a 名堂 hand gets +4.
    Mingtang(
        "hai_di", "海底", lambda ctx: ctx.last_card, lambda ctx: 4 if ctx.has_mingtang else 6, is_mingtang=False, late=True
    ),
)


def _red_black(fan: int) -> Fan:
    """chenzhou's four red/black 名堂: their fan, or 2 with the 红黑点2倍 option."""
    return lambda ctx: 2 if ctx.rs.hong_hei_dian_2x else fan


CHENZHOU = (
    Mingtang("hong_hu", "红胡", lambda ctx: 10 <= ctx.red <= 12, lambda ctx: 2 if ctx.rs.hong_hei_dian_2x else ctx.rs.hong_hu_fan),
    Mingtang("da_hong_hu", "大红胡", lambda ctx: ctx.red >= 13, _red_black(5)),
    Mingtang("yi_dian_hong", "一点红", _red_in(1), _red_black(4)),
    Mingtang("hei_hu", "黑胡", _red_in(0), _red_black(5)),
)

LUZHOU = (
    Mingtang("hong_hu", "红", lambda ctx: ctx.red >= 10, _const(2)),
    Mingtang("wu_hu", "乌", _red_in(0), _const(4)),
)

# Every family also has these (they apply only where the ruleset enables them).
COMMON = (
    Mingtang(
        "zi_mo", "自摸", lambda ctx: ctx.zimo and ctx.rs.zimo == "fan", lambda ctx: ctx.rs.zimo_fan, is_mingtang=False, stacks=True
    ),
    Mingtang("fang_pao", "放炮", lambda ctx: ctx.win_by == "discard", lambda ctx: ctx.rs.pao_fan, stacks=True),
)

FAMILIES: dict[str, tuple[Mingtang, ...]] = {
    "basic": BASIC,
    "half": HALF,
    "full": FULL,
    "changsha": CHANGSHA,
    "quanmin": QUANMIN,
    "chenzhou": CHENZHOU,
    "luzhou": LUZHOU,
}

BONUSES: dict[str, tuple[Bonus, ...]] = {
    "full": (Bonus("tian_hu", "天胡", _REVEAL_OR_NATURAL, _const(2), "huxi_x"),),
    "quanmin": (
        Bonus("tian_hu", "天胡", _REVEAL_OR_NATURAL, _const(4), "huxi_x"),
        Bonus("shua_hou", "耍猴", lambda ctx: ctx.shua_hou, _const(6), "fan_x"),
        Bonus(
            "kai_di_you_xi",
            "开底有喜",
            lambda ctx: ctx.rs.kai_di_you_xi and ctx.reveal_card is not None and IS_RED[ctx.reveal_card],
            lambda ctx: 4 if (ctx.reveal_card or 0) >= 10 else 2,
            "tun",
        ),
    ),
}


def _chinese_names() -> dict[str, str]:
    """Each 名堂 and bonus name (snake-case pinyin, as in results) -> the Chinese word players use,
    read off the rows. A name has the word of its first row in FAMILIES, COMMON, BONUSES order: so
    luzhou's short 红 / 乌 show as 红胡 / 乌胡, the words of every other family."""
    names: dict[str, str] = {}
    for row in [*(r for rows in FAMILIES.values() for r in rows), *COMMON,
                *(b for rows in BONUSES.values() for b in rows)]:
        names.setdefault(row.name, row.chinese)
    return names


CHINESE_NAMES = _chinese_names()

def _count_from(count: str) -> int:
    """The least value of ``count`` ("big", "small") any row looks at (rows built with ``_at_least``;
    no other row looks at it: tests check every family)."""
    return min(
        (r.applies.count_from[1] for rows in FAMILIES.values() for r in rows
         if getattr(r.applies, "count_from", ("", 0))[0] == count),
        default=81,
    )


# The rows look at ``big`` and ``small`` only from these values on, at ``reveal_card`` only with
# 开底有喜, and at ``dealer`` only for a reveal or natural win (tests check every family): the fast
# path keys its cache of fans on these values only.
BIG_FROM, SMALL_FROM = _count_from("big"), _count_from("small")


def fan_key(
    rs: RuleSet, red: int, big: int, small: int, win_by: str, dealer: bool, last_card: bool,
    reveal_card: int | None, shua_hou: bool,
) -> tuple:
    """What ``mingtang_of`` and ``bonuses_of`` depend on besides the ruleset and the decomposition
    (对对胡, 比, 双飘), as the arguments of a ``MingtangContext``: equal keys give equal 名堂 and
    bonuses. A draw by the winner or by another player differ only in 自摸, which the rows look at
    only as a fan (``zimo = "fan"``); "+1tun" is the scorer's business."""
    zimo = is_zimo(win_by, dealer)
    return (
        red,
        big if big >= BIG_FROM else 0,
        small if small >= SMALL_FROM else 0,
        "other_draw" if win_by == "self_draw" else win_by,
        dealer and (win_by == "reveal" or win_by == "natural"),
        zimo and rs.zimo == "fan",
        last_card,
        reveal_card if rs.kai_di_you_xi else None,
        shua_hou,
    )


_EARLY_LATE: dict[str, tuple[tuple[Mingtang, ...], tuple[Mingtang, ...], bool]] = {}


def rows_for(rs: RuleSet) -> tuple[Mingtang, ...]:
    return FAMILIES[rs.mingtang] + COMMON


def mingtang_of(rs: RuleSet, ctx: MingtangContext) -> tuple[tuple[tuple[str, int], ...], int]:
    """The 名堂 counted for this hand and the resulting fan (before fan multipliers, §9.2)."""
    split = _EARLY_LATE.get(rs.mingtang)
    if split is None:
        rows = rows_for(rs)
        split = _EARLY_LATE[rs.mingtang] = (
            tuple(r for r in rows if not r.late), tuple(r for r in rows if r.late), any(r.replaces for r in rows)
        )
    early, late, replaces = split
    found = []
    for row in early:  # a plain loop: a comprehension costs a function call in Python 3.11
        if row.applies(ctx):
            found.append((row, row.fan(ctx)))
    if replaces and found:
        replaced = {name for row, _ in found for name in row.replaces}
        if replaced:
            found = [(row, fan) for row, fan in found if row.name not in replaced]
    if late:
        ctx.has_mingtang = any(row.is_mingtang for row, _ in found)
        for row in late:
            if row.applies(ctx):
                found.append((row, row.fan(ctx)))
    if rs.mingtang_stack == "max" and found:
        top = None  # the first of the largest (as ``max``), then the rows that stack
        extra = []
        for item in found:
            if item[0].stacks:
                extra.append(item)
            elif top is None or item[1] > top[1]:
                top = item
        if top is not None:
            found = [top] + extra
    total = 0
    entries = []
    for row, fan in found:
        entries.append((row.name, fan))
        total += fan
    return tuple(entries), (total or 1)


def bonuses_of(rs: RuleSet, ctx: MingtangContext) -> tuple[tuple[str, str, int], ...]:
    """The (name, effect, value) bonuses that apply: 胡息 ×, fan ×, extra tun."""
    rows = BONUSES.get(rs.mingtang)
    if not rows:
        return ()
    return tuple([(b.name, b.effect, b.value(ctx)) for b in rows if b.applies(ctx)])
