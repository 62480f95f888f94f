"""A compacted table's log (``TableArchive``): the codec, and the one write that replaces rows by it.

``encode(table_id, events)`` gives the archive's fields; ``decode(archive)`` gives the events back,
after checking what an archive claims about itself (its digest, its table, a gapless log from seq 1,
its last hash). What the events say is checked where every log is checked: the hash chain by the
export's verifier (``apps.engine.export``), the anchors by ``apps.replays.verification``.

``replace_rows(table, events)`` is the compaction of one table (``apps.replays.retention`` decides
which tables, and holds the table's row lock): the archive is written, read back, decoded, compared
with the rows and its chain checked, and only then are the rows deleted, all in the caller's
transaction: a failure (or a crash) anywhere leaves the rows as they were and no archive.

>>> from datetime import datetime, timezone
>>> ev = Event(1, datetime(2026, 1, 1, tzinfo=timezone.utc), "table.open", {"name": "T"}, "0" * 64, "ab" * 32, None)
>>> fields = encode(7, [ev])
>>> fields["events"], fields["last_seq"], len(fields["digest"])
(1, 1, 64)
>>> decode_data(7, fields["data"], fields["digest"]) == [ev]
True
"""

from __future__ import annotations

import hashlib
import json
import zlib
from datetime import datetime
from typing import Any, NamedTuple

from .chain import GENESIS_HASH, verify_chain
from .models import ARCHIVE_FORMAT, Table, TableArchive, TableEvent

COLUMNS = ("seq", "created_at", "type", "payload", "prev_hash", "hash", "hand_id")
# What the archive stores of each event: ``prev_hash`` is left out, being the previous event's hash
# (the genesis hash for seq 1) in a gapless log; it is put back when read. Every ``hash`` is kept,
# so the chain is recomputed and checked from the payloads as before.
STORED = ("seq", "created_at", "type", "payload", "hash", "hand_id")
LEVEL = 9  # written once, read rarely: the smallest output is worth its few milliseconds


class Event(NamedTuple):
    """One event of a table's log, as its ``TableEvent`` row holds it (the fields of ``COLUMNS``)."""

    seq: int
    created_at: datetime
    type: str
    payload: Any
    prev_hash: str
    hash: str
    hand_id: int | None


class ArchiveCorrupt(ValueError):
    """The stored archive is not what it says it is (digest, table, seqs or last hash)."""


def encode(table_id: int, events: list[Event]) -> dict[str, Any]:
    """The ``TableArchive`` fields (but ``table``) of ``events``: the whole log, seq 1 first."""
    if not events:
        raise ValueError("an archive holds at least one event")
    doc = {
        "format": ARCHIVE_FORMAT,
        "table": table_id,
        "columns": list(STORED),
        # Payloads are dumped as read (no sort_keys): an export made from the archive shows each
        # payload's keys in the order its row gave them, byte for byte.
        "events": [[e.seq, e.created_at.isoformat(), e.type, e.payload, e.hash, e.hand_id] for e in events],
    }
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()
    return {
        "format": ARCHIVE_FORMAT,
        "last_seq": events[-1].seq,
        "events": len(events),
        "hands": len({e.hand_id for e in events if e.hand_id is not None}),
        "last_hash": events[-1].hash,
        "digest": hashlib.sha256(raw).hexdigest(),
        "raw_bytes": len(raw),
        "data": zlib.compress(raw, LEVEL),
    }


def decode_data(table_id: int, data: bytes, digest: str) -> list[Event]:
    """The events of an archive's ``data``; ``ArchiveCorrupt`` when it is not this table's log."""
    try:
        raw = zlib.decompress(bytes(data))
    except zlib.error as exc:
        raise ArchiveCorrupt(f"the archive of table {table_id} does not decompress: {exc}") from exc
    if hashlib.sha256(raw).hexdigest() != digest:
        raise ArchiveCorrupt(f"the archive of table {table_id} does not match its digest")
    doc = json.loads(raw)
    if doc.get("format") != ARCHIVE_FORMAT or doc.get("table") != table_id or doc.get("columns") != list(STORED):
        raise ArchiveCorrupt(f"the archive of table {table_id} is not a {ARCHIVE_FORMAT} log of that table")
    events, prev = [], GENESIS_HASH
    for seq, at, type_, payload, hash_, hand_id in doc["events"]:
        events.append(Event(seq, datetime.fromisoformat(at), type_, payload, prev, hash_, hand_id))
        prev = hash_
    if [e.seq for e in events] != list(range(1, len(events) + 1)):
        raise ArchiveCorrupt(f"the archive of table {table_id} does not hold seqs 1 to {len(events)} in order")
    return events


def decode(archive: TableArchive) -> list[Event]:
    """The events of a stored archive, checked against its own columns too."""
    events = decode_data(archive.table_id, archive.data, archive.digest)
    if len(events) != archive.events or events[-1].seq != archive.last_seq or events[-1].hash != archive.last_hash:
        raise ArchiveCorrupt(f"the archive of table {archive.table_id} does not hold the log its row describes")
    return events


class LogBroken(ValueError):
    """A table's rows do not form a whole, intact log: it is kept as rows (verification names why)."""


def log_problem(table: Table, events: list[Event]) -> str | None:
    """Why ``events`` (a table's rows) are not its whole log, without hashing; None when they are."""
    if not events:
        return "the table has no event rows"
    if [e.seq for e in events] != list(range(1, len(events) + 1)):
        return "the rows do not run from seq 1 without a gap"
    if events[-1].seq != table.seq or events[-1].hash != table.last_hash:
        return "the last row is not the table's last event (seq and last hash)"
    return None


def replace_rows(table: Table, events: list[Event]) -> TableArchive:
    """Archive the table's whole log ``events`` (its rows, seq 1 first) and delete those rows.

    The caller holds the table row's lock inside a transaction. ``LogBroken`` (nothing written)
    when the rows are not a whole log or their chain is broken: such a table keeps its rows."""
    problem = log_problem(table, events)
    if problem:
        raise LogBroken(problem)
    archive = TableArchive.objects.create(table=table, **encode(table.pk, events))
    stored = decode(TableArchive.objects.get(pk=archive.pk))  # as the database gives it back
    broken = verify_chain(stored, start_hash=GENESIS_HASH, start_seq=0)  # each hash from its payload
    if broken:
        raise LogBroken(f"hash chain: {broken}")
    differs = next((row.seq for row, back in zip(events, stored, strict=True) if row != back), None)
    if differs is not None:  # e.g. a row whose prev_hash is not the previous event's hash
        raise LogBroken(f"seq {differs}: the archive read back differs from the row")
    drop_rows(table.pk, events[-1].seq)
    return archive


def drop_rows(table_id: int, last_seq: int) -> int:
    """Delete the rows the archive now holds (one statement); the number deleted."""
    deleted, _ = TableEvent.objects.filter(table_id=table_id, seq__lte=last_seq).delete()
    return deleted
