"""A 快捷语 never waits on the table's row lock (PostgreSQL: row locks; issue #47).

A move holds the table row ``FOR UPDATE`` for its whole transaction. A phrase written meanwhile
must not wait for it: no lock of its own, and no foreign-key check on the table row (which takes
``FOR KEY SHARE``, and that waits for ``FOR UPDATE``)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction

from apps.tables.models import TablePhrase
from apps.tables.storage.rows import lock_key
from apps.tables.verbs import phrases

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL only (CI runs it there)"),
]


def test_phrase_while_a_move_holds_the_table_lock(full_table, players):
    holding, release, errors = threading.Event(), threading.Event(), []

    def move():
        try:
            with transaction.atomic():
                lock_key(full_table.pk)  # the lock every table transaction takes first
                holding.set()
                release.wait(10)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=move)
    thread.start()
    try:
        assert holding.wait(5)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")  # a wait fails the test instead of hanging it
        started = time.monotonic()
        phrases.phrase_send(user=players[1], table_id=full_table.pk, phrase="hurry")
        took = time.monotonic() - started
    finally:
        release.set()
        thread.join(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
    assert not errors, errors
    assert took < 1.0
    assert TablePhrase.objects.filter(table=full_table, phrase="hurry").count() == 1
