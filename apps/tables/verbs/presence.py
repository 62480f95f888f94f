"""Who is really at the table: seats online with no socket left are put offline.

A socket's consumer marks its seat online on connect and offline when the last socket of its user
at the table in this process closes (two tabs: closing one keeps the seat online; asked again
under the table's lock, consumers.py). Nginx sends every socket of a table to one process; a tab
that landed on another one (its Daphne had died) keeps the seat "seen" there, and that process's
next touch puts it back online if this one put it offline. A server process
killed with SIGKILL never runs the disconnect: its players' seats would stay online. So each
process marks the seats of its sockets as seen every ``TABLES_PRESENCE_SECONDS`` (watch.py,
``seen``), and the beat task ``tables.sweep_presence`` puts offline, with the usual
``seat.online`` event, every seat of an open table that is online but unseen for
``TABLES_PRESENCE_STALE_SECONDS`` (``sweep``). A live socket whose seat was swept (a process too
busy to touch in time) is put back online at its next touch.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from apps.tables.models import OPEN_TABLE_STATUSES, Seat
from apps.tables.storage import rows
from apps.tables.transaction.session import note_arrival
from apps.tables.transaction.unit import table_action


def _seats(players: dict[int, set[int]]) -> list[tuple[int, int, int, int, bool]]:
    """(pk, table id, index, user id, online) of the seats of ``players`` (table id -> users):
    two plain ``IN`` lists and the exact pairs kept here (SQLite's touch)."""
    users = set().union(*players.values())
    rows_ = Seat.objects.filter(table_id__in=list(players), user_id__in=list(users)).values_list(
        "pk", "table_id", "index", "user_id", "online")
    return [row for row in rows_ if row[3] in players.get(row[1], ())]


def seen(*, players: dict[int, set[int]], still_here=None) -> int:
    """Table id -> users with a socket here: their seats are seen now, and online again if a sweep
    put them offline while their socket lived. ``still_here(table_id, user_id)``, asked under the
    table's lock, tells whether the socket is still open (one that closed meanwhile has put its
    seat offline and must not be put back). Returns how many seats were touched.

    On PostgreSQL the touch is one statement (``rows.touch_seen``: the pairs as two arrays) that
    never waits for a row lock: a bulk UPDATE locks its rows in whatever order it scans them, and a
    table transaction writing two of those seats in another order deadlocked with it. A seat
    locked right now by its table's transaction is touched, and put back online if need be, at the
    next round (every ``TABLES_PRESENCE_SECONDS``, well inside ``TABLES_PRESENCE_STALE_SECONDS``).
    Its CPU no longer grows with the statement: built through the ORM, with one parameter per seat
    twice over, a touch of ~450 seats cost 4-6 ms of a process's CPU at once (README #29)."""
    if not players:
        return 0
    at = timezone.now()
    if connection.vendor == "postgresql":
        seats = rows.touch_seen([(t, u) for t, users in players.items() for u in users], at)
    else:  # (SQLite: one writer at a time, no row locks)
        seats = _seats(players)
        Seat.objects.filter(pk__in=[pk for pk, *_ in seats]).update(seen_at=at)
    for _, table_id, index, user_id, online in seats:
        if not online:  # (set_online reads the seat again under the table's lock)
            set_online(table_id=table_id, index=index, online=True, reason="seen",
                       only_if=None if still_here is None else (lambda t=table_id, u=user_id: still_here(t, u)))
    return len(seats)


def sweep(*, now=None) -> list[tuple[int, int]]:
    """Put offline every seat of an open table online but unseen for a while; the (table, seat)s."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.TABLES_PRESENCE_STALE_SECONDS)
    rows = list(Seat.objects.filter(online=True, table__status__in=OPEN_TABLE_STATUSES,
                                    user__isnull=False)
                .filter(Q(seen_at__isnull=True) | Q(seen_at__lt=stale)).values_list("table_id", "index"))
    for table_id, index in rows:
        set_online(table_id=table_id, index=index, online=False, reason="unseen", stale=stale)
    return rows


def set_online(*, table_id: int, index: int, online: bool, reason: str, stale=None, only_if=None) -> None:
    with table_action(table_id) as ctx:
        seat = ctx.seats[index]
        # An ended table records no presence (services._set_online); only_if is asked last: it
        # reads this process's sockets.
        if not ctx.table.is_open or (only_if is not None and not only_if()):
            ctx.nothing_changed()
            return
        if stale is not None:  # read under the lock: a socket may have touched it meanwhile
            seen_at = Seat.objects.filter(pk=seat.pk).values_list("seen_at", flat=True).first()
            unseen = seen_at is None or seen_at < stale
        else:
            unseen = True
        if seat.user_id is None or seat.online == online or not unseen:
            ctx.nothing_changed()  # it changed under us: someone connected or left meanwhile
            return
        seat.online = online
        ctx.touch(seat)
        ctx.event("seat.online", {"seat": seat.index, "online": online, "reason": reason})
        if online:
            note_arrival(ctx, seat)
