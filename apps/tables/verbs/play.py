"""Moves inside a hand: a player's action, and the time-outs that act for him.

Both go through ``transitions.do_act`` in a unit of work, as bots and 托管 seats do
(``unit.autoplay``), so neither is a back door: the engine checks every action, and every action
is logged and hash-chained like a player's.
"""

from __future__ import annotations

from typing import Any

from apps.tables.transaction.checks import check_act, check_seated
from apps.tables.transaction.context import TableError, now
from apps.tables.transaction.transitions import do_act, do_set_tuoguan, fire_deadline
from apps.tables.transaction.unit import table_action


def hand_act(*, user, table_id: int, seq: Any, action: Any, seat: Any = None) -> None:
    """A player's move. ``seq`` is the last update number the player saw: a stale one is refused."""
    with table_action(table_id) as ctx:
        mine = check_seated(ctx, user)
        if seat is not None and seat != mine.index:
            raise TableError("not_your_seat", "You may only act for your own seat.")
        checked = check_act(ctx, mine, seq, action)
        # A decision on a claim window tells nobody else that he held an option (RULES.md §5.3):
        # his 托管 (public) and time-out count change only with a move on his own turn.
        if ctx.engine_hand.phase != "claim":
            if mine.tuoguan:
                do_set_tuoguan(ctx, mine, False)
            if mine.timeouts:
                mine.timeouts = 0
                ctx.touch(mine)
        do_act(ctx, mine.index, checked, by="player")


def deadline_fire(*, table_id: int, at=None) -> bool:
    """Apply the time-out rules (RULES.md §11.6) to an overdue table; False if nothing was due."""
    at = at or now()
    with table_action(table_id) as ctx:
        fired = fire_deadline(ctx, at)
        if not fired:
            ctx.nothing_changed()
    return fired
