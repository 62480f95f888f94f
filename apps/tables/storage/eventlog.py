"""The one reader of a table's event log: its ``TableEvent`` rows while they exist, else its archive.

Every read of events goes through here — live play catching up, replays, exports, verification,
audit statistics, session summaries — so a table compacted by ``apps.replays.retention`` (its rows
replaced by one ``TableArchive``) replays, exports and verifies exactly as before. Events come as
``Event`` tuples (the columns of ``archive.COLUMNS``, in that order).

An archive holds a prefix of the log, seqs 1..``last_seq``, and compaction deletes exactly those
rows in the transaction that writes it. So a row found at seq ``s`` means every seq from ``s`` on
is in the rows: the archive is looked up (one query, opened once per ``TableLog``, each hand's
segment parsed when first read) only when rows are missing, and a table that was never compacted
costs the queries it cost before.

Live play (``since``, ``hand_events`` of a hand in play) reads rows only: a table with a hand in
play is never compacted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, Max, Min, Q

from apps.tables.models import ENDED_HAND_STATUSES, Hand, HandStatus, TableArchive, TableEvent
from apps.tables.storage.archive import COLUMNS, ArchiveCorrupt, Decoded, Event, open_archive

__all__ = ["COLUMNS", "ArchiveCorrupt", "Event", "TableLog", "describe", "hand_events", "hand_rows_exist", "rows_exist", "since",
           "tables_events"]


def _rows(qs) -> list[Event]:
    return [Event(*row) for row in qs.order_by("seq").values_list(*COLUMNS)]


class TableLog:
    """One table's log. Holds the decoded archive once read, so one export or checklist decodes it
    at most once."""

    def __init__(self, table_id: int):
        self.table_id = table_id
        self._archive: Decoded | None = None
        self._looked = False
        self._rows_from: int | None = None  # a seq known to be stored as a row: no archive from there

    # --- the archive, when rows are missing ---------------------------------------------------

    def archived(self) -> Decoded | None:
        """The table's archive (checked, parsed on demand), None when it has none."""
        if not self._looked:
            archive = TableArchive.objects.filter(table_id=self.table_id).first()
            self._archive = open_archive(archive) if archive is not None else None
            self._looked = True
        return self._archive

    def _seen_row(self, seq: int | None) -> None:
        if seq is not None and (self._rows_from is None or seq < self._rows_from):
            self._rows_from = seq

    def _in_rows(self, seq: int) -> bool:
        return self._rows_from is not None and seq >= self._rows_from

    def _archived_range(self, first: int, last: int) -> list[Event]:
        archive = self.archived()
        return archive.events(first, last) if archive is not None else []

    # --- reads ----------------------------------------------------------------------------------

    def hand_events(self, hand: Hand, types: Iterable[str] | None = None) -> list[Event]:
        """The events of ``hand`` in seq order (only ``types``, if given)."""
        qs = TableEvent.objects.filter(hand_id=hand.pk)
        if types is not None:
            types = tuple(types)
            qs = qs.filter(type__in=types)
        rows = _rows(qs)
        if rows or hand.status not in ENDED_HAND_STATUSES:  # a hand in play is never archived
            if rows:
                self._seen_row(rows[0].seq)
            return rows
        archive = self.archived()
        events = archive.hand(hand.pk) if archive is not None else []
        return [e for e in events if types is None or e.type in types]

    def span(self, hand_ids: list[int]) -> tuple[int, int] | None:
        """The first and last seq of the events of these hands, None when they have none."""
        bounds = TableEvent.objects.filter(hand_id__in=hand_ids).aggregate(first=Min("seq"), last=Max("seq"))
        if bounds["first"] is not None:
            self._seen_row(bounds["first"])
            return bounds["first"], bounds["last"]
        archive = self.archived()
        return archive.span(set(hand_ids)) if archive is not None else None

    def playing_start(self) -> int | None:
        """The first seq of a hand still in play (never archived), None when no hand is in play."""
        return (TableEvent.objects.filter(table_id=self.table_id, hand__status=HandStatus.PLAYING)
                .aggregate(first=Min("seq"))["first"])

    def events(self, first: int, last: int) -> list[Event]:
        """The events of seqs ``first`` to ``last`` in order; a seq in neither rows nor archive is
        simply absent (the chain check names the gap)."""
        rows = _rows(TableEvent.objects.filter(table_id=self.table_id, seq__gte=first, seq__lte=last))
        if rows:
            self._seen_row(rows[0].seq)
        if (rows and rows[0].seq == first and len(rows) == last - first + 1) or self._in_rows(first):
            return rows
        stored = {e.seq for e in rows}
        merged = [e for e in self._archived_range(first, last) if e.seq not in stored] + rows
        return sorted(merged, key=lambda e: e.seq)

    def at(self, seq: int) -> Event | None:
        """The event of ``seq``, or None."""
        rows = _rows(TableEvent.objects.filter(table_id=self.table_id, seq=seq))
        if rows or self._in_rows(seq):
            return rows[0] if rows else None
        found = self._archived_range(seq, seq)
        return found[0] if found else None

    def after(self, seq: int) -> Event | None:
        """The event that follows ``seq`` in the log, or None at its end."""
        row = TableEvent.objects.filter(table_id=self.table_id, seq__gt=seq).order_by("seq").values_list(*COLUMNS)[:1]
        rows = [Event(*r) for r in row]
        if rows and (rows[0].seq == seq + 1 or self._in_rows(seq + 1)):
            return rows[0]
        if self._in_rows(seq + 1):
            return None
        found = self._archived_range(seq + 1, seq + 1)
        return found[0] if found else (rows[0] if rows else None)

    def stored_rows(self) -> list[Event]:
        """Every event row of the table, in seq order (what compaction archives: rows only)."""
        return _rows(TableEvent.objects.filter(table_id=self.table_id))

    def of_types(self, types: Iterable[str]) -> list[Event]:
        """The table's events of these types, in seq order."""
        return tables_events([self.table_id], types, logs={self.table_id: self})[self.table_id]


