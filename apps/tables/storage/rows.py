"""The statements of every move, without the ORM's query compiler.

A move is: lock the table row (reading only its cache key), append its events, write the table's
(and maybe a seat's) live columns; a hand's end writes the hand's end columns too. Building those
statements through QuerySets costs more CPU than running them, and a busy server makes hundreds of
moves per second, so here (the one place that does this):

- the SQL text is built once per database vendor, and the values are prepared by the model fields
  themselves (``get_db_prep_save``: JSON, datetimes, ... exactly as the ORM would);
- on PostgreSQL the statements run on a psycopg cursor with server-side binding over Django's own
  connection (same transaction, errors wrapped as Django's): the parameters travel apart from the
  text instead of being quoted into it in Python, and each statement is prepared once per
  connection. Django's ORM keeps its own client-side binding for everything else.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache, lru_cache

from django.db import connection
from django.db.models import JSONField

from apps.tables.models import Hand, Seat, Table, TableEvent
from apps.tables.storage.jsontext import to_json_bytes


@contextmanager
def _cursor() -> Iterator:
    if connection.vendor == "postgresql":
        connection.ensure_connection()
        with connection.wrap_database_errors:
            yield _pg_cursor(connection.connection)
    else:
        with connection.cursor() as cursor:
            yield cursor


def _pg_cursor(conn):
    """One server-side-binding cursor per psycopg connection, kept on it (a new cursor per
    statement costs about as much as the statement)."""
    cursor = getattr(conn, "_tables_cursor", None)
    if cursor is None or cursor.closed:
        cursor = conn._tables_cursor = _cursor_class()(conn)
    return cursor


@cache
def _cursor_class():
    """``psycopg.Cursor`` that converts each statement's text (``%s`` to ``$n``) once, not per call.

    psycopg caches that conversion only for statements of at most 50 parameters, and a move's
    INSERT of its events with the table's UPDATE has more: splitting its text again on every move
    cost about 3% of a server's CPU under load. Our statements are a small fixed set (one per
    shape and number of event rows, ``INSERT_CHUNK`` at most), so all of them are kept.
    """
    import psycopg  # (the PostgreSQL backend's driver; absent on an SQLite-only install)
    from psycopg._queries import PostgresQuery, _query2pg_nocache

    converted = lru_cache(maxsize=1024)(_query2pg_nocache)

    class Query(PostgresQuery):
        __slots__ = ()

        def convert(self, query, vars) -> None:
            if vars is None or not isinstance(query, str):
                return super().convert(query, vars)
            encoding = self._tx.encoding
            self.query, self._want_formats, self._order, self._parts = converted(query.encode(encoding), encoding)
            self.dump(vars)

    class Cursor(psycopg.Cursor):
        _query_cls = Query
        conversions = converted  # (its cache_info() shows the reuse)

    return Cursor


def _execute(cursor, sql: str, params: list) -> None:
    if connection.vendor == "postgresql":
        cursor.execute(sql, params, prepare=True)
    else:
        cursor.execute(sql, params)


@cache
def _lock_sql(vendor: str, for_update: bool) -> str:
    q = connection.ops.quote_name
    return f"SELECT {q('rev')}, {q('seq')}, {q('last_hash')} FROM {q(Table._meta.db_table)} WHERE id = %s" + (
        " FOR UPDATE" if for_update else ""
    )


def lock_key(table_id: int) -> tuple[int, int, str] | None:
    """Lock the table row until the transaction ends (``FOR UPDATE``; SQLite has one writer and no
    row locks) and read its cache key ``(rev, seq, last_hash)`` (hand_cache.py); None: no such table."""
    with _cursor() as cursor:
        if not _begin_and_lock(cursor, int(table_id)):
            _execute(cursor, _lock_sql(connection.vendor, connection.features.has_select_for_update), [table_id])
        row = cursor.fetchone()
    return None if row is None else (int(row[0]), int(row[1]), row[2])


def _begin_and_lock(cursor, table_id: int) -> bool:
    """PostgreSQL, when the lock is the transaction's first statement: ``BEGIN`` and the lock sent
    in one message, one round trip (psycopg would send its ``BEGIN`` alone and wait for it first:
    one of a move's four round trips, each a wait for the database and then for the GIL, which the
    slowest 1% of moves paid several milliseconds for at 300 tables: README #29). False, having
    sent nothing, anywhere else: SQLite, a transaction already begun (a savepoint, an earlier
    statement), a connection with its own transaction characteristics.

    The statement goes by the simple query protocol, which takes several statements in one message
    and no parameters: ``table_id`` is an int, written into the text. psycopg is told nothing was
    left to begin by running the message as in autocommit (its private ``_autocommit``, psycopg
    3.3 as pinned: tests/tables/test_tables_round_trips.py fails if that stops working); it sees the
    transaction the message began, and commits or rolls it back as any other.
    """
    if connection.vendor != "postgresql":
        return False
    from psycopg.pq import TransactionStatus

    conn = cursor.connection
    if (conn.autocommit or conn.info.transaction_status != TransactionStatus.IDLE
            or (conn.isolation_level, conn.read_only, conn.deferrable) != (None, None, None)
            or not isinstance(getattr(conn, "_autocommit", None), bool)):
        return False
    conn._autocommit = True
    try:
        cursor.execute((_begin_lock_sql() % table_id).encode())
    finally:
        conn._autocommit = False
    cursor.nextset()  # (the first result is the BEGIN's)
    return True


@cache
def _begin_lock_sql() -> str:
    return "BEGIN; " + _lock_sql("postgresql", True).replace("%s", "%d")


def read_table(table_id: int) -> Table | None:
    """The whole (already locked) table row, when the cache has not got it."""
    return Table.objects.filter(pk=table_id).first()


def _adapter(field):
    """How a value of ``field`` is handed to the driver: as the ORM would (``get_db_prep_save``);
    on PostgreSQL, where every column here but JSON needs no conversion, without its per-value cost."""
    if connection.vendor != "postgresql":
        return lambda value: field.get_db_prep_save(value, connection)
    if isinstance(field, JSONField):
        from psycopg.types.json import Jsonb

        return lambda value: None if value is None else Jsonb(value, dumps=to_json_bytes)
    return lambda value: value


@cache
def _fields(model, vendor: str, names: tuple[str, ...]):
    """The fields ``names`` of ``model`` as (attname, adapter) pairs."""
    return [(f.attname, _adapter(f)) for f in (model._meta.get_field(name) for name in names)]


@cache
def _update_sql(model, vendor: str, names: tuple[str, ...]) -> str:
    q = connection.ops.quote_name
    sets = ", ".join(f"{q(model._meta.get_field(name).column)} = %s" for name in names)
    return f"UPDATE {q(model._meta.db_table)} SET {sets} WHERE id = %s"


def _params(row, names: tuple[str, ...]) -> list:
    return [adapt(getattr(row, name)) for name, adapt in _fields(type(row), connection.vendor, names)] + [row.pk]


def save_live(row: Table | Seat | Hand, fields: tuple[str, ...] | None = None) -> None:
    """``row.save(update_fields=fields)`` in one statement; by default the row's ``LIVE_FIELDS``
    (what a table transaction may change, of a table or a seat)."""
    names = fields or row.LIVE_FIELDS
    with _cursor() as cursor:
        _execute(cursor, _update_sql(type(row), connection.vendor, names), _params(row, names))


@cache
def _event_fields(vendor: str):
    return [(f, _adapter(f)) for f in TableEvent._meta.concrete_fields if not f.primary_key]


INSERT_CHUNK = 100  # rows per statement (SQLite's limit on parameters)


def _values_sql(rows: int) -> str:
    q = connection.ops.quote_name
    fields = _event_fields(connection.vendor)
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    return (f"INSERT INTO {q(TableEvent._meta.db_table)} ({', '.join(q(f.column) for f, _ in fields)}) "
            f"VALUES {', '.join([one] * rows)}")


@lru_cache(maxsize=256)
def _insert_sql(vendor: str, rows: int) -> str:
    return _values_sql(rows)


@lru_cache(maxsize=512)
def _write_sql(vendor: str, rows: int, seats: int) -> str:
    """``rows`` events inserted and ``seats`` seats' live columns written, each a WITH of the
    table's UPDATE (PostgreSQL runs every data-modifying WITH of a statement, once)."""
    withs = [f"ev AS ({_values_sql(rows)})"] if rows else []
    withs += [f"s{i} AS ({_update_sql(Seat, vendor, Seat.LIVE_FIELDS)})" for i in range(seats)]
    table = _update_sql(Table, vendor, Table.LIVE_FIELDS)
    return f"WITH {', '.join(withs)} {table}" if withs else table


@dataclass(slots=True)
class EventRow:
    """A ``TableEvent`` row to insert (a model instance costs more to build than to write)."""

    table_id: int
    hand_id: int | None
    seq: int
    type: str
    payload: dict
    prev_hash: str
    hash: str
    created_at: datetime


def _event_params(events: list[EventRow]) -> list:
    fields = _event_fields(connection.vendor)
    return [adapt(getattr(ev, f.attname)) for ev in events for f, adapt in fields]


def insert_events(events: list[EventRow]) -> None:
    """``TableEvent.objects.bulk_create(events)`` in one statement (the new ids are not read back)."""
    with _cursor() as cursor:
        for start in range(0, len(events), INSERT_CHUNK):
            chunk = events[start:start + INSERT_CHUNK]
            _execute(cursor, _insert_sql(connection.vendor, len(chunk)), _event_params(chunk))


def write(table: Table, events: list[EventRow], seats: Sequence[Seat] = ()) -> None:
    """What a table transaction ends with: ``insert_events(events)``, ``save_live`` of each of
    ``seats`` and then of ``table``. On PostgreSQL one statement, one round trip (the INSERT and the
    seats' UPDATEs in WITHs of the table's UPDATE): a hand's end writes its three seats, the events
    and the table at once, where it took four statements, a round trip each (README #29)."""
    if connection.vendor != "postgresql" or len(events) > INSERT_CHUNK:
        insert_events(events)
        for seat in seats:
            save_live(seat)
        save_live(table)
        return
    params = _event_params(events)
    for seat in seats:
        params += _params(seat, Seat.LIVE_FIELDS)
    with _cursor() as cursor:
        _execute(cursor, _write_sql(connection.vendor, len(events), len(seats)),
                 params + _params(table, Table.LIVE_FIELDS))


@cache
def _touch_sql(vendor: str) -> str:
    q = connection.ops.quote_name
    seat = q(Seat._meta.db_table)
    col = {name: q(Seat._meta.get_field(name).column) for name in ("id", "table", "index", "user", "online", "seen_at")}
    return (f"UPDATE {seat} SET {col['seen_at']} = %s WHERE id IN ("
            f"SELECT s.id FROM {seat} s JOIN unnest(%s::bigint[], %s::bigint[]) AS p(t, u) "
            f"ON s.{col['table']} = p.t AND s.{col['user']} = p.u ORDER BY s.id FOR UPDATE OF s SKIP LOCKED) "
            f"RETURNING {col['id']}, {col['table']}, {col['index']}, {col['user']}, {col['online']}")


def touch_seen(pairs: list[tuple[int, int]], at: datetime) -> list[tuple[int, int, int, int, bool]]:
    """PostgreSQL: ``seen_at = at`` on the seats of these (table id, user id) pairs, in one
    statement of two array parameters whatever their number, skipping a seat whose row a table
    transaction holds right now (``SKIP LOCKED``: rows locked in id order never deadlock with
    it); returns (pk, table id, index, user id, online) of the seats touched."""
    with _cursor() as cursor:
        _execute(cursor, _touch_sql(connection.vendor), [at, [t for t, _ in pairs], [u for _, u in pairs]])
        return [tuple(row) for row in cursor.fetchall()]
