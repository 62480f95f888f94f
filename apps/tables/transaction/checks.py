"""Who may do what at a table, and is the request well formed: the checks every verb makes.

Each raises ``TableError(code, message)`` (inside the unit of work, so a refusal changes nothing)
or returns what it checked.
"""

from __future__ import annotations

from typing import Any

from apps.clubs.access import is_manager
from apps.clubs.selectors import is_member, membership_for
from apps.engine.actions import IllegalAction
from apps.tables.models import Seat, Stage, Table, TableStatus
from apps.tables.transaction.context import Ctx, TableError
from apps.tables.transaction.outbox import view_seq


def check_member(*, user, table: Table) -> None:
    if not is_member(user=user, club_id=table.club_id):
        raise TableError("not_member", "Only members of this club may play here.")


def may_manage(*, user, table: Table) -> bool:
    """A club admin (or the owner): may force-dissolve any open table of the club."""
    return is_manager(membership_for(user=user, club=table.club))


def check_open(table: Table) -> None:
    if not table.is_open:
        check_not_ended(table)
        raise TableError("table_closed", "This table is closed.")


def check_not_ended(table: Table) -> None:
    """An ended table's refusal says how it ended: dissolved, or its session played to the end."""
    if table.status == TableStatus.DISSOLVED:
        raise TableError("table_closed", "This table has been dissolved.")
    if table.status == TableStatus.FINISHED:
        raise TableError("table_closed", "This table's session is over.")


def check_waiting(table: Table, message: str = "This table has already started.") -> None:
    if table.status != TableStatus.WAITING:
        check_not_ended(table)
        raise TableError("not_waiting", message)


def check_not_arranged(table: Table) -> None:
    """A table a match arranged ends with its match round, never by 解散 (its players, its
    managers alike)."""
    if table.arranged:
        raise TableError("match_no_dissolve", "A match table cannot be dissolved; it ends with its match round.")


def check_seated(ctx: Ctx, user) -> Seat:
    seat = ctx.seat_of(user)
    if seat is None:
        raise TableError("not_seated", "You have no seat at this table.")
    return seat


def check_act(ctx: Ctx, seat: Seat, seq: Any, wire: Any):
    """The checked path for untrusted input; returns the engine Action or raises TableError."""
    table, hand = ctx.table, ctx.engine_hand
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise TableError("bad_message", "An action carries the last seq you saw (an integer).")
    # A stale seq first: an action decided on an older view (e.g. sent while another seat's move
    # ended the hand) is refused as out of date, not as "no hand" - the client just resyncs.
    # ``seq`` counts the updates this seat was sent (``outbox.view_seq``): what others did out of
    # his sight (a pass) leaves his view, and so his action, current.
    current = view_seq(table, seat.index)
    if seq != current:
        raise TableError("stale_seq", f"Your view is out of date (seq {seq}, yours is at {current}).")
    if table.status != TableStatus.PLAYING or table.stage != Stage.HAND or hand is None or hand.finished:
        raise TableError("no_hand", "No hand is being played.")
    # Table policy: never 逃跑 at an arranged table (a match's round: its own absence rules, time-outs
    # and 托管 govern). The rest (escape_penalty, an open claim window, §8.6) is the engine's.
    if table.arranged and isinstance(wire, dict) and wire.get("type") == "escape":
        raise TableError("escape_off", "Leaving a hand (escape) is not allowed at this table.")
    try:  # the engine parses and checks the action in one call; its error's ``code`` is ours
        return hand.check(seat.index, wire)
    except IllegalAction as exc:
        raise TableError(exc.code, str(exc)) from exc