def hand_events(hand: Hand, types: Iterable[str] | None = None) -> list[Event]:
    """The events of one hand (ended or in play), in seq order."""
    return TableLog(hand.table_id).hand_events(hand, types)


def since(table_id: int, seq: int) -> list[Event]:
    """The events after ``seq`` of a table in play (live catch-up: rows only)."""
    return _rows(TableEvent.objects.filter(table_id=table_id, seq__gt=seq))


def tables_events(table_ids: list[int], types: Iterable[str], *,
                  logs: dict[int, TableLog] | None = None) -> dict[int, list[Event]]:
    """``{table id: its events of these types in seq order}``: one query for the rows (with each
    table's first event, which tells whether the log starts in the rows), and one for the archives
    of the tables whose log does not."""
    types = tuple(types)
    out: dict[int, list[Event]] = {t: [] for t in table_ids}
    starts_in_rows: set[int] = set()
    for row in (TableEvent.objects.filter(Q(type__in=types) | Q(seq=1), table_id__in=table_ids)
                .order_by("table_id", "seq").values_list(*COLUMNS, "table_id")):
        event, table_id = Event(*row[:-1]), row[-1]
        if event.seq == 1:
            starts_in_rows.add(table_id)
        if event.type in types:
            out[table_id].append(event)
    missing = [t for t in table_ids if t not in starts_in_rows]
    if missing:
        for archive in TableArchive.objects.filter(table_id__in=missing):
            log = (logs or {}).get(archive.table_id) or TableLog(archive.table_id)
            log._archive, log._looked = open_archive(archive), True
            # The archive holds seqs 1..last_seq; rows after it (a socket opened on the ended table) follow.
            out[archive.table_id] = [e for e in log._archive.all() if e.type in types] + out[archive.table_id]
    return out


def rows_exist(table_id) -> Exists:
    """``EXISTS`` an event row of the table ``table_id`` (an id or an ``OuterRef``)."""
    return Exists(TableEvent.objects.filter(table_id=table_id))


def hand_rows_exist(hand_id) -> Exists:
    """``EXISTS`` an event row of the hand ``hand_id`` (an id or an ``OuterRef``)."""
    return Exists(TableEvent.objects.filter(hand_id=hand_id))


def describe(table_id: int) -> dict[str, Any]:
    """Where a table's log is: ``{"rows": n, "archived": n}`` (for commands and tests)."""
    archived = TableArchive.objects.filter(table_id=table_id).values_list("events", flat=True).first() or 0
    return {"rows": TableEvent.objects.filter(table_id=table_id).count(), "archived": archived}
