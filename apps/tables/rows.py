"""The three statements of every move, without the ORM's query compiler.

A move is: lock the table row, append its events, write the table's live columns. Building those
statements through QuerySets costs more CPU than running them, and a busy server makes a few hundred
moves per second; here the SQL text is built once per database vendor and the values are prepared
by the model fields themselves (``get_db_prep_save``: JSON, datetimes, ... exactly as the ORM would).
"""

from __future__ import annotations

from functools import cache, lru_cache

from django.db import connection

from .models import Table, TableEvent


@cache
def _lock_sql(vendor: str, for_update: bool) -> str:
    return f"SELECT * FROM {connection.ops.quote_name(Table._meta.db_table)} WHERE id = %s" + (
        " FOR UPDATE" if for_update else ""
    )


def lock_table(table_id: int) -> Table | None:
    """The table row, locked until the transaction ends (``select_for_update``; SQLite has one
    writer and no row locks)."""
    sql = _lock_sql(connection.vendor, connection.features.has_select_for_update)
    return next(iter(Table.objects.raw(sql, [table_id])), None)


@cache
def _table_fields():
    return [Table._meta.get_field(name) for name in Table.LIVE_FIELDS]


@cache
def _update_sql(vendor: str) -> str:
    q = connection.ops.quote_name
    sets = ", ".join(f"{q(f.column)} = %s" for f in _table_fields())
    return f"UPDATE {q(Table._meta.db_table)} SET {sets} WHERE id = %s"


def save_table(table: Table) -> None:
    """``table.save(update_fields=Table.LIVE_FIELDS)`` in one statement."""
    params = [f.get_db_prep_save(getattr(table, f.attname), connection) for f in _table_fields()]
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(connection.vendor), [*params, table.pk])


@cache
def _event_fields():
    return [f for f in TableEvent._meta.concrete_fields if not f.primary_key]


INSERT_CHUNK = 100  # rows per statement (SQLite's limit on parameters)


@lru_cache(maxsize=256)
def _insert_sql(vendor: str, rows: int) -> str:
    q = connection.ops.quote_name
    fields = _event_fields()
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    return (f"INSERT INTO {q(TableEvent._meta.db_table)} ({', '.join(q(f.column) for f in fields)}) "
            f"VALUES {', '.join([one] * rows)}")


def insert_events(events: list[TableEvent]) -> None:
    """``TableEvent.objects.bulk_create(events)`` in one statement (the new ids are not read back)."""
    fields = _event_fields()
    with connection.cursor() as cursor:
        for start in range(0, len(events), INSERT_CHUNK):
            chunk = events[start:start + INSERT_CHUNK]
            params = [f.get_db_prep_save(f.pre_save(ev, add=True), connection) for ev in chunk for f in fields]
            cursor.execute(_insert_sql(connection.vendor, len(chunk)), params)
