"""The 大局 summary of a table's session, per seat, from the stored finished hands (no replay).

One function, ``session_summary``, feeds both the table state at stage over (presenters.py) and
the 大局 replay page (apps/replays). A row is::

    {"index": int, "name": str, "total": int, "wins": int, "zimo": int,
     "dianpao": int | None, "best_huxi": int, "big_winner": bool}

- ``total``: the seat's running session score (``Seat.score``: score + piao lines of every hand);
- ``wins``: hands this seat won (胡); ``zimo``: of those, the 自摸 ones (``engine.is_zimo``);
- ``dianpao``: times this seat's discard was won on (放炮), only when the ruleset allows 胡 on a
  discard (``discard_win``, preset chenzhou); ``None`` otherwise;
- ``best_huxi``: the highest 胡息 of a hand this seat won, 0 if it won none;
- ``big_winner``: the seat(s) with the highest total, when that total is above 0.
"""

from __future__ import annotations

from typing import Any

from apps.engine.rules import RuleSet
from apps.engine.scoring.winning_card import is_zimo
from apps.tables.models import Hand, HandStatus, Seat, Stage, Table

# The hands' part of the summary of ended tables (stage over is final: no hand is added or changed
# after it), so the updates and pages of an ended table do not read all its hands again. Keyed
# with the end time too: a test database may give a rolled-back table's id to a new one.
_ENDED: dict[tuple, dict[int, dict[str, Any]]] = {}
MAX_ENDED = 2048


def session_summary(table: Table, seats: list[Seat] | None = None) -> list[dict[str, Any]]:
    """The summary rows of ``table`` in seat order (one query for the hands' results, none for an
    ended table whose summary this process made before)."""
    if seats is None:
        seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    if table.stage != Stage.OVER:
        stats = _hand_stats(table, seats)
    else:
        key = (table.pk, table.finished_at, table.hands_played, tuple(s.index for s in seats))
        stats = _ENDED.get(key)
        if stats is None:
            if len(_ENDED) >= MAX_ENDED:
                _ENDED.clear()
            stats = _ENDED[key] = _hand_stats(table, seats)
    top = max((s.score for s in seats), default=0)
    return [
        {"index": s.index, "name": s.user.name if s.user_id else "", "total": s.score, "wins": s.wins,
         **stats[s.index], "big_winner": top > 0 and s.score == top}
        for s in seats
    ]


def _hand_stats(table: Table, seats: list[Seat]) -> dict[int, dict[str, Any]]:
    """Per seat index: ``zimo``, ``dianpao`` and ``best_huxi`` over the table's finished hands."""
    pao = bool(RuleSet.from_json(table.ruleset).discard_win)
    stats = {s.index: {"zimo": 0, "dianpao": 0 if pao else None, "best_huxi": 0} for s in seats}
    finished = (Hand.objects.filter(table=table, status=HandStatus.FINISHED)
                .order_by("number").values_list("dealer", "result"))
    for dealer, result in finished:
        result = result if isinstance(result, dict) else {}
        winner = result.get("winner")
        if winner is None or int(winner) not in stats:
            continue
        winner = int(winner)
        row = stats[winner]
        if is_zimo(str(result.get("win_by") or ""), winner == dealer):
            row["zimo"] += 1
        huxi = (result.get("settlement") or {}).get("huxi")
        if isinstance(huxi, int) and not isinstance(huxi, bool) and huxi > row["best_huxi"]:
            row["best_huxi"] = huxi
        discarder = result.get("discarder")
        if pao and discarder is not None and int(discarder) in stats:
            stats[int(discarder)]["dianpao"] += 1
    return stats
