"""A table transaction's round trips to PostgreSQL (rows.py): few, as each is a wait for the
database and then for the GIL under load (README #29).

- ``BEGIN`` and the row lock go in one message (rows.lock_key): psycopg sends a transaction's
  ``BEGIN`` alone and waits for it before the first statement. These tests fail if psycopg ever
  sends its own ``BEGIN`` there again (say, after an upgrade changed what rows.py relies on), and
  check that the transaction the message began is the one Django commits or rolls back, with the
  row locked in between.
- A hand's end writes its events, its seats and the table in one statement (rows.write).
"""

from __future__ import annotations

import random

import psycopg
import pytest
from django.db import connection, transaction

from apps.engine.bots.choose import bot_choose
from apps.tables.models import Hand, HandStatus, Seat, Table, TableEvent
from apps.tables.storage import rows
from apps.tables.storage.verify import verify_table_hands
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play
from tests.tables.helpers import current, ready_all

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
        assert Table.objects.count() == 0  # the transaction is usable after an empty lock (no table here)
        assert _status() == psycopg.pq.TransactionStatus.INTRANS


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


@pytest.fixture
def statements(monkeypatch):
    """The text of every statement run through a psycopg cursor (Django's and rows.py's)."""
    texts: list[str] = []
    execute = psycopg.Cursor.execute

    def recording(self, query, *args, **kwargs):
        texts.append(query.decode() if isinstance(query, bytes) else str(query))
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", recording)
    return texts


def test_a_hand_end_writes_its_events_seats_and_table_in_one_statement(full_table, players, statements):
    ready_all(full_table.pk, players)
    rng = random.Random(3)
    while True:  # greedy bots until the next action ends the hand
        table, hand, eh = current(full_table.pk)
        assert hand.status == HandStatus.PLAYING
        seat = eh.to_act()[0]
        action = bot_choose(eh, seat, kind="greedy", rng=rng)
        statements.clear()
        play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action=action.to_wire())
        if Hand.objects.get(pk=hand.pk).status != HandStatus.PLAYING:
            break
    writes = [t for t in statements if not t.lstrip().upper().startswith("SELECT") and "FOR UPDATE" not in t]
    seat_writes = [t for t in writes if 'UPDATE "tables_seat"' in t]
    # one statement: the events' INSERT and the three seats' UPDATEs in WITHs of the table's UPDATE
    assert len(seat_writes) == 1, writes
    final = seat_writes[0]
    assert final.startswith("WITH ev AS (INSERT INTO \"tables_tableevent\"")
    assert final.count('UPDATE "tables_seat"') == 3 and 'UPDATE "tables_table"' in final.split(")")[-1]
    assert [t for t in writes if 'UPDATE "tables_hand"' in t] == [writes[0]]  # its end columns, once
    # and what it wrote is what the players see: scores from the hand's totals, the chain intact
    ended = Hand.objects.get(pk=hand.pk)
    scores = {s.index: s.score for s in Seat.objects.filter(table=full_table)}
    assert scores == {int(k): v for k, v in ended.totals["total"].items()}
    table = Table.objects.get(pk=full_table.pk)
    assert table.stage == "settle" and table.hands_played == 1
    assert table.seq == TableEvent.objects.filter(table=table).count()
    assert verify_table_hands(table.pk) == [None]  # the engine's verifier: replay, chain, settlement
