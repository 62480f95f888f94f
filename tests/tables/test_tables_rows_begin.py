"""A table transaction's ``BEGIN`` and its row lock go in one round trip (rows.lock_key, PostgreSQL).

psycopg sends a transaction's ``BEGIN`` alone and waits for it before the first statement; the
lock that opens every table transaction takes both in one message instead (README #29). These
tests fail if psycopg ever sends its own ``BEGIN`` there again (say, after an upgrade changed what
rows.py relies on), and check that the transaction the message began is the one Django commits or
rolls back, with the row locked in between.
"""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection, transaction

from apps.tables import rows
from apps.tables.models import Table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's BEGIN: PostgreSQL only (CI runs it there)"),
]


@pytest.fixture
def begins(monkeypatch):
    """The BEGINs psycopg sends by itself (its internal command path), and every query text."""
    sent = {"begin": 0, "texts": []}
    command = psycopg.Connection._exec_command

    def counting(self, cmd, *args, **kwargs):
        if bytes(cmd).upper().startswith(b"BEGIN"):
            sent["begin"] += 1
        return command(self, cmd, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "_exec_command", counting)
    return sent


def _locked_elsewhere(table_id: int) -> bool:
    """Whether another connection finds the table row locked."""
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as other:
        try:
            other.execute("SELECT 1 FROM tables_table WHERE id = %s FOR UPDATE NOWAIT", [table_id])
        except psycopg.errors.LockNotAvailable:
            return True
    return False


def _status():
    return connection.connection.info.transaction_status


def test_the_lock_begins_the_transaction_in_the_same_message(full_table, begins):
    table = Table.objects.get(pk=full_table.pk)
    connection.ensure_connection()
    with transaction.atomic():
        key = rows.lock_key(full_table.pk)
        assert key == (table.rev, table.seq, table.last_hash)
        assert begins["begin"] == 0  # psycopg sent no BEGIN of its own
        assert _status() == psycopg.pq.TransactionStatus.INTRANS
        assert _locked_elsewhere(full_table.pk)
        Table.objects.filter(pk=full_table.pk).update(rev=table.rev + 1)
    assert _status() == psycopg.pq.TransactionStatus.IDLE
    assert connection.connection.autocommit  # Django's autocommit is back, and the write committed
    assert Table.objects.get(pk=full_table.pk).rev == table.rev + 1
    assert not _locked_elsewhere(full_table.pk)


def test_a_refusal_after_the_lock_rolls_back_what_the_message_began(full_table, begins):
    rev = Table.objects.get(pk=full_table.pk).rev
    connection.ensure_connection()
    with pytest.raises(RuntimeError), transaction.atomic():
        rows.lock_key(full_table.pk)
        Table.objects.filter(pk=full_table.pk).update(rev=rev + 5)
        raise RuntimeError("refused")
    assert begins["begin"] == 0
    assert Table.objects.get(pk=full_table.pk).rev == rev
    assert not _locked_elsewhere(full_table.pk)


def test_no_table_reads_none_and_the_transaction_goes_on(begins):
    connection.ensure_connection()
    with transaction.atomic():
        assert rows.lock_key(987654321) is None
        assert _status() == psycopg.pq.TransactionStatus.INTRANS
        assert Table.objects.count() >= 0  # the transaction is usable after an empty lock


def test_inside_a_transaction_already_begun_the_lock_is_a_statement_of_it(full_table, begins):
    connection.ensure_connection()
    with transaction.atomic():
        Table.objects.filter(pk=full_table.pk).exists()  # psycopg began the transaction for this
        assert begins["begin"] == 1
        with transaction.atomic():  # a savepoint
            assert rows.lock_key(full_table.pk) is not None
        assert begins["begin"] == 1
        assert _locked_elsewhere(full_table.pk)
    assert not _locked_elsewhere(full_table.pk)
