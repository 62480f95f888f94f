"""Rulesets and presets (RULES.md §10).

A ``RuleSet`` is a frozen value: the preset's options with a table's overrides applied and checked.
Tables store the preset name plus their overrides; the resolved RuleSet is snapshotted per hand.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


class RuleError(ValueError):
    """An invalid option or combination; the message names the option."""


@dataclass(frozen=True)
class RuleSet:
    preset: str = "basic"
    players: int = 3
    # 4 players: "sit_out" (the seat opposite the dealer sits out) or "deal_all" (15/14/14/14).
    four_player_mode: str = "sit_out"
    min_huxi: int = 15
    tun_mode: str = "3xi1tun"  # or "1xi1tun" (chenzhou)
    mao_hu: bool = False  # 0-胡息 complete hand counts as 15 (chenzhou option)
    zimo: str = "+1tun"  # "+1tun" | "fan" | "none"
    zimo_fan: int = 2  # fan of 自摸 when zimo == "fan"
    yi_er_san_huxi: bool = True  # 一二三 scores 3/6 (changsha: 0, §11.12)
    huxi_table: str = "standard"  # or "luzhou"
    wei_shown: str = "none"  # "none" (all down) or "one" (one card up)
    discard_win: bool = False  # 放炮 / 接炮
    pao_pays: str = "each"  # with discard_win: "each" or "all" (the discarder pays for all)
    fang_pao_fan: int = 0  # 0 = by player count (2/3/4 for 2/3/4 players)
    piao: bool = False
    piao_mode: str = "both"  # "both" | "loser" | "winner"
    chou_on_unable_chi: bool = False
    chou_hu: bool = False
    dealer_after_draw: str = "stay3"  # or "next"
    mingtang: str = "basic"  # which family of 名堂 (§10): a preset name
    mingtang_stack: str = "sum"  # or "max" (+ 自摸/放炮 fans)
    hong_hu_fan: int = 3  # chenzhou's 红胡 fan (§11.8 interpretation)
    hong_hei_dian_2x: bool = False  # chenzhou option 红黑点2倍
    kai_di_you_xi: bool = False  # quanmin option 开底有喜
    # ---- room options (RULES.md §3.8, §8.6, §9.6) --------------------------------------------
    bottom_shown: bool = False  # 底牌明示 (§3.8): 4-player sit_out only; luzhou 4 players' default
    escape_penalty: bool = False  # 逃跑 (§8.6): the ``escape`` action and its penalty
    qi_hu: int = 0  # 起胡 (§9.6): 0, 15, 18 or 21; a win needs max(min_huxi, qi_hu) plain 胡息
    score_cap: int = 0  # 封顶 (§9.6): 0 = none, else each loser's score is at most this
    forced_win: bool = False  # 有胡必胡 (§9.6): 胡 is the only legal action where it is offered
    remove_cards: int = 0  # 抽牌 (§9.6): 0 or 20 cards set aside, 2 players only

    # ---- derived values -------------------------------------------------------------------
    @property
    def deal_all(self) -> bool:
        return self.players == 4 and self.four_player_mode == "deal_all"

    @property
    def sit_out(self) -> bool:
        return self.players == 4 and self.four_player_mode == "sit_out"

    @property
    def active_players(self) -> int:
        """Players who take part in a hand (a sit_out sitter does not)."""
        return 3 if self.sit_out else self.players

    def sitter(self, dealer: int) -> int | None:
        """RULES.md §2: in 4-player sit_out the seat opposite the dealer sits the hand out."""
        return (dealer + 2) % 4 if self.sit_out else None

    def active_seats(self, dealer: int) -> list[int]:
        """The seats that play a hand dealt by ``dealer``, in seat order (all but the sitter)."""
        sitter = self.sitter(dealer)
        return [s for s in range(self.players) if s != sitter]

    @property
    def base_count(self) -> int:
        """Cards held while waiting (RULES.md §5.6): 20, or 14 in deal_all."""
        return 14 if self.deal_all else 20

    @property
    def groups_to_win(self) -> int:
        return 5 if self.deal_all else 7

    @property
    def win_min_huxi(self) -> int:
        """The plain 胡息 a (non-natural) win needs (§8.1, §9.6): ``max(min_huxi, qi_hu)``."""
        return max(self.min_huxi, self.qi_hu)

    @property
    def pao_fan(self) -> int:
        """Fan of the 放炮 名堂 (chenzhou: 2/3/4 for 2/3/4 players)."""
        return self.fang_pao_fan or self.active_players

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RuleSet:
        return _check(cls(**data))


_ENUMS: dict[str, tuple[str, ...]] = {
    "four_player_mode": ("sit_out", "deal_all"),
    "tun_mode": ("3xi1tun", "1xi1tun"),
    "zimo": ("+1tun", "fan", "none"),
    "huxi_table": ("standard", "luzhou"),
    "wei_shown": ("none", "one"),
    "pao_pays": ("each", "all"),
    "piao_mode": ("both", "loser", "winner"),
    "dealer_after_draw": ("stay3", "next"),
    "mingtang": ("basic", "half", "full", "changsha", "quanmin", "chenzhou", "luzhou"),
    "mingtang_stack": ("sum", "max"),
}

_BASE = RuleSet()

PRESETS: dict[str, RuleSet] = {
    "basic": replace(_BASE, preset="basic", mingtang="basic"),
    "half": replace(_BASE, preset="half", mingtang="half"),
    "full": replace(_BASE, preset="full", mingtang="full"),
    "changsha": replace(
        _BASE, preset="changsha", mingtang="changsha", zimo="none", yi_er_san_huxi=False, wei_shown="one"
    ),
    "quanmin": replace(_BASE, preset="quanmin", mingtang="quanmin"),
    "chenzhou": replace(
        _BASE,
        preset="chenzhou",
        mingtang="chenzhou",
        four_player_mode="deal_all",
        min_huxi=9,
        zimo="fan",
        wei_shown="one",
        discard_win=True,
        pao_pays="each",
        piao=True,
        chou_on_unable_chi=True,
        dealer_after_draw="next",
        mingtang_stack="max",
    ),
    "luzhou": replace(_BASE, preset="luzhou", mingtang="luzhou", huxi_table="luzhou", min_huxi=10),
}

# Player counts each preset supports (RULES.md §10, "players").
PRESET_PLAYERS: dict[str, tuple[int, ...]] = {
    "basic": (3,),
    "half": (3,),
    "full": (3,),
    "changsha": (3,),
    "quanmin": (3,),
    "chenzhou": (2, 3, 4),
    "luzhou": (2, 3, 4),
}

# Options a table may not override: they define the preset itself.
_FIXED = frozenset({"preset"})

OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(RuleSet) if f.name not in _FIXED)


def resolve_ruleset(preset: str, options: dict[str, Any] | None = None, players: int | None = None) -> RuleSet:
    """The preset with a table's overrides applied; RuleError names the offending option.

    >>> resolve_ruleset("chenzhou", {"min_huxi": 6}, players=4).deal_all
    True
    """
    if preset not in PRESETS:
        raise RuleError(f"preset: unknown preset {preset!r} (one of {', '.join(PRESETS)})")
    options = dict(options or {})
    if not isinstance(options, dict):
        raise RuleError("options: expected an object of option overrides")
    if players is not None:
        options["players"] = players
    defaults = PRESETS[preset]
    # §3.8: 底牌明示 is on by default for luzhou with 4 players (sit_out), off everywhere else.
    if (
        preset == "luzhou" and "bottom_shown" not in options and options.get("players") == 4
        and options.get("four_player_mode", defaults.four_player_mode) == "sit_out"
    ):
        options["bottom_shown"] = True
    changes: dict[str, Any] = {}
    for name, value in options.items():
        if name not in OPTION_NAMES:
            raise RuleError(f"{name}: unknown option")
        default = getattr(defaults, name)
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise RuleError(f"{name}: expected true or false")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RuleError(f"{name}: expected an integer")
        elif not isinstance(value, str):
            raise RuleError(f"{name}: expected a string")
        changes[name] = value
    return _check(replace(defaults, **changes))


def overrides_of(rs: RuleSet) -> dict[str, Any]:
    """The options that ``resolve_ruleset(rs.preset, options, players=rs.players)`` turns back into
    ``rs``: the fields that differ from the preset's, plus a default that depends on the player count
    when ``rs`` does without it (luzhou 4 players without bottom_shown, RULES.md §3.8).

    >>> overrides_of(resolve_ruleset("luzhou", {"bottom_shown": False}, players=4))
    {'bottom_shown': False}
    >>> overrides_of(resolve_ruleset("luzhou", players=4))
    {'bottom_shown': True}
    """
    want = rs.to_json()
    defaults = PRESETS[rs.preset].to_json()
    options = {k: v for k, v in want.items() if k not in ("preset", "players") and defaults[k] != v}
    implied = resolve_ruleset(rs.preset, options, players=rs.players).to_json()
    options.update({k: v for k, v in want.items() if implied[k] != v})
    return options


def _check(rs: RuleSet) -> RuleSet:
    if rs.preset not in PRESETS:
        raise RuleError(f"preset: unknown preset {rs.preset!r}")
    for name, allowed in _ENUMS.items():
        if getattr(rs, name) not in allowed:
            raise RuleError(f"{name}: {getattr(rs, name)!r} is not one of {', '.join(allowed)}")
    if rs.players not in PRESET_PLAYERS[rs.preset]:
        allowed = ", ".join(map(str, PRESET_PLAYERS[rs.preset]))
        raise RuleError(f"players: preset {rs.preset} is played by {allowed} players, not {rs.players}")
    if not 0 <= rs.min_huxi <= 30:
        raise RuleError("min_huxi: must be between 0 and 30")
    if rs.preset == "chenzhou" and rs.min_huxi not in (3, 6, 9, 15):
        raise RuleError("min_huxi: chenzhou plays from 9, 6 or 3 胡息 (or 15)")
    if rs.tun_mode == "1xi1tun" and rs.preset != "chenzhou":
        raise RuleError("tun_mode: 1xi1tun is a chenzhou option")
    if rs.mao_hu and rs.preset != "chenzhou":
        raise RuleError("mao_hu: 毛胡 is a chenzhou option")
    if rs.zimo_fan < 1 or rs.hong_hu_fan < 1 or rs.fang_pao_fan < 0:
        raise RuleError("zimo_fan: fans are positive integers")
    if rs.hong_hei_dian_2x and rs.mingtang != "chenzhou":
        raise RuleError("hong_hei_dian_2x: 红黑点2倍 is a chenzhou option")
    if rs.kai_di_you_xi and rs.mingtang != "quanmin":
        raise RuleError("kai_di_you_xi: 开底有喜 is a quanmin option")
    if rs.pao_pays != "each" and not rs.discard_win:
        raise RuleError("pao_pays: only applies with discard_win")
    if rs.bottom_shown and not rs.sit_out:
        raise RuleError("bottom_shown: 底牌明示 needs 4 players in four_player_mode sit_out")
    if rs.qi_hu not in (0, 15, 18, 21):
        raise RuleError("qi_hu: 起胡 is 0 (none), 15, 18 or 21")
    if not 0 <= rs.score_cap <= 100000:
        raise RuleError("score_cap: 封顶 is 0 (none) or a positive number")
    if rs.remove_cards not in (0, 20):
        raise RuleError("remove_cards: 抽牌 sets aside 0 or 20 cards")
    if rs.remove_cards and rs.players != 2:
        raise RuleError(f"remove_cards: 抽牌 is for 2 players, not {rs.players}")
    return rs
