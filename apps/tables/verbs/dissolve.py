"""解散: a seated player proposes, everyone must agree before the deadline, one refusal cancels.

The creator may dissolve a table that has not started; a club admin may force-dissolve any open
table. A hand cut short is marked dissolved and its seed revealed (nothing is settled). A table a
match arranged is never dissolved here: it ends with its round (``arranged.arranged_dissolve``).
"""

from __future__ import annotations

from datetime import timedelta

from apps.tables.models import DISSOLVE_SECONDS, TableStatus
from apps.tables.transaction.checks import check_not_arranged, check_open, may_manage
from apps.tables.transaction.context import TableError, now
from apps.tables.transaction.transitions import do_dissolve, do_dissolve_cancel
from apps.tables.transaction.unit import table_action


def dissolve_vote(*, user, table_id: int, vote: bool) -> None:
    if not isinstance(vote, bool):
        raise TableError("bad_message", "A dissolve vote is true or false.")
    with table_action(table_id) as ctx:
        table = ctx.table
        check_open(table)
        check_not_arranged(table)
        seat = ctx.seat_of(user)
        if seat is None:
            if vote and may_manage(user=user, table=table):
                do_dissolve(ctx, reason="admin", by=user.pk)
                return
            raise TableError("not_seated", "You have no seat at this table.")
        if table.status == TableStatus.WAITING:
            if not (vote and table.created_by_id == user.pk):
                raise TableError("not_allowed", "Only the creator may dissolve a table that has not started.")
            do_dissolve(ctx, reason="owner", by=user.pk)
        elif table.dissolve_by is None:
            if not vote:
                raise TableError("no_vote", "There is no dissolve vote to answer.")
            table.dissolve_by = seat.index
            table.dissolve_votes = {str(s.index): True for s in ctx.seats if s.bot or s.index == seat.index}
            table.dissolve_deadline = now() + timedelta(seconds=DISSOLVE_SECONDS)
            ctx.event("dissolve.propose", {"seat": seat.index, "deadline": table.dissolve_deadline.isoformat()})
        elif not vote:
            ctx.event("dissolve.vote", {"seat": seat.index, "vote": False})
            do_dissolve_cancel(ctx, reason="refused")
        else:
            table.dissolve_votes = {**table.dissolve_votes, str(seat.index): True}
            ctx.event("dissolve.vote", {"seat": seat.index, "vote": True})
        if table.is_open and table.dissolve_by is not None and all(
            table.dissolve_votes.get(str(s.index)) for s in ctx.seats
        ):
            do_dissolve(ctx, reason="vote", by=user.pk)


def table_force_dissolve(*, user, table_id: int) -> None:
    """A club admin (or the owner) ends a table at once."""
    with table_action(table_id) as ctx:
        check_open(ctx.table)
        check_not_arranged(ctx.table)
        if not may_manage(user=user, table=ctx.table):
            raise TableError("not_allowed", "Only club admins may force a table to dissolve.")
        do_dissolve(ctx, reason="admin", by=user.pk)
