"""A compacted table's log (``TableArchive``): the codec, and the one write that replaces rows by it.

``encode(table_id, events)`` gives the archive's fields; ``open_archive(archive)`` checks what an
archive claims about itself (its digest, its table, segments tiling seqs 1..n, its last hash) and
parses a segment (a run of one hand's events, or of table events) only when it is read, so one
hand's replay does not parse the whole table's log; ``decode(archive)`` gives every event. What the
events say is checked where every log is checked: the hash chain by the export's verifier
(``apps.engine.records.verifier``), the anchors by ``apps.replays.verification``.

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

from apps.engine.records.chain import GENESIS_HASH, verify_chain
from apps.tables.models import ARCHIVE_FORMAT, Table, TableArchive, TableEvent

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


def _segments(events: list[Event]) -> list[list[Event]]:
    """Runs of consecutive events of one hand (or of none): the pieces a reader parses alone."""
    runs: list[list[Event]] = []
    for e in events:
        if runs and runs[-1][-1].hand_id == e.hand_id:
            runs[-1].append(e)
        else:
            runs.append([e])
    return runs


def encode(table_id: int, events: list[Event]) -> dict[str, Any]:
    """The ``TableArchive`` fields (but ``table``) of ``events``: the whole log, seq 1 first.

    The uncompressed value is JSON lines: a header line ``{"format", "table", "columns",
    "segments"}``, then one line per segment (a run of consecutive events of one hand, or of table
    events), each a JSON list of events ``[seq, created_at, type, payload, hash, hand_id]``. The
    header lists each segment as ``[first seq, last seq, hand id, prev_hash of its first event,
    byte offset, byte length]``, so one hand's replay parses its own lines, not the table's.
    """
    if not events:
        raise ValueError("an archive holds at least one event")
    lines, table = [], []
    offset = 0
    for run in _segments(events):
        # Payloads are dumped as read (no sort_keys): an export made from the archive shows each
        # payload's keys in the order its row gave them, byte for byte.
        line = json.dumps([[e.seq, e.created_at.isoformat(), e.type, e.payload, e.hash, e.hand_id] for e in run],
                          ensure_ascii=False, separators=(",", ":")).encode()
        table.append([run[0].seq, run[-1].seq, run[0].hand_id, run[0].prev_hash, offset, len(line)])
        lines.append(line)
        offset += len(line) + 1
    header = json.dumps({"format": ARCHIVE_FORMAT, "table": table_id, "columns": list(STORED), "segments": table},
                        separators=(",", ":")).encode()
    raw = b"\n".join([header, *lines])
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


class Decoded:
    """A table's archived log, checked as a whole (digest, table, segments tiling seqs 1..n) and
    parsed segment by segment when asked (each segment checked as it is parsed)."""

    def __init__(self, table_id: int, data: bytes, digest: str):
        self.table_id = table_id
        try:
            raw = zlib.decompress(bytes(data))
        except zlib.error as exc:
            raise ArchiveCorrupt(f"the archive of table {table_id} does not decompress: {exc}") from exc
        if hashlib.sha256(raw).hexdigest() != digest:
            raise ArchiveCorrupt(f"the archive of table {table_id} does not match its digest")
        cut = raw.find(b"\n")
        try:
            header = json.loads(raw[:cut] if cut >= 0 else raw)
            segments = [tuple(s) for s in header["segments"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise ArchiveCorrupt(f"the archive of table {table_id} has no readable header") from exc
        if header.get("format") != ARCHIVE_FORMAT or header.get("table") != table_id \
                or header.get("columns") != list(STORED):
            raise ArchiveCorrupt(f"the archive of table {table_id} is not a {ARCHIVE_FORMAT} log of that table")
        body = cut + 1
        expected = 1
        for first, last, _hand, _prev, offset, length in segments:
            if first != expected or last < first or body + offset + length > len(raw):
                raise ArchiveCorrupt(f"the archive of table {table_id} does not hold seqs 1 to its end in order")
            expected = last + 1
        if not segments:
            raise ArchiveCorrupt(f"the archive of table {table_id} is empty")
        self._raw, self._body, self.segments = raw, body, segments
        self.last_seq = expected - 1
        self._parsed: dict[int, list[Event]] = {}

    def _segment(self, i: int) -> list[Event]:
        if i not in self._parsed:
            first, last, hand_id, prev, offset, length = self.segments[i]
            start = self._body + offset
            try:
                rows = json.loads(self._raw[start:start + length])
            except ValueError as exc:
                raise ArchiveCorrupt(f"the archive of table {self.table_id}: seqs {first}-{last} do not parse") from exc
            events = []
            for seq, at, type_, payload, hash_, hand in rows:
                events.append(Event(seq, datetime.fromisoformat(at), type_, payload, prev, hash_, hand))
                prev = hash_
            if [e.seq for e in events] != list(range(first, last + 1)) or any(e.hand_id != hand_id for e in events):
                raise ArchiveCorrupt(f"the archive of table {self.table_id}: seqs {first}-{last} are not as listed")
            self._parsed[i] = events
        return self._parsed[i]

    def hand_ids(self) -> set[int]:
        return {s[2] for s in self.segments if s[2] is not None}

    def span(self, hand_ids: set[int]) -> tuple[int, int] | None:
        """The first and last seq of these hands' events (from the header: nothing parsed)."""
        mine = [s for s in self.segments if s[2] in hand_ids]
        return (mine[0][0], mine[-1][1]) if mine else None

    def hand(self, hand_id: int) -> list[Event]:
        return [e for i, s in enumerate(self.segments) if s[2] == hand_id for e in self._segment(i)]

    def events(self, first: int, last: int) -> list[Event]:
        """The events of seqs ``first`` to ``last`` that the archive holds."""
        return [e for i, s in enumerate(self.segments) if s[1] >= first and s[0] <= last
                for e in self._segment(i) if first <= e.seq <= last]

    def all(self) -> list[Event]:
        return self.events(1, self.last_seq)


def decode_data(table_id: int, data: bytes, digest: str) -> list[Event]:
    """Every event of an archive's ``data``; ``ArchiveCorrupt`` when it is not this table's log."""
    return Decoded(table_id, data, digest).all()


def open_archive(archive: TableArchive) -> Decoded:
    """A stored archive, checked against its row's own columns (seqs and last hash)."""
    decoded = Decoded(archive.table_id, archive.data, archive.digest)
    last = decoded.events(archive.last_seq, archive.last_seq)
    if decoded.last_seq != archive.last_seq or archive.events != archive.last_seq or not last \
            or last[0].hash != archive.last_hash:
        raise ArchiveCorrupt(f"the archive of table {archive.table_id} does not hold the log its row describes")
    return decoded


def decode(archive: TableArchive) -> list[Event]:
    """Every event of a stored archive (``open_archive``, then all of it parsed)."""
    return open_archive(archive).all()


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
