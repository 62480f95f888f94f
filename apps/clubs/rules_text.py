"""The rules of a template or table in words (zh-hans first, through gettext), and the options a
rule template may set per preset (RULES.md §10–§11), shared by the template form and ``describe``.

The engine (apps.engine.rules) stays the one judge of what is valid: this module only names and
explains its options.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

PRESET_LABELS = {
    "basic": pgettext_lazy("preset", "Basic"),
    "half": pgettext_lazy("preset", "Half mingtang"),
    "full": pgettext_lazy("preset", "Full mingtang"),
    "changsha": pgettext_lazy("preset", "Changsha"),
    "quanmin": pgettext_lazy("preset", "Quanmin"),
    "chenzhou": pgettext_lazy("preset", "Chenzhou"),
    "luzhou": pgettext_lazy("preset", "Luzhou"),
}

PRESET_DESCRIPTIONS = {
    "basic": gettext_lazy(
        "3 players. Mingtang: hong hu (10–12 red) 2 fan, dian hu (1 red) 3, hong wu (13+ red) 4, wu hu "
        "(no red) 5."
    ),
    "half": gettext_lazy("3 players. Basic mingtang plus dui dui hu (4 fan) and hai di."),
    "full": gettext_lazy(
        "3 players. Every mingtang: hong hu, dian hu, hong wu, wu hu, dui dui hu, big and small hands, "
        "hai di; a reveal or natural win doubles the huxi."
    ),
    "changsha": gettext_lazy(
        "3 players, Changsha rules: tian hu, di hu, peng peng hu, hei hu, shi hong, yi dian hong, 18 big "
        "or small, bi and shuang piao; yi er san scores no huxi, no zimo bonus, wei shows one card."
    ),
    "quanmin": gettext_lazy(
        "3 players. Quanmin mingtang with higher fans, tian hu ×4 huxi and shua hou ×6; option kai di you "
        "xi."
    ),
    "chenzhou": gettext_lazy(
        "2 to 4 players (4: everybody is dealt). Win on a discard (fang pao), piao, start from 9, 6 or 3 "
        "huxi; only zimo and fang pao add to another mingtang."
    ),
    "luzhou": gettext_lazy(
        "2 to 4 players (4: one sits out). Da er huxi table, win from 10 huxi; mingtang hong and wu."
    ),
}


def preset_label(preset: str) -> str:
    return str(PRESET_LABELS.get(preset, preset))


@dataclass(frozen=True)
class Option:
    """One engine option as a form field: ``kind`` is "bool", "int" or "choice"."""

    name: str
    kind: str
    label: Any
    help: Any = ""
    choices: tuple[tuple[Any, Any], ...] = ()
    min: int | None = None
    max: int | None = None
    # The player counts the option applies to (the form hides it at others); () for every count.
    players: tuple[int, ...] = ()


PIAO_MODE_CHOICES = (
    ("both", gettext_lazy("Loser and winner: each loser pays his own piao plus the winner's")),
    ("loser", gettext_lazy("Loser only: each loser pays his own piao")),
    ("winner", gettext_lazy("Winner only: each loser pays the winner's piao")),
)

_MIN_HUXI = Option(
    "min_huxi", "int", gettext_lazy("Minimum huxi to win"),
    gettext_lazy("A complete hand needs at least this much huxi (0 to 30)."), min=0, max=30,
)
_MIN_HUXI_CHENZHOU = Option(
    "min_huxi", "choice", gettext_lazy("Minimum huxi to win"),
    gettext_lazy("Chenzhou plays from 9, 6 or 3 huxi (or 15)."),
    choices=((9, "9"), (6, "6"), (3, "3"), (15, "15")),
)
_PIAO_MODE = Option(
    "piao_mode", "choice", gettext_lazy("Who pays piao"),
    gettext_lazy("Only with piao choices: before each hand every player picks a piao; on a win it is paid "
                 "on top of the score."),
    choices=PIAO_MODE_CHOICES,
)
_CHOU_HU = Option(
    "chou_hu", "bool", gettext_lazy("Chou hu"),
    gettext_lazy("A player who declined a win may not win on the same card again until his laid huxi "
                 "changes."),
)
_DEALER = Option(
    "dealer_after_draw", "choice", gettext_lazy("Dealer after a draw"),
    gettext_lazy("What happens to the deal when nobody wins (huang zhuang)."),
    choices=(("stay3", gettext_lazy("Stays, passes on after 3 draws in a row")),
             ("next", gettext_lazy("Passes to the next player"))),
)
_FOUR_PLAYERS = Option(
    "four_player_mode", "choice", gettext_lazy("With 4 players"),
    gettext_lazy("Only with 4 players."),
    choices=(("sit_out", gettext_lazy("The seat opposite the dealer sits out")),
             ("deal_all", gettext_lazy("Everybody is dealt (15/14/14/14)"))),
)
# 自摸: what a self-drawn win adds (every preset: clubs set it as they play it).
_ZIMO = Option("zimo", "choice", gettext_lazy("Zimo (self-drawn win)"), "",
               choices=(("fan", gettext_lazy("A mingtang with its own fan")), ("+1tun", gettext_lazy("+1 tun")),
                        ("none", gettext_lazy("Counts for nothing"))))
_ZIMO_FAN = Option("zimo_fan", "int", gettext_lazy("Fan of zimo"), gettext_lazy("Used when zimo is a mingtang."),
                   min=1, max=10)
# RULES.md §3.8: the 泸州 4-player stock (4 players, one sitting out; on by default for luzhou).
_BOTTOM_SHOWN = Option(
    "bottom_shown", "bool", gettext_lazy("Last stock card shown"),
    gettext_lazy("Only with 4 players, one sitting out: no reveal card; the last card of the stock is shown "
                 "to everyone (a red one is moved to the top) and nobody may win on it."),
    players=(4,),
)
# RULES.md §9.6: the room options every preset accepts.
_QI_HU = Option(
    "qi_hu", "choice", gettext_lazy("Qi hu (huxi to win)"),
    gettext_lazy("A win needs at least this much huxi, whatever the minimum above; the tun count does not "
                 "change."),
    choices=((0, gettext_lazy("No qi hu")), (15, "15"), (18, "18"), (21, "21")),
)
_SCORE_CAP = Option(
    "score_cap", "int", gettext_lazy("Score cap"),
    gettext_lazy("0: no cap. Each loser pays at most this score (before the base score; piao is paid on top)."),
    min=0, max=100000,
)
_FORCED_WIN = Option(
    "forced_win", "bool", gettext_lazy("Must win when possible"),
    gettext_lazy("A player who may win must win: hu is his only choice."),
)
_ESCAPE = Option(
    "escape_penalty", "bool", gettext_lazy("Escape (leave a hand)"),
    gettext_lazy("A player may leave a hand in play: it ends at once and he pays (max(0, (H − 12) ÷ 3) + 8) × "
                 "base score, H being the other players' huxi, split among them. Never at match tables."),
)
_REMOVE_CARDS = Option(
    "remove_cards", "choice", gettext_lazy("Set-aside cards (chou pai)"),
    gettext_lazy("Only with 2 players: the last 20 cards of the shuffled deck are set aside face down and never "
                 "drawn."),
    choices=((0, pgettext_lazy("set-aside cards", "None")), (20, gettext_lazy("20 cards"))),
    players=(2,),
)
_ROOM = (_QI_HU, _SCORE_CAP, _FORCED_WIN, _ESCAPE)

_CHENZHOU = (
    _MIN_HUXI_CHENZHOU,
    Option("tun_mode", "choice", gettext_lazy("Huxi to tun"), "",
           choices=(("3xi1tun", gettext_lazy("3 huxi make 1 tun")), ("1xi1tun", gettext_lazy("1 huxi makes 1 tun")))),
    Option("mao_hu", "bool", gettext_lazy("Mao hu"),
           gettext_lazy("A complete hand with 0 huxi may win and counts as 15 huxi.")),
    _ZIMO,
    _ZIMO_FAN,
    Option("discard_win", "bool", gettext_lazy("Win on a discard (fang pao)"), ""),
    Option("pao_pays", "choice", gettext_lazy("Who pays on a discard win"),
           gettext_lazy("Only with a win on a discard."),
           choices=(("each", gettext_lazy("Every loser pays")), ("all", gettext_lazy("The discarder pays for all")))),
    Option("fang_pao_fan", "int", gettext_lazy("Fan of fang pao"),
           gettext_lazy("0: by the number of players (2, 3 or 4)."), min=0, max=10),
    Option("chou_on_unable_chi", "bool", gettext_lazy("Chou when chi is impossible"),
           gettext_lazy("A card the next player could not eat because of bi becomes chou for him.")),
    Option("hong_hu_fan", "int", gettext_lazy("Fan of hong hu"),
           gettext_lazy("Counted as 3 fan unless set otherwise."), min=1, max=10),
    Option("hong_hei_dian_2x", "bool", gettext_lazy("Red and black mingtang count 2"),
           gettext_lazy("Hong hu, da hong hu, yi dian hong and hei hu all count 2 fan.")),
    _FOUR_PLAYERS,
    _BOTTOM_SHOWN,
    _REMOVE_CARDS,
)

PRESET_OPTIONS: dict[str, tuple[Option, ...]] = {
    "basic": (_MIN_HUXI, _ZIMO, _ZIMO_FAN, _PIAO_MODE, _CHOU_HU, _DEALER, *_ROOM),
    "half": (_MIN_HUXI, _ZIMO, _ZIMO_FAN, _PIAO_MODE, _CHOU_HU, _DEALER, *_ROOM),
    "full": (_MIN_HUXI, _ZIMO, _ZIMO_FAN, _PIAO_MODE, _CHOU_HU, _DEALER, *_ROOM),
    "changsha": (_MIN_HUXI, _ZIMO, _ZIMO_FAN, _PIAO_MODE, _CHOU_HU, _DEALER, *_ROOM),
    "quanmin": (
        _MIN_HUXI,
        Option("kai_di_you_xi", "bool", gettext_lazy("Kai di you xi"),
               gettext_lazy("A red reveal card adds 2 tun to the winner (red small) or 4 (red big).")),
        _ZIMO, _ZIMO_FAN, _PIAO_MODE, _CHOU_HU, _DEALER, *_ROOM,
    ),
    "chenzhou": (*_CHENZHOU, _PIAO_MODE, _CHOU_HU, _DEALER, *_ROOM),
    "luzhou": (_MIN_HUXI, _FOUR_PLAYERS, _BOTTOM_SHOWN, _REMOVE_CARDS, _ZIMO, _ZIMO_FAN, _PIAO_MODE, _CHOU_HU,
               _DEALER, *_ROOM),
}

# Every option some preset shows as a field (an override of any other option, stored before the
# form had no JSON field, is kept as it is: ``forms.RuleTemplateForm.kept_options``).
FIELD_OPTIONS = frozenset(o.name for options in PRESET_OPTIONS.values() for o in options)


def option_label(name: str) -> str:
    for options in PRESET_OPTIONS.values():
        for option in options:
            if option.name == name:
                return str(option.label)
    return name


# ---- the rules in words ------------------------------------------------------------------------


def describe(preset: str, options: dict | None = None, *, players: int | None = None,
             piao_choices: list | None = None, base_score: int | None = None, turn_seconds: int | None = None,
             claim_seconds: int | None = None, fee: int | None = None, fee_payer: str | None = None,
             hands_per_session: int | None = None) -> list[str]:
    """Short sentences saying what a template (or a table's snapshot) plays, in the active language.

    ``options`` are the overrides of the preset (as stored); an invalid set is described as far as it
    goes (the preset's defaults fill in), never raises.
    """
    from apps.engine.rules import PRESETS, RuleError, resolve_ruleset

    if preset not in PRESETS:
        return [_("Unknown preset %(preset)s.") % {"preset": preset}]
    try:
        rules = resolve_ruleset(preset, options or {}, players=players)
    except (RuleError, TypeError):
        rules = PRESETS[preset]
    players = rules.players if players is None else players
    lines = [
        _("%(preset)s, %(players)s players.") % {"preset": preset_label(preset), "players": players},
        str(PRESET_DESCRIPTIONS[preset]),
    ]
    if players == 4 and preset in ("chenzhou", "luzhou"):
        lines.append(_("With 4 players everybody is dealt.") if rules.deal_all
                     else _("With 4 players the seat opposite the dealer sits out."))
    lines.append(_("A win needs at least %(n)s huxi.") % {"n": rules.min_huxi})
    if rules.tun_mode == "1xi1tun":
        lines.append(_("Every huxi is 1 tun."))
    elif rules.min_huxi != 15:
        lines.append(_("%(n)s huxi make 1 tun, then 1 more tun every 3 huxi.") % {"n": rules.min_huxi})
    else:
        lines.append(_("3 huxi make 1 tun."))
    if rules.mao_hu:
        lines.append(_("Mao hu: a complete hand with 0 huxi counts as 15 huxi."))
    if rules.zimo == "+1tun":
        lines.append(_("Zimo adds 1 tun."))
    elif rules.zimo == "fan":
        lines.append(_("Zimo is a mingtang of %(n)s fan.") % {"n": rules.zimo_fan})
    else:
        lines.append(_("Zimo adds nothing."))
    if rules.discard_win:
        fan = rules.fang_pao_fan or _("as many as the players")
        if rules.pao_pays == "all":
            lines.append(_("Win on a discard allowed (fang pao, fan: %(fan)s); the discarder pays for all.")
                         % {"fan": fan})
        else:
            lines.append(_("Win on a discard allowed (fang pao, fan: %(fan)s); every loser pays.") % {"fan": fan})
    else:
        lines.append(_("No win on a discard."))
    if rules.mingtang == "chenzhou" and rules.hong_hu_fan != 3:
        lines.append(_("Hong hu counts %(n)s fan.") % {"n": rules.hong_hu_fan})
    if rules.hong_hei_dian_2x:
        lines.append(_("Red and black mingtang all count 2 fan."))
    if rules.kai_di_you_xi:
        lines.append(_("Kai di you xi: a red reveal card adds 2 tun (small) or 4 tun (big) to the winner."))
    if rules.chou_on_unable_chi:
        lines.append(_("A card the next player cannot eat because of bi becomes chou for him."))
    if rules.chou_hu:
        lines.append(_("Chou hu: a declined win may not be taken on the same card until the laid huxi change."))
    if rules.bottom_shown:
        lines.append(_("Last stock card shown: no reveal card; the last card of the stock lies face up for "
                       "everyone (a red one is moved to the top) and nobody may win on it."))
    if rules.remove_cards:
        lines.append(_("Chou pai: %(n)s cards are set aside face down and never drawn.") % {"n": rules.remove_cards})
    if rules.qi_hu:
        lines.append(_("Qi hu: a win needs at least %(n)s huxi.") % {"n": rules.qi_hu})
    if rules.score_cap:
        lines.append(_("Score cap: each loser pays at most %(n)s (before the base score; piao on top).")
                     % {"n": rules.score_cap})
    if rules.forced_win:
        lines.append(_("You hu bi hu: a player who may win must win."))
    if rules.escape_penalty:
        lines.append(_("Escape allowed (not while a card awaits answers): a player who leaves a hand ends it and "
                       "pays (max(0, (H − 12) ÷ 3) + 8) × base score, H being the other players' huxi, split "
                       "among them."))
    lines.append(_("After a draw the deal passes to the next player.") if rules.dealer_after_draw == "next"
                 else _("After a draw the dealer stays; the deal passes on after 3 draws in a row."))
    if piao_choices:
        mode = {"both": _("the loser's and the winner's"), "loser": _("the loser's"),
                "winner": _("the winner's")}[rules.piao_mode]
        lines.append(_("Piao before each hand: %(choices)s; a loser pays %(mode)s piao.")
                     % {"choices": "/".join(str(v) for v in piao_choices), "mode": mode})
    else:
        lines.append(_("No piao."))
    if base_score is not None:
        lines.append(_("Base score %(n)s.") % {"n": base_score})
    if hands_per_session is not None:
        lines.append(_("%(n)s hands per session.") % {"n": hands_per_session})
    if turn_seconds is not None or claim_seconds is not None:
        parts = []
        if turn_seconds is not None:
            parts.append(_("%(n)s seconds to discard") % {"n": turn_seconds})
        if claim_seconds is not None:
            parts.append(_("%(n)s seconds to answer a claim") % {"n": claim_seconds})
        lines.append(_("Time limits: %(limits)s.") % {"limits": _(", ").join(parts)})
    if fee is not None:
        if not fee:
            lines.append(_("No table fee."))
        elif fee_payer == "winner":
            lines.append(_("Table fee %(n)s per hand, paid by the winner.") % {"n": fee})
        else:
            lines.append(_("Table fee %(n)s per hand, paid by every player.") % {"n": fee})
    return lines


def describe_template(template) -> list[str]:
    return describe(template.preset, template.options, players=template.players,
                    piao_choices=template.piao_choices, base_score=template.base_score,
                    turn_seconds=template.turn_seconds, claim_seconds=template.claim_seconds,
                    fee=template.fee, fee_payer=template.fee_payer, hands_per_session=template.hands_per_session)


def describe_snapshot(rules, *, hands_per_session=None, fee=None, fee_payer=None) -> list[str]:
    """The rules in words of a rule snapshot (a table's or a match's: ``RuleSnapshot``), whose
    ruleset was resolved when it was taken."""
    ruleset = dict(rules.ruleset or {})
    options = {k: v for k, v in ruleset.items() if k not in ("preset", "players")} or dict(rules.options or {})
    return describe(rules.preset, options, players=rules.players, piao_choices=rules.piao_choices,
                    base_score=rules.base_score, turn_seconds=rules.turn_seconds,
                    claim_seconds=rules.claim_seconds, fee=fee, fee_payer=fee_payer,
                    hands_per_session=hands_per_session)


def describe_table(table) -> list[str]:
    """A table's own snapshot of rules, its hands and its fee, and its seating rules (issue #47)."""
    lines = describe_snapshot(table, hands_per_session=table.hands_per_session,
                              fee=None if table.practice else table.fee, fee_payer=table.fee_payer)
    if table.forbid_same_network:
        lines.append(_("No two players from one network (signed in from one IP address in the last 7 days)."))
    if table.forbid_near:
        lines.append(_("No two players close together (a shared location within 100 m)."))
    if table.no_phrases:
        lines.append(_("Quick phrases and reactions are turned off."))
    return lines
