"""Match formats: one pure class per format, each in its own file (a new format is a new file and a
line in ``FORMATS``), and the arithmetic they share (arithmetic.py: match points, byes, the
elimination line, knockout advancement, prizes). No Django here (import-linter contract)."""

from __future__ import annotations

from typing import Any

from .arithmetic import (
    DEFAULT_POINTS_BY_RANK,
    TIE_BREAKS,
    bye_points,
    check_points_by_rank,
    check_prize_scheme,
    eliminate,
    elimination_line,
    format_points,
    is_final,
    knockout_advance,
    points_scale,
    prize_amounts,
    standings_key,
    standings_order,
    table_count,
    table_match_points,
)
from .base import FINAL, ROUND, MatchFormat, NextRound, Params, RoundDone, Standing
from .elimination import Elimination
from .fixed import Fixed
from .knockout import Knockout

FORMATS: dict[str, type[MatchFormat]] = {cls.key: cls for cls in (Fixed, Elimination, Knockout)}


def of(match: Any) -> MatchFormat:
    """The format of a match (any object with a ``format`` key and the format's settings)."""
    try:
        cls = FORMATS[match.format]
    except KeyError:
        raise ValueError(f"unknown match format: {match.format!r}") from None
    return cls(Params.of(match))


__all__ = [
    "DEFAULT_POINTS_BY_RANK", "FINAL", "FORMATS", "ROUND", "TIE_BREAKS", "Elimination", "Fixed", "Knockout",
    "MatchFormat", "NextRound", "Params", "RoundDone", "Standing", "bye_points", "check_points_by_rank",
    "check_prize_scheme", "eliminate", "elimination_line", "format_points", "is_final", "knockout_advance",
    "of", "points_scale", "prize_amounts", "standings_key", "standings_order", "table_count",
    "table_match_points",
]
