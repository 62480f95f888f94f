"""Moves inside a hand: a player's action, auto-play (bots and 托管) and time-outs.

All three go through ``do_act`` under the table lock, so a bot or a time-out is never a back door:
the engine checks every action, and every action is logged and hash-chained like a player's.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from . import engine_io
from .context import Ctx, TableError, lock, now
from .models import Seat, Stage, TableStatus
from .outbox import view_seq
from .services import check_seated, do_set_tuoguan
from .session import after_engine, bots_paced, deal

log = logging.getLogger(__name__)

TUOGUAN_AFTER_TIMEOUTS = 2
MAX_AUTOPLAY_STEPS = 1000


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
    if not isinstance(wire, dict):
        raise TableError("bad_action", "The action must be a JSON object.")
    try:
        action = engine_io.Action.from_wire(wire)
    except ValueError as exc:
        code = "bad_card" if "card" in str(exc) else "bad_action"
        raise TableError(code, str(exc)) from exc
    if seat.index not in hand.to_act():
        raise TableError("not_your_turn", "It is not your turn.")
    if action not in hand.legal_actions(seat.index):
        if action.type == "discard" and wire.get("card") not in engine_io.hand_card_names(hand, seat.index):
            raise TableError("not_your_card", "That card is not in your hand.")
        raise TableError("illegal_action", f"{wire} is not legal now.")
    return action


def do_act(ctx: Ctx, seat_index: int, action, *, by: str) -> None:
    """Apply one action (already checked or chosen from legal_actions) and log it."""
    ctx.mutating()
    try:
        events = ctx.engine_hand.apply(seat_index, action)
    except engine_io.IllegalAction as exc:
        raise TableError("illegal_action", str(exc)) from exc
    ctx.event("action", {"seat": seat_index, "action": action.to_wire(), "by": by}, only_seat=seat_index)
    ctx.outbox.add_engine(events, hand=ctx.hand)
    ctx.hand_dirty = True
    after_engine(ctx)


def hand_act(*, user, table_id: int, seq: Any, action: Any, seat: Any = None) -> None:
    """A player's move. ``seq`` is the last update number the player saw: a stale one is refused."""
    with transaction.atomic():
        ctx = lock(table_id)
        mine = check_seated(ctx, user)
        if seat is not None and seat != mine.index:
            raise TableError("not_your_seat", "You may only act for your own seat.")
        checked = check_act(ctx, mine, seq, action)
        if mine.tuoguan:
            do_set_tuoguan(ctx, mine, False)
        if mine.timeouts:
            mine.timeouts = 0
            ctx.touch(mine)
        do_act(ctx, mine.index, checked, by="player")
        ctx.save()
        due = ctx.autoplay_due
    if due:
        autoplay(table_id=table_id)


def autoplay_step(ctx: Ctx) -> bool:
    """Play one decision of a bot or 托管 seat; False when no such seat is to act."""
    table, hand = ctx.table, ctx.engine_hand
    if table.status != TableStatus.PLAYING or table.stage != Stage.HAND or hand is None or hand.finished:
        return False
    seats = [s for s in hand.to_act() if ctx.seats[s].autoplay]
    if not seats:
        return False
    seat = ctx.seats[seats[0]]
    action = engine_io.bot_action(hand, seat.index, kind=seat.bot or "greedy", salt=ctx.hand.seed_hash)
    do_act(ctx, seat.index, action, by="bot" if seat.bot else "tuoguan")
    return True


def autoplay(*, table_id: int, max_steps: int = MAX_AUTOPLAY_STEPS) -> int:
    """Let bots and 托管 seats play until a human must decide; one transaction per action.

    With paced bots (settings.TABLES_BOT_DELAY > 0) this does nothing: each bot move is a short
    ``bot`` deadline that ``fire_deadlines`` plays, so people can follow the table.
    """
    if bots_paced():
        return 0
    steps = 0
    while steps < max_steps:
        with transaction.atomic():
            ctx = lock(table_id)
            if not autoplay_step(ctx):
                return steps
            ctx.save()
        steps += 1
    return steps


def deadline_fire(*, table_id: int, at=None) -> bool:
    """Apply the time-out rules (RULES.md §11.6) to an overdue table; False if nothing was due."""
    at = at or now()
    with transaction.atomic():
        ctx = lock(table_id)
        table = ctx.table
        fired = False
        if table.dissolve_deadline is not None and table.dissolve_deadline <= at:
            from .dissolve import do_dissolve_cancel

            do_dissolve_cancel(ctx, reason="timeout")
            fired = True
        if table.is_open and table.deadline is not None and table.deadline <= at:
            fired = True
            if table.deadline_kind == "piao":
                _piao_timeout(ctx)
            elif table.stage == Stage.HAND and ctx.engine_hand is not None:
                _play_timeout(ctx, at)
            else:
                table.deadline, table.deadline_kind = None, ""
        if fired:
            ctx.save()
    if fired:
        autoplay(table_id=table_id)
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
            action = engine_io.bot_action(hand, index, kind=seat.bot or "greedy", salt=ctx.hand.seed_hash)
            do_act(ctx, index, action, by="bot" if seat.bot else "tuoguan")
            continue
        if bot_turn:
            continue  # a bot's deadline: the humans' own deadline has not passed
        seat.timeouts += 1
        ctx.touch(seat)
        ctx.event("seat.timeout", {"seat": index, "timeouts": seat.timeouts})
        if seat.timeouts >= TUOGUAN_AFTER_TIMEOUTS:
            do_set_tuoguan(ctx, seat, True)
        do_act(ctx, index, hand.default_action(index), by="timeout")
