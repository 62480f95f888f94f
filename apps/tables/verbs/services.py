"""A table's life: open, join, bots, ready, piao, deal, settle, next hand, session end.

Every public verb is keyword-only and is one unit of work (unit.py, ``table_action``): check
(checks.py), change (transitions.py, session.py); the unit saves, appends the hash-chained events,
publishes after the commit and lets bots and 托管 seats play. Errors raise ``TableError(code,
message)`` inside the transaction, so they change nothing. Moves in a hand are in play.py, 解散 in
dissolve.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.clubs.models import AuditAction, RuleTemplate
from apps.clubs.services import audit_log
from apps.tables.models import BOT_KINDS, BotLevel, Closeness, Seat, Stage, Table, TableStatus
from apps.tables.read import nearby
from apps.tables.read.selectors import access_for
from apps.tables.transaction import nearby as nearby_writes
from apps.tables.transaction.checks import check_member, check_open, check_seated, check_waiting
from apps.tables.transaction.context import TableError, lock
from apps.tables.transaction.session import maybe_deal_after_piao, maybe_start, note_arrival
from apps.tables.transaction.snapshot import snapshot_of
from apps.tables.transaction.transitions import do_add_bot, do_set_tuoguan, do_sit, do_vacate
from apps.tables.transaction.unit import autoplay, table_action

__all__ = ["TableError"]



# ---- opening, joining, bots --------------------------------------------------------------------


def table_open(*, user, template: RuleTemplate, practice: bool = False, name: str = "",
               bot_level: str = BotLevel.NORMAL) -> Table:
    """A member opens a table from a rule template and takes seat 0; practice tables fill with bots
    of ``bot_level`` (a ``BotLevel``; anything else is refused and nothing is created)."""
    if bot_level not in BotLevel.values:
        raise TableError("bad_bot", "Unknown bot level.")
    table = Table(
        club=template.club, template=template, name=(name or template.name)[:60],
        hands_per_session=template.hands_per_session, fee=template.fee, fee_payer=template.fee_payer,
        practice=practice, created_by=user,
    )
    table.copy_rules(template)
    return table_create(user=user, table=table, template_name=template.name, bot_level=bot_level)


def table_create(*, user, table: Table, template_name: str, seating=None, extra: dict | None = None,
                 bot_level: str = BotLevel.NORMAL) -> Table:
    """Save ``table`` (an unsaved rule snapshot, opened by member ``user``) with empty seats, log
    its opening (``table.open``, the club audit log, both with ``extra``) and seat it: by
    ``seating(ctx)``, else ``user`` in seat 0 and, on a practice table, bots of ``bot_level`` in the others.
    The one way a player's table comes to be (``table_open``, the rematch in rematch.py)."""
    practice = table.practice
    with transaction.atomic():
        check_member(user=user, table=table)
        table.save()
        Seat.objects.bulk_create([Seat(table=table, index=i) for i in range(table.players)])
        with table_action(table.pk) as ctx:
            ctx.event("table.open", {"name": table.name, "preset": table.preset, "players": table.players,
                                     "ruleset": table.ruleset, "practice": practice, "by": user.pk,
                                     "fee": table.fee, "fee_payer": table.fee_payer, **(extra or {})})
            audit_log(club_id=table.club_id, actor=user, action=AuditAction.TABLE_OPEN,
                      detail={"table": table.pk, "table_name": table.name, "template": template_name,
                              "practice": practice, **(extra or {})})
            if seating is not None:
                seating(ctx)
            else:
                do_sit(ctx, ctx.seats[0], user)
                if practice:
                    for seat in ctx.seats[1:]:
                        do_add_bot(ctx, seat, bot_level)
    return table


def table_join(*, user, table_id: int, index: int | None = None) -> Seat:
    with table_action(table_id) as ctx:
        check_member(user=user, table=ctx.table)
        check_waiting(ctx.table)
        if ctx.seat_of(user) is not None:
            raise TableError("already_seated", "You already have a seat here.")
        free = [s for s in ctx.seats if not s.taken and (index is None or s.index == index)]
        if not free:
            raise TableError("table_full", "No free seat.")
        refusal = nearby.seat_refusal(table=ctx.table, seats=ctx.seats, user=user)
        if refusal:
            raise TableError("seating_rule", refusal)
        do_sit(ctx, free[0], user)
        return free[0]


def position_share(*, user, table_id: int, lat: Any, lon: Any) -> list[str]:
    """A seated player at a waiting table shares his location (issue #47): the class of his
    distance to each other seated player who shared is stored, never the coordinates; the names of
    those within 100 m. Bad numbers are refused and change nothing; on a table whose rules forbid
    players close together (``forbid_near``) a sharer within 100 m of someone loses his seat and is
    told why (``TableError("seating_rule")`` after the unit commits)."""
    position = nearby.parse_position(lat, lon)
    if position is None:
        raise TableError("bad_position", _("A location is a latitude from -90 to 90 and a longitude "
                                           "from -180 to 180."))
    refusal = None
    with table_action(table_id) as ctx:
        seat = check_seated(ctx, user)
        check_waiting(ctx.table, _("Location is shared only before the first hand."))
        others = {s.user_id: s.user.name for s in ctx.seats if s.user_id and s.user_id != user.pk}
        found = nearby_writes.measure(table_id=ctx.table.pk, user_id=user.pk, position=position, others=list(others))
        close = [others[u] for u, c in found.items() if c == Closeness.M100]
        ctx.event("nearby.share", {"seat": seat.index})
        if close and ctx.table.forbid_near:
            refusal = nearby.too_near(close[0])
            do_vacate(ctx, seat, reason="too_near")
    if refusal:
        raise TableError("seating_rule", refusal)
    return close


