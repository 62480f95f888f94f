"""A table's life: open, join, bots, ready, piao, deal, settle, next hand, session end.

Every public verb is keyword-only and runs one transaction: lock the Table row
(``select_for_update``), check (``check_*``), change (``do_*``), append hash-chained events, save,
and only after commit notify the channel layer (outbox.py). Seats on auto-play (bots, 托管) are
then played through the same path by ``play.autoplay``. Errors raise ``TableError(code, message)``
inside the transaction, so they change nothing.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.clubs.models import AuditAction, RuleTemplate
from apps.clubs.selectors import membership_for
from apps.clubs.services import audit_log

from .context import Ctx, TableError, lock
from .models import Seat, Stage, Table, TableEvent, TableStatus
from .session import maybe_deal_after_piao, maybe_start, set_play_deadline

__all__ = ["TableError"]

BOT_KINDS = ("greedy", "random")


# ---- checks ------------------------------------------------------------------------------------


def check_member(*, user, table: Table):
    membership = membership_for(user=user, club=table.club)
    if membership is None:
        raise TableError("not_member", "Only members of this club may play here.")
    return membership


def check_open(table: Table) -> None:
    if not table.is_open:
        raise TableError("table_closed", "This table is closed.")


def check_seated(ctx: Ctx, user) -> Seat:
    seat = ctx.seat_of(user)
    if seat is None:
        raise TableError("not_seated", "You have no seat at this table.")
    return seat


# ---- opening, joining, bots --------------------------------------------------------------------


def table_open(*, user, template: RuleTemplate, practice: bool = False, name: str = "") -> Table:
    """A member opens a table from a rule template and takes seat 0; practice tables fill with bots."""
    with transaction.atomic():
        rules = template.ruleset()
        table = Table(
            club=template.club, template=template, name=(name or template.name)[:60], preset=template.preset,
            options=dict(template.options), players=template.players, base_score=template.base_score,
            piao_choices=list(template.piao_choices or []), hands_per_session=template.hands_per_session,
            turn_seconds=template.turn_seconds, fee=template.fee, fee_payer=template.fee_payer,
            ruleset=rules.to_json(), practice=practice, created_by=user,
        )
        check_member(user=user, table=table)
        table.save()
        Seat.objects.bulk_create([Seat(table=table, index=i) for i in range(table.players)])
        ctx = lock(table.pk)
        ctx.event("table.open", {"name": table.name, "preset": table.preset, "players": table.players,
                                 "ruleset": table.ruleset, "practice": practice, "by": user.pk,
                                 "fee": table.fee, "fee_payer": table.fee_payer})
        audit_log(club_id=table.club_id, actor=user, action=AuditAction.TABLE_OPEN,
                  detail={"table": table.pk, "table_name": table.name, "template": template.name,
                          "practice": practice})
        do_sit(ctx, ctx.seats[0], user)
        if practice:
            for seat in ctx.seats[1:]:
                do_add_bot(ctx, seat, "greedy")
        ctx.save()
    return table


def table_join(*, user, table_id: int, index: int | None = None) -> Seat:
    with transaction.atomic():
        ctx = lock(table_id)
        check_member(user=user, table=ctx.table)
        if ctx.table.status != TableStatus.WAITING:
            raise TableError("not_waiting", "This table has already started.")
        if ctx.seat_of(user) is not None:
            raise TableError("already_seated", "You already have a seat here.")
        free = [s for s in ctx.seats if not s.taken and (index is None or s.index == index)]
        if not free:
            raise TableError("table_full", "No free seat.")
        do_sit(ctx, free[0], user)
        ctx.save()
        return free[0]


def table_leave(*, user, table_id: int) -> None:
    with transaction.atomic():
        ctx = lock(table_id)
        seat = check_seated(ctx, user)
        if ctx.table.status != TableStatus.WAITING:
            raise TableError("not_waiting", "You cannot leave a table that has started; ask to dissolve.")
        do_vacate(ctx, seat)
        ctx.save()


def seats_vacate(*, user_id: int, club_id: int) -> list[int]:
    """Free the user's seats at the club's waiting tables (he is no longer a member); the ids."""
    ids = list(
        Seat.objects.filter(user_id=user_id, table__club_id=club_id, table__status=TableStatus.WAITING)
        .values_list("table_id", flat=True)
    )
    for table_id in ids:
        ctx = lock(table_id)
        seat = next((s for s in ctx.seats if s.user_id == user_id), None)
        if seat is None or ctx.table.status != TableStatus.WAITING:
            continue
        do_vacate(ctx, seat, reason="not_member")
        ctx.save()
    return ids


def seat_add_bot(*, user, table_id: int, kind: str = "greedy") -> Seat:
    """The creator of a practice table fills a free seat with a bot."""
    with transaction.atomic():
        ctx = lock(table_id)
        table = ctx.table
        if not table.practice or table.created_by_id != user.pk:
            raise TableError("not_allowed", "Only the creator of a practice table may add bots.")
        if table.status != TableStatus.WAITING:
            raise TableError("not_waiting", "This table has already started.")
        if kind not in BOT_KINDS:
            raise TableError("bad_bot", "Unknown bot kind.")
        free = [s for s in ctx.seats if not s.taken]
        if not free:
            raise TableError("table_full", "No free seat.")
        do_add_bot(ctx, free[0], kind)
        maybe_start(ctx)
        ctx.save()
    from .play import autoplay

    autoplay(table_id=table_id)
    return free[0]


def do_sit(ctx: Ctx, seat: Seat, user) -> None:
    seat.user, seat.bot, seat.ready = user, "", False
    ctx.touch(seat)
    ctx.event("seat.join", {"seat": seat.index, "user": user.pk, "name": user.name})


def do_vacate(ctx: Ctx, seat: Seat, *, reason: str | None = None) -> None:
    """The seat's player leaves a waiting table (by himself, or as he is no longer a member)."""
    seat.user, seat.ready, seat.online = None, False, False
    ctx.touch(seat)
    ctx.event("seat.leave", {"seat": seat.index, **({"reason": reason} if reason else {})})


