"""The standings of a running or finished match as the format orders them: one builder for the
live standings (selectors), the final places and the prizes (services.rounds), so the three can
never disagree. Two queries whatever the number of entrants: the match's tables' results and the
running tables' scores (given by the caller as ``live``)."""

from __future__ import annotations

from . import formats
from .models import Entrant, EntrantStatus, Match, MatchTable


def played(entrants: list[Entrant]) -> list[Entrant]:
    """The entrants who took part once the match started (seated, out, or withdrawn while in)."""
    return [e for e in entrants if e.status in (EntrantStatus.ACTIVE, EntrantStatus.OUT)
            or (e.status == EntrantStatus.WITHDRAWN and e.out_round is not None)]


def ordered(match: Match, entrants: list[Entrant], *, live: dict[int, int] | None = None) -> list[Entrant]:
    """``entrants`` best first by the match's format; ``live``: the running table's score of each
    player seated now (added to his game points, chips and current stage)."""
    live = live or {}
    reached: dict[int, tuple[int, int]] = {}
    for number, results in MatchTable.objects.filter(match=match).values_list("round__number", "results"):
        for user_id, result in (results or {}).items():
            if number >= reached.get(int(user_id), (0, 0))[0]:
                reached[int(user_id)] = (number, int(result.get("game_points", 0)))
    rows = []
    for e in entrants:
        now = live.get(e.user_id, 0) if e.current_table_id else 0
        stage, stage_points = reached.get(e.user_id, (0, 0))
        if e.current_table_id:
            stage, stage_points = match.current_round, now
        rows.append(formats.Standing(
            user_id=e.user_id, registered_order=e.registered_order, playing=e.status == EntrantStatus.ACTIVE,
            match_points=e.match_points, game_points=e.game_points + now, best_hand=e.best_hand,
            chips=e.chips + now, out_round=e.out_round, reached=stage, stage_points=stage_points,
            had_bye=bool(e.byes), item=e,
        ))
    return [r.item for r in formats.of(match).order(rows)]
