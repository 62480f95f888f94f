"""The locked context of one table transaction, and the error every service raises.

``lock(table_id)`` must be called inside ``transaction.atomic()``: it takes the Table row lock
(``select_for_update``) that serialises every write to a table, then loads its seats and current hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from . import engine_io
from .models import Hand, HandStatus, Seat, Table
from .outbox import Outbox


class TableError(Exception):
    """A refused request: ``code`` for programs, ``message`` for people. Nothing was changed."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Ctx:
    """A locked table with its rows loaded; ``save`` writes what changed and the events."""

    table: Table
    seats: list[Seat]
    hand: Hand | None
    engine_hand: Any
    outbox: Outbox
    dirty_seats: set[int] = field(default_factory=set)
    hand_dirty: bool = False

    def touch(self, *seats: Seat) -> None:
        self.dirty_seats.update(s.index for s in seats)

    def seat_of(self, user) -> Seat | None:
        uid = getattr(user, "pk", None)
        return next((s for s in self.seats if uid is not None and s.user_id == uid), None)

    def event(self, type_: str, payload: dict, **kwargs) -> None:
        """Append a table event; it belongs to the current hand while that hand is being played."""
        playing = self.hand if self.hand is not None and self.hand.status == HandStatus.PLAYING else None
        self.outbox.add(type_, payload, hand=kwargs.pop("hand", playing), **kwargs)

    def save(self) -> None:
        for seat in self.seats:
            if seat.index in self.dirty_seats:
                seat.save()
        if self.hand is not None and self.hand_dirty:
            self.hand.state = engine_io.dump_hand(self.engine_hand)
            self.hand.save()
        if self.outbox.pending:
            self.outbox.flush(seats=self.seats, hand=self.hand, engine_hand=self.engine_hand)
        else:
            self.table.save()


def lock(table_id: int) -> Ctx:
    """Lock the table row and load its seats and current hand (the caller is in a transaction)."""
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise TableError("no_table", "This table does not exist.")
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    hand = table.hands.order_by("-number").first()
    engine_hand = engine_io.load_hand(hand.state) if hand is not None else None
    return Ctx(table, seats, hand, engine_hand, Outbox(table))


def now():
    return timezone.now()
