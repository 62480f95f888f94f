"""解散: a seated player proposes, everyone must agree before the deadline, one refusal cancels.

The creator may dissolve a table that has not started; a club admin may force-dissolve any open
table. A hand cut short is marked dissolved and its seed revealed (nothing is settled).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from apps.clubs.models import AuditAction
from apps.clubs.selectors import can_manage_tables, membership_for
from apps.clubs.services import audit_log

from . import engine_io
from .context import Ctx, TableError, lock, now
from .models import HandStatus, TableStatus
from .services import check_open
from .session import end_session

DISSOLVE_SECONDS = 60


def dissolve_vote(*, user, table_id: int, vote: bool) -> None:
    if not isinstance(vote, bool):
        raise TableError("bad_message", "A dissolve vote is true or false.")
    with transaction.atomic():
        ctx = lock(table_id)
        table = ctx.table
        check_open(table)
        seat = ctx.seat_of(user)
        if seat is None:
            if vote and can_manage_tables(membership_for(user=user, club=table.club)):
                do_dissolve(ctx, reason="admin", by=user.pk)
                ctx.save()
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
        ctx.save()


def table_force_dissolve(*, user, table_id: int) -> None:
    """A club admin (or the owner) ends a table at once."""
    with transaction.atomic():
        ctx = lock(table_id)
        check_open(ctx.table)
        if not can_manage_tables(membership_for(user=user, club=ctx.table.club)):
            raise TableError("not_allowed", "Only club admins may force a table to dissolve.")
        do_dissolve(ctx, reason="admin", by=user.pk)
        ctx.save()


def do_dissolve_cancel(ctx: Ctx, *, reason: str) -> None:
    table = ctx.table
    if table.dissolve_by is None:
        return
    table.dissolve_by, table.dissolve_votes, table.dissolve_deadline = None, {}, None
    ctx.event("dissolve.cancel", {"reason": reason})


def do_dissolve(ctx: Ctx, *, reason: str, by: int | None) -> None:
    hand = ctx.hand
    if hand is not None and hand.status == HandStatus.PLAYING:
        hand.status, hand.finished_at = HandStatus.DISSOLVED, now()
        hand.seed = engine_io.hand_seed_hex(ctx.engine_hand)
        ctx.hand_dirty = True
        ctx.event("hand.dissolve", {"number": hand.number, "seed": hand.seed, "seed_hash": hand.seed_hash},
                  hand=hand)
    ctx.event("table.dissolve", {"reason": reason, "by": by})
    table = ctx.table
    action = AuditAction.TABLE_FORCE_DISSOLVE if reason == "admin" else AuditAction.TABLE_DISSOLVE
    audit_log(club_id=table.club_id, actor_id=by, action=action,
              detail={"table": table.pk, "table_name": table.name, "reason": reason,
                      "hands_played": table.hands_played})
    end_session(ctx, reason=reason)
