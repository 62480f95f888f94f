"""Shared helpers for the scoring tests: notation in, results out (no Django)."""

from __future__ import annotations

from apps.engine.cards import parse_card
from apps.engine.groups import Group
from apps.engine.rules import resolve_ruleset
from apps.engine.scoring.fast import ScoreResult, score_win


def cards(text: str) -> list[int]:
    return [parse_card(x) for x in text.split()]


def laid(*items: str) -> list[Group]:
    """laid("pao s9 s9 s9 s9", "chi s4 s5 s6") -> Groups."""
    out = []
    for item in items:
        kind, *rest = item.split()
        out.append(Group(kind, tuple(parse_card(x) for x in rest)))
    return out


def score(
    preset: str, hand: str, groups: tuple[str, ...] | list[str] = (), win: str | None = None,
    win_by: str = "self_draw", options: dict | None = None, players: int | None = None, **kw
) -> ScoreResult:
    rs = resolve_ruleset(preset, options or {}, players=players)
    return score_win(rs, cards(hand), laid(*groups), parse_card(win) if win else None, win_by, **kw)


def kinds(result: ScoreResult) -> list[str]:
    return [g.kind for g, _ in result.groups]


def names(result: ScoreResult) -> dict[str, int]:
    return dict(result.mingtang)