def do_add_bot(ctx: Ctx, seat: Seat, kind: str) -> None:
    seat.user, seat.bot, seat.ready, seat.online = None, kind, True, True
    ctx.touch(seat)
    ctx.event("seat.bot", {"seat": seat.index, "bot": kind})


# ---- ready, piao, presence, 托管 ----------------------------------------------------------------


def seat_ready(*, user, table_id: int) -> None:
    with transaction.atomic():
        ctx = lock(table_id)
        check_open(ctx.table)
        seat = check_seated(ctx, user)
        if ctx.table.stage == Stage.SEATING:  # a banned or removed member is not dealt in
            check_member(user=user, table=ctx.table)
        if ctx.table.stage not in (Stage.SEATING, Stage.SETTLE):
            raise TableError("bad_stage", "Not the time to get ready.")
        if not seat.ready:
            seat.ready = True
            seat.timeouts, seat.tuoguan = 0, False
            ctx.touch(seat)
            ctx.event("seat.ready", {"seat": seat.index})
            maybe_start(ctx)
        ctx.save()
    from .play import autoplay

    autoplay(table_id=table_id)


def piao_choose(*, user, table_id: int, value: Any) -> None:
    with transaction.atomic():
        ctx = lock(table_id)
        seat = check_seated(ctx, user)
        if ctx.table.stage != Stage.PIAO:
            raise TableError("bad_stage", "Not the time to choose piao.")
        if isinstance(value, bool) or value not in ctx.table.piao_choices:
            raise TableError("bad_piao", f"Piao must be one of {ctx.table.piao_choices}.")
        if seat.piao is not None:
            raise TableError("piao_chosen", "You have already chosen.")
        seat.piao = value
        seat.timeouts, seat.tuoguan = 0, False
        ctx.touch(seat)
        ctx.event("piao.choose", {"seat": seat.index})
        maybe_deal_after_piao(ctx)
        ctx.save()
    from .play import autoplay

    autoplay(table_id=table_id)


def seat_set_online(*, user, table_id: int, online: bool) -> None:
    with transaction.atomic():
        ctx = lock(table_id)
        seat = ctx.seat_of(user)
        if seat is None or seat.online == online:
            return
        seat.online = online
        ctx.touch(seat)
        ctx.event("seat.online", {"seat": seat.index, "online": online})
        ctx.save()


def seat_set_tuoguan(*, user, table_id: int, on: bool) -> None:
    if not isinstance(on, bool):  # "false" is a string, not a no: refuse what is not a JSON boolean
        raise TableError("bad_message", "托管 is switched with true or false.")
    with transaction.atomic():
        ctx = lock(table_id)
        seat = check_seated(ctx, user)
        do_set_tuoguan(ctx, seat, on)
        ctx.save()
    from .play import autoplay

    autoplay(table_id=table_id)


def do_set_tuoguan(ctx: Ctx, seat: Seat, on: bool) -> None:
    if seat.tuoguan != on:
        seat.tuoguan = on
        if not on:
            seat.timeouts = 0
        ctx.touch(seat)
        ctx.event("seat.tuoguan", {"seat": seat.index, "on": on})
        hand = ctx.engine_hand
        if ctx.table.stage == Stage.HAND and hand is not None and not hand.finished:
            set_play_deadline(ctx)  # a bot's short deadline now (or the human's own again)


def events_since(*, table_id: int, after_seq: int) -> list[TableEvent]:
    return list(TableEvent.objects.filter(table_id=table_id, seq__gt=after_seq).order_by("seq"))
