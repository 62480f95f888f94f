"""战绩: a player's sessions, newest first, a page at a time (issue #47).

A session is a table where he holds a seat and at least one hand was dealt. Each page costs two
queries whatever his history: the page of seats (keyset on the table id, his seat's table joined
with its club) and the hands of those tables (each with his own total, from the hand's frozen
``players`` and ``totals``: a seat's occupant is read from the hand, not from the seat now).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, QuerySet

from apps.tables.models import ENDED_HAND_STATUSES, Hand, HandStatus, Seat

PAGE_SIZE = 20
KEYS = [("table_id", True)]  # one seat per user and table: the table id orders and is unique


@dataclass
class HandLine:
    hand_id: int
    number: int
    ended: bool  # its replay is open (a hand still in play has none yet)
    total: int | None  # his points in the hand (score + piao); None while in play or when dissolved


@dataclass
class Session:
    seat: Seat
    hands: list[HandLine] = field(default_factory=list)

    @property
    def table(self):
        return self.seat.table


def sessions(*, user, club=None) -> QuerySet[Seat]:
    """His seats at tables with a dealt hand (of one club, or of all), for ``keyset_page(KEYS)``."""
    seats = (Seat.objects.filter(user=user)
             .filter(Exists(Hand.objects.filter(table_id=OuterRef("table_id"))))
             .select_related("table", "table__club"))
    if club is not None:
        seats = seats.filter(table__club=club)
    return seats


def with_hands(seats: list[Seat], *, user_id: int) -> list[Session]:
    """The page's sessions with each hand (one query for all of them)."""
    rows: dict[int, Session] = {s.table_id: Session(s) for s in seats}
    hands = (Hand.objects.filter(table_id__in=list(rows)).order_by("table_id", "number")
             .values_list("table_id", "pk", "number", "status", "players", "totals"))
    for table_id, hand_id, number, status, players, totals in hands:
        mine = next((k for k, v in (players or {}).items() if v == user_id), None)
        total = None
        if status == HandStatus.FINISHED and mine is not None:
            total = int(((totals or {}).get("total") or {}).get(str(mine), 0))
        rows[table_id].hands.append(HandLine(hand_id, number, status in ENDED_HAND_STATUSES, total))
    return list(rows.values())
