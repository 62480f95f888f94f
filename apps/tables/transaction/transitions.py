"""What changes a locked table: plain functions on a ``Ctx``, called inside a unit of work.

Seats (sit, vacate, bot, 托管), moves in a hand (``do_act``: a player's, a bot's, a time-out's, all
checked by the engine and logged alike), time-outs (RULES.md §11.6) and 解散. The session's own
steps (start, piao, deal, settlement, session end) are in session.py. Nothing here checks
permissions (checks.py) or opens a transaction (unit.py).
"""

from __future__ import annotations

from apps.clubs.models import AuditAction
from apps.clubs.services import audit_log
from apps.engine.play.hand import IllegalAction
from apps.tables.models import TUOGUAN_LEVEL, HandStatus, Seat, Stage, TableStatus
from apps.tables.transaction import nearby
from apps.tables.transaction.bots import bot_action
from apps.tables.transaction.context import Ctx, TableError, now
from apps.tables.transaction.session import (
    after_engine,
    deal,
    end_session,
    set_play_deadline,
    start_next_hand,
)

TUOGUAN_AFTER_TIMEOUTS = 2  # time-outs in a row before a seat is put on 托管


# ---- seats -------------------------------------------------------------------------------------


def do_sit(ctx: Ctx, seat: Seat, user) -> None:
    if seat.user_id and seat.user_id != user.pk:  # a seat given to another (an arranged re-seat)
        nearby.forget(table_id=ctx.table.pk, user_id=seat.user_id)
    seat.user, seat.bot, seat.ready = user, "", False
    ctx.touch(seat)
    ctx.event("seat.join", {"seat": seat.index, "user": user.pk, "name": user.name})


def do_vacate(ctx: Ctx, seat: Seat, *, reason: str | None = None) -> None:
    """The seat's player leaves a waiting table (by himself, or as he is no longer a member)."""
    if seat.user_id:
        nearby.forget(table_id=ctx.table.pk, user_id=seat.user_id)
    seat.user, seat.ready, seat.online = None, False, False
    ctx.touch(seat)
    ctx.event("seat.leave", {"seat": seat.index, **({"reason": reason} if reason else {})})


def do_add_bot(ctx: Ctx, seat: Seat, kind: str) -> None:
    seat.user, seat.bot, seat.ready, seat.online = None, kind, True, True
    ctx.touch(seat)
    ctx.event("seat.bot", {"seat": seat.index, "bot": kind})


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


# ---- moves -------------------------------------------------------------------------------------


def do_act(ctx: Ctx, seat_index: int, action, *, by: str) -> None:
    """Apply one action (already checked or chosen from legal_actions) and log it."""
    ctx.mutating()
    try:
        events = ctx.engine_hand.apply(seat_index, action)
    except IllegalAction as exc:
        raise TableError("illegal_action", str(exc)) from exc
    ctx.event("action", {"seat": seat_index, "action": action.to_wire(), "by": by}, only_seat=seat_index)
    ctx.outbox.add_engine(events, hand=ctx.hand)
    ctx.hand_dirty = True
    after_engine(ctx)


def autoplay_step(ctx: Ctx) -> bool:
    """Play one decision of a bot or 托管 seat; False when no such seat is to act."""
    table, hand = ctx.table, ctx.engine_hand
    if table.status != TableStatus.PLAYING or table.stage != Stage.HAND or hand is None or hand.finished:
        return False
    seats = [s for s in hand.to_act() if ctx.seats[s].autoplay]
    if not seats:
        return False
    seat = ctx.seats[seats[0]]
    _bot_act(ctx, seat)
    return True


def _bot_act(ctx: Ctx, seat: Seat) -> None:
    """A bot seat plays at its level; a player on 托管 (or a match absentee) at ``TUOGUAN_LEVEL``."""
    action = bot_action(ctx.engine_hand, seat.index, kind=seat.bot or TUOGUAN_LEVEL, salt=ctx.hand.seed_hash)
    do_act(ctx, seat.index, action, by="bot" if seat.bot else "tuoguan")


# ---- time-outs (RULES.md §11.6) ------------------------------------------------------------------


def fire_deadline(ctx: Ctx, at) -> bool:
    """Apply what is overdue at ``at`` (a dissolve vote, piao, a turn or claim); False if nothing."""
    table = ctx.table
    fired = False
    if table.dissolve_deadline is not None and table.dissolve_deadline <= at:
        do_dissolve_cancel(ctx, reason="timeout")
        fired = True
    if table.is_open and table.deadline is not None and table.deadline <= at:
        fired = True
        if table.deadline_kind == "piao":
            _piao_timeout(ctx)
        elif table.deadline_kind == "next" and table.stage == Stage.SETTLE:
            start_next_hand(ctx)
        elif table.stage == Stage.HAND and ctx.engine_hand is not None:
            _play_timeout(ctx, at)
        else:
            table.deadline, table.deadline_kind = None, ""
    return fired


def _piao_timeout(ctx: Ctx) -> None:
    for seat in ctx.seats:
        if seat.piao is None:
            seat.piao = ctx.table.piao_choices[0]
            ctx.touch(seat)
            ctx.event("piao.choose", {"seat": seat.index, "timeout": True})
    deal(ctx)


def _play_timeout(ctx: Ctx, at) -> None:
    table, hand = ctx.table, ctx.engine_hand
    bot_turn = table.deadline_kind == "bot"
    for index in list(hand.to_act()):
        if hand.finished or table.stage != Stage.HAND or table.deadline is None or table.deadline > at:
            return  # the hand moved on to a new decision with a fresh deadline
        if index not in hand.to_act():
            continue
        seat = ctx.seats[index]
        if seat.autoplay:
            _bot_act(ctx, seat)
            continue
        if bot_turn:
            continue  # a bot's deadline: the humans' own deadline has not passed
        if hand.phase == "claim":
            # Who times out on a claim window held an option on the card: only he is told, and
            # it does not count towards 托管, whose switch everyone sees (RULES.md §5.3).
            ctx.event("seat.timeout", {"seat": index, "timeouts": seat.timeouts, "claim": True}, only_seat=index)
            do_act(ctx, index, hand.default_action(index), by="timeout")
            continue
        seat.timeouts += 1
        ctx.touch(seat)
        ctx.event("seat.timeout", {"seat": index, "timeouts": seat.timeouts})
        if seat.timeouts >= TUOGUAN_AFTER_TIMEOUTS:
            do_set_tuoguan(ctx, seat, True)
        do_act(ctx, index, hand.default_action(index), by="timeout")


# ---- 解散 ----------------------------------------------------------------------------------------


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
        hand.seed = bytes(ctx.engine_hand.seed).hex()
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
