"""Who may do what at a table, and is the request well formed: the checks every verb makes.

Each raises ``TableError(code, message)`` (inside the unit of work, so a refusal changes nothing)
or returns what it checked.
"""

from __future__ import annotations

from typing import Any

from apps.clubs.access import is_manager
from apps.clubs.selectors import is_member, membership_for
from apps.engine.hand import Action
from apps.engine.rules import RuleSet
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
        raise TableError("table_closed", "This table is closed.")


def check_waiting(table: Table, message: str = "This table has already started.") -> None:
    if table.status != TableStatus.WAITING:
        raise TableError("not_waiting", message)


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
    if not isinstance(wire, dict):
        raise TableError("bad_action", "The action must be a JSON object.")
    try:
        action = Action.from_wire(wire)
    except ValueError as exc:
        code = "bad_card" if "card" in str(exc) else "bad_action"
        raise TableError(code, str(exc)) from exc
    if action.type == "escape":
        return check_escape(ctx, seat, action)
    if seat.index not in hand.to_act():
        raise TableError("not_your_turn", "It is not your turn.")
    if action not in hand.legal_actions(seat.index):
        if action.type == "discard" and wire.get("card") not in (hand.view(seat.index)["hands"][seat.index] or []):
            raise TableError("not_your_card", "That card is not in your hand.")
        raise TableError("illegal_action", f"{wire} is not legal now.")
    return action


def check_escape(ctx: Ctx, seat: Seat, action):
    """逃跑 (RULES.md §8.6): any active seat may leave the hand in play, waited for or not, while no
    claim window is open, where the table's rules have ``escape_penalty``; never at an arranged table (a match's round: its own
    absence rules, time-outs and 托管, govern), nor for a seat that sits the hand out."""
    if ctx.table.arranged or not RuleSet.from_json(ctx.table.ruleset).escape_penalty:
        raise TableError("escape_off", "Leaving a hand (escape) is not allowed at this table.")
    if ctx.engine_hand.claim_open():  # (public: everyone knows a card awaits answers, §5.3)
        raise TableError("escape_claim", "You cannot leave while a card awaits answers.")
    if action not in ctx.engine_hand.legal_actions(seat.index):
        raise TableError("illegal_action", "You do not play this hand.")
    return action