def table_leave(*, user, table_id: int) -> None:
    with table_action(table_id) as ctx:
        seat = check_seated(ctx, user)
        check_waiting(ctx.table, "You cannot leave a table that has started; ask to dissolve.")
        do_vacate(ctx, seat)


def seats_vacate(*, user_id: int, club_id: int) -> list[int]:
    """Free the user's seats at the club's waiting tables (he is no longer a member); the ids.

    Called inside the clubs transaction that ends the membership: the seats go with it, or neither.
    """
    ids = list(
        Seat.objects.filter(user_id=user_id, table__club_id=club_id, table__status=TableStatus.WAITING)
        .values_list("table_id", flat=True)
    )
    for table_id in ids:
        with table_action(table_id) as ctx:
            seat = next((s for s in ctx.seats if s.user_id == user_id), None)
            if seat is None or ctx.table.status != TableStatus.WAITING:
                ctx.nothing_changed()
                continue
            do_vacate(ctx, seat, reason="not_member")
    return ids


def seat_add_bot(*, user, table_id: int, kind: str | None = None) -> Seat:
    """The creator of a practice table fills a free seat with a bot: of ``kind`` (``BOT_KINDS``), or
    by default at the level of the table's other bots (normal when it has none)."""
    with table_action(table_id) as ctx:
        table = ctx.table
        if not table.practice or table.created_by_id != user.pk:
            raise TableError("not_allowed", "Only the creator of a practice table may add bots.")
        check_waiting(table)
        if kind is None:
            kind = next((s.bot for s in ctx.seats if s.bot), BotLevel.NORMAL.value)
        if kind not in BOT_KINDS:
            raise TableError("bad_bot", "Unknown bot kind.")
        free = [s for s in ctx.seats if not s.taken]
        if not free:
            raise TableError("table_full", "No free seat.")
        do_add_bot(ctx, free[0], kind)
        maybe_start(ctx)
    return free[0]


# ---- ready, piao, presence, 托管 ----------------------------------------------------------------


def seat_ready(*, user, table_id: int) -> None:
    with table_action(table_id) as ctx:
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


def piao_choose(*, user, table_id: int, value: Any) -> None:
    with table_action(table_id) as ctx:
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


def socket_open(*, user, table_id: int) -> dict[str, Any] | None:
    """A socket connects: in one table transaction, decide the viewer's access (None: refused),
    put his seat online and return his first state (``{"seq", "viewer", "state"}``, the table as
    committed, his online update included). ``TableError("no_table")`` when there is no such table.

    The unit of work of ``unit.table_action``, written out so that the state is built before the
    commit, under the row lock: once committed, the engine hand is the process's cached one
    (hand_cache.py), which the next move of the table (another thread) changes in place."""
    with transaction.atomic():
        ctx = lock(table_id)
        access = access_for(user=user, table=ctx.table, seats=ctx.seats)
        if access is None:
            ctx.nothing_changed()
            ctx.keep_read()
            return None
        _set_online(ctx, None if access.seat is None else ctx.seats[access.seat], True)
        if not ctx.unchanged:
            ctx.save()
        snap = snapshot_of(ctx, access.seat)
        due = not ctx.unchanged and ctx.autoplay_due
    if due:
        autoplay(table_id=table_id)
    return snap


def seat_set_online(*, user, table_id: int, online: bool, only_if: Callable[[], bool] | None = None) -> None:
    """``only_if()``, asked under the table's lock, may call it off (a socket closing while
    another socket of the same user lives: consumers.py)."""
    with table_action(table_id) as ctx:
        if only_if is not None and not only_if():
            ctx.nothing_changed()
            ctx.keep_read()
            return
        _set_online(ctx, ctx.seat_of(user), online)


def _set_online(ctx, seat: Seat | None, online: bool) -> None:
    """A seated player's socket comes (his seat is seen now: presence.sweep leaves it alone) or
    goes; a spectator, a seat already so, or a table that has ended changes nothing (the rows read
    are kept in the cache). An ended table's log ends with its session: its players leaving the
    result page afterwards add no ``seat.online`` rows (three transactions and updates per table
    end, all at once, which the moves of the other tables queued behind: README #29)."""
    if seat is None or not ctx.table.is_open:
        ctx.nothing_changed()
        ctx.keep_read()
        return
    if online:
        Seat.objects.filter(pk=seat.pk).update(seen_at=timezone.now())
    if seat.online == online:
        ctx.nothing_changed()
        ctx.keep_read()
        return
    seat.online = online
    ctx.touch(seat)
    ctx.event("seat.online", {"seat": seat.index, "online": online})
    if online:
        note_arrival(ctx, seat)


def seat_set_tuoguan(*, user, table_id: int, on: bool, seat: Any = None) -> None:
    """A seated player switches 托管 (auto-play at ``TUOGUAN_LEVEL``) on or off for his own seat.
    On only while the table plays (a waiting table has nothing to play); off at any time while
    it is open (a time-out may have put him on it)."""
    if not isinstance(on, bool):  # "false" is a string, not a no: refuse what is not a JSON boolean
        raise TableError("bad_message", "托管 is switched with true or false.")
    with table_action(table_id) as ctx:
        mine = check_seated(ctx, user)
        if seat is not None and (isinstance(seat, bool) or seat != mine.index):
            raise TableError("not_your_seat", "You may only switch auto-play for your own seat.")
        check_open(ctx.table)
        if on and ctx.table.status != TableStatus.PLAYING:
            raise TableError("not_playing", "Auto-play can be switched on only while the table plays.")
        do_set_tuoguan(ctx, mine, on)
