"""Read-side: who may look at a table and as whom, club table lists, overdue tables, how seats were played."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from apps.clubs.access import MANAGER_ROLES
from apps.clubs.models import Membership
from apps.tables.models import (
    ENDED_TABLE_STATUSES,
    OPEN_TABLE_STATUSES,
    Hand,
    HandStatus,
    Seat,
    Table,
    TableStatus,
)
from apps.tables.storage.eventlog import tables_events


@dataclass(frozen=True)
class Access:
    """``seat`` is the viewer's seat index, or None for a spectator (sees no hidden card)."""

    seat: int | None
    can_act: bool


def access_for(*, user, table: Table, seats: list[Seat] | None = None) -> Access | None:
    """Seated players play; club admins watch any table; members may look at a waiting table, and
    at it still once it has ended without a hand dealt (dissolved while waiting: they watched it,
    and there is no card of anyone to hide). ``seats``: the table's seat rows when the caller has them (under the table's lock): then a
    seated player costs no query, anyone else one (his role in the club)."""
    if user is None or not user.is_authenticated:
        return None
    if seats is not None:
        seat = next((s.index for s in seats if s.user_id == user.pk), None)
    else:
        seat = Seat.objects.filter(table=table, user=user).values_list("index", flat=True).first()
    role = None if seat is not None else (
        Membership.objects.filter(club_id=table.club_id, user=user).values_list("role", flat=True).first())
    dealt = (seat is None and role is not None and table.status in ENDED_TABLE_STATUSES
             and Hand.objects.filter(table_id=table.pk).exists())
    return _decide(user, status=table.status, seat=seat, role=role, dealt=dealt)


def access_of(*, user, table_id: int) -> Access | None | bool:
    """``access_for`` decided from the table's id in one SELECT (the table's status, the user's seat
    there and his role in its club), before anything is locked or subscribed: a socket's connect
    and a spectator's updates. None: refused (no query at all for an anonymous user); False: no
    such table. Not a lock: the socket's ``services.socket_open`` decides again under it."""
    if user is None or not user.is_authenticated:
        return None
    found = (Table.objects.filter(pk=table_id).order_by()
             .annotate(my_seat=Subquery(Seat.objects.filter(table_id=OuterRef("pk"), user_id=user.pk)
                                        .values("index")[:1]),
                       my_role=Subquery(Membership.objects.filter(club_id=OuterRef("club_id"), user_id=user.pk)
                                        .values("role")[:1]),
                       dealt=Exists(Hand.objects.filter(table_id=OuterRef("pk"))))
             .values_list("status", "my_seat", "my_role", "dealt")[:1])
    if not found:
        return False
    status, seat, role, dealt = found[0]
    return _decide(user, status=status, seat=seat, role=role, dealt=dealt)


def _decide(user, *, status: str, seat: int | None, role: str | None, dealt: bool) -> Access | None:
    if seat is not None:
        return Access(seat=seat, can_act=True)
    if role in MANAGER_ROLES or user.is_staff:
        return Access(seat=None, can_act=False)
    if role is not None and (status == TableStatus.WAITING or (status in ENDED_TABLE_STATUSES and not dealt)):
        return Access(seat=None, can_act=False)
    return None


def club_tables(*, club, include_closed: int = 5) -> dict[str, list[Table]]:
    """Open tables (waiting, playing) and the last few closed ones of a club."""
    base: QuerySet[Table] = Table.objects.filter(club=club).select_related("created_by").prefetch_related(
        "seats__user"
    )
    return {
        "open": list(base.filter(status__in=OPEN_TABLE_STATUSES).order_by("-created_at")),
        "closed": list(
            base.filter(status__in=ENDED_TABLE_STATUSES).order_by("-created_at")[
                :include_closed
            ]
        ),
    }


def overdue_table_ids(at=None) -> list[int]:
    at = at or timezone.now()
    return list(
        Table.objects.filter(status__in=OPEN_TABLE_STATUSES)
        .filter(Q(deadline__lte=at) | Q(dissolve_deadline__lte=at))
        .values_list("pk", flat=True)
    )


@dataclass(frozen=True)
class SeatPlay:
    """How the seats of some ended tables were played (an arranger's results; keys are
    ``(table_id, seat index)``, or ``(table_id, user_id)`` for the hands' totals)."""

    hand_totals: dict[tuple[int, int], list[int]]  # each finished hand's total (score + piao)
    moved: set[tuple[int, int]]  # the player made a move, chose 飘 or switched 托管 off himself
    timed_out: set[tuple[int, int]]  # a deadline ran out on the seat
    tuoguan: set[tuple[int, int]]  # on 托管 when the table ended


def seat_play(*, table_ids: list[int]) -> SeatPlay:
    """Three queries whatever the number of tables or hands."""
    totals: dict[tuple[int, int], list[int]] = {}
    for table_id, players, hand_totals in Hand.objects.filter(
        table_id__in=table_ids, status=HandStatus.FINISHED
    ).values_list("table_id", "players", "totals"):
        for seat_key, user_id in (players or {}).items():
            total = int(((hand_totals or {}).get("total") or {}).get(str(seat_key), 0))
            totals.setdefault((table_id, user_id), []).append(total)
    moved: set[tuple[int, int]] = set()
    timed_out: set[tuple[int, int]] = set()
    logs = tables_events(table_ids, ("action", "seat.tuoguan", "seat.timeout", "piao.choose"))
    for table_id, type_, payload in ((t, e.type, e.payload) for t, events in logs.items() for e in events):
        seat = (table_id, payload.get("seat"))
        if type_ == "seat.timeout":
            timed_out.add(seat)
        elif (type_ == "action" and payload.get("by") == "player") or \
                (type_ == "seat.tuoguan" and payload.get("on") is False) or \
                (type_ == "piao.choose" and not payload.get("timeout")):
            moved.add(seat)
    tuoguan = set(Seat.objects.filter(table_id__in=table_ids, tuoguan=True).values_list("table_id", "index"))
    return SeatPlay(hand_totals=totals, moved=moved, timed_out=timed_out, tuoguan=tuoguan)
