"""``presence.seen`` cannot deadlock with a table transaction (PostgreSQL: row locks).

A table transaction may write a table's seats in any order. The old bulk UPDATE of ``seen`` locked
the seats in the order it scanned them, and waited for a locked one while holding the others:
with a transaction holding the last seat and then writing the first, PostgreSQL found a deadlock
and aborted one of them. ``seen`` now never waits for a row lock (``SKIP LOCKED``).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction
from django.db.models import F

from apps.tables.models import Seat, Table
from apps.tables.verbs import presence

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL only (CI runs it there)"),
]


def test_seen_does_not_deadlock_with_a_transaction_writing_the_seats_in_another_order(full_table, players):
    # online already (a socket each): seen only touches them (a write of live columns outside a
    # table transaction bumps the table's rev, as hand_cache.py asks)
    Seat.objects.filter(table=full_table).update(online=True)
    Table.objects.filter(pk=full_table.pk).update(rev=F("rev") + 1)
    seats = list(Seat.objects.filter(table=full_table).order_by("pk"))
    first, last = seats[0], seats[-1]
    holding, seen_running, errors = threading.Event(), threading.Event(), []

    def table_transaction():
        try:
            with transaction.atomic():
                Seat.objects.filter(pk=last.pk).update(score=1)  # holds the last seat ...
                holding.set()
                seen_running.wait(5)
                threading.Event().wait(0.3)  # (seen is waiting for it now, or has skipped it)
                Seat.objects.filter(pk=first.pk).update(score=2)  # ... then writes the first one
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    def touch():
        try:
            holding.wait(5)
            seen_running.set()
            touched.append(presence.seen(players={full_table.pk: {p.pk for p in players}}))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    touched: list[int] = []
    threads = [threading.Thread(target=table_transaction), threading.Thread(target=touch)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not errors, errors  # (the old code: psycopg.errors.DeadlockDetected in one of them)
    assert touched == [len(seats) - 1]  # the locked seat is left for the next round
    assert Seat.objects.get(pk=first.pk).score == 2 and Seat.objects.get(pk=last.pk).score == 1
    assert Seat.objects.filter(table=full_table, seen_at__isnull=False).count() == len(seats) - 1
