"""Read side of the replays: one hand's viewer data (frames, seats, settlement, proof), a table's ended
hands (大局) with its session totals.

Callers check access first (apps/replays/access.py): ``replay_data`` shows every hidden card.
The query count is fixed: the hand's events are read once (the engine record and the action
times), the players' names once; the frames are computed from them (apps.engine.records.timeline).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from apps.engine.records import timeline
from apps.tables.models import Hand, Seat, Table
from apps.tables.read.presenters import hand_fees
from apps.tables.read.summary import session_summary
from apps.tables.storage.eventlog import hand_events
from apps.tables.storage.records import record_from_rows

from .access import ENDED, MANAGER, ReplayAccess, club_role
from .models import ShareCode

# The deciders of an action (the "by" of its log event) that were not the seat's player.
AUTO_DECIDERS = ("timeout", "tuoguan")


def _ms(dt) -> int | None:
    return int(dt.timestamp() * 1000) if dt else None


def seat_names(players: dict, *, users: dict[int, Any] | None = None) -> list[dict[str, Any]]:
    """``[{"index", "user_id", "name", "bot"}]`` for a hand's frozen seat map (a bot: name "")."""
    seats = []
    for seat in sorted(players, key=int):
        user_id = players[seat]
        user = (users or {}).get(int(user_id)) if user_id is not None else None
        seats.append({"index": int(seat), "user_id": user_id, "name": user.name if user else "",
                      "bot": user_id is None})
    return seats


def _users(ids) -> dict[int, Any]:
    ids = {int(i) for i in ids if i is not None}
    if not ids:
        return {}
    return {u.pk: u for u in get_user_model().objects.filter(pk__in=ids)}


def annotate_frames(frames: list[dict]) -> None:
    """Mark each step that declined a win: its actor could 胡 on the open claim window (previous
    frame's ``claim``) and chose something else (过, 吃, 碰). What auditors look for first."""
    previous = None
    for frame in frames:
        claim = (previous or {}).get("claim")
        actor, action = frame.get("actor"), frame.get("action") or {}
        options = (claim or {}).get("options") or {}
        mine = options.get(actor, options.get(str(actor), [])) if actor is not None else []
        frame["declined_hu"] = bool("hu" in mine and action.get("type") != "hu")
        previous = frame["view"]


def replay_data(access: ReplayAccess) -> dict[str, Any]:
    """Everything the viewer page renders, JSON-able. Only for ended hands (access checked)."""
    hand = access.hand
    table = hand.table
    events = hand_events(hand)
    frames = timeline.frames(record_from_rows(hand, [(e.type, e.payload) for e in events]))
    annotate_frames(frames)
    actions = [e for e in events if e.type == "action"]
    start = _ms(hand.started_at)
    for frame in frames:
        k = frame["index"]
        frame["time"] = start if k == 0 else (_ms(actions[k - 1].created_at) if k - 1 < len(actions) else None)
        # Who decided it when the player did not: "timeout" (the clock ran out: the default
        # action) or "tuoguan" (托管 played for him); a bot seat's moves are its own.
        by = actions[k - 1].payload.get("by") if 0 < k <= len(actions) else None
        frame["auto"] = by if by in AUTO_DECIDERS else None
    players = hand.players or {}
    fees = hand_fees(table, hand)
    return {
        "hand": {
            "id": hand.pk, "number": hand.number, "status": hand.status, "dealer": hand.dealer,
            "seed": hand.seed, "seed_hash": hand.seed_hash, "piao": hand.piao or {},
            "result": hand.result, "totals": hand.totals, "fees": fees,
            "started_at": start, "finished_at": _ms(hand.finished_at),
        },
        "table": {"name": table.name, "preset": table.preset, "players": table.players,
                  "hands_per_session": table.hands_per_session, "base_score": table.base_score,
                  "practice": table.practice},
        "seats": seat_names(players, users=_users(players.values())),
        "me": access.seat,
        "frames": frames,
    }


def ended_hands(table: Table) -> QuerySet[Hand]:
    return Hand.objects.filter(table=table, status__in=ENDED).order_by("number")


def table_hands(table: Table) -> dict[str, Any]:
    """The 大局 page: the table's ended hands (winner, each seat's change) and the session totals.

    Seats are the table's current ones; a hand whose seat changed hands shows its own player."""
    hands = list(ended_hands(table))
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    users = _users({v for h in hands for v in (h.players or {}).values()} | {s.user_id for s in seats})
    columns = [{"index": s.index, "name": s.user.name if s.user_id else "", "bot": bool(s.bot) or not s.user_id}
               for s in seats]
    totals = {s.index: 0 for s in seats}
    rows = []
    for hand in hands:
        changes = {int(k): int(v) for k, v in ((hand.totals or {}).get("total") or {}).items()}
        for seat, value in changes.items():
            totals[seat] = totals.get(seat, 0) + value
        winner = (hand.result or {}).get("winner")
        escape = (hand.result or {}).get("escape")  # 逃跑 (RULES.md §8.6): no winner, no draw
        names = {s["index"]: s for s in seat_names(hand.players or {}, users=users)}
        rows.append({
            "hand": hand,
            "winner": winner,
            "winner_seat": names.get(winner) if winner is not None else None,
            "escape": escape,
            "escape_seat": names.get(escape) if escape is not None else None,
            "score": ((hand.result or {}).get("settlement") or {}).get("score"),
            "cap": ((hand.result or {}).get("settlement") or {}).get("cap"),
            "changes": [changes.get(c["index"], 0) for c in columns],
            "players": [names.get(c["index"]) for c in columns],
        })
    # The 大局 summary of an ended session: the same rows as the table page's (tables.summary).
    summary = None if table.is_open else session_summary(table, seats)
    return {"columns": columns, "rows": rows, "totals": [totals.get(c["index"], 0) for c in columns],
            "summary": summary}


def share_codes_for(*, hand: Hand, user, manager: bool | None = None) -> list[ShareCode]:
    """The codes of ``hand`` this viewer may see and manage: his own, or every one for a manager
    (``manager``: already known from the viewer's access, else looked up)."""
    codes = ShareCode.objects.filter(hand=hand).select_related("created_by")
    if manager is None:
        manager = club_role(user, hand.table.club_id) == MANAGER
    if not manager:
        codes = codes.filter(created_by=user)
    return list(codes)
