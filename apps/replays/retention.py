"""Retention of old hands' events (issue #27, "bytes per hand"): the daily compaction job.

An ended table whose session ended more than ``TABLES_COMPACT_AFTER_DAYS`` days ago (default 395,
13 months; a table ends after its last hand) has its ``TableEvent`` rows replaced by one
``TableArchive`` (apps/tables/storage/archive.py): the same events, hash chain included, as compressed
JSON. Replays, exports, ``verify_hands`` and the audit read them through ``apps.tables.storage.eventlog``
exactly as before, and verification still recomputes the chain.

Cost follows the work: a ``SweepMark`` named ``tables.compact`` (the pattern of
``apps.ledgers.sweeps``) says before which end time every table was done, so a daily run reads the
tables that ended since the mark (less ``OVERLAP``) up to the cutoff, in batches, through the
partial index ``tables_ended_finished_at``. Each table is compacted in its own transaction under
its row lock: the archive is written, read back, compared with the rows and its chain checked
before the rows are deleted; a crash anywhere rolls back to the rows. Rerunning is a no-op for a
compacted table (it has an archive, which is unique per table).

Never compacted: a table that is open or has a hand in play, one with a finished hand not yet
settled in the ledger (both hold the mark back: they are done later), one younger than the
cutoff. A table whose rows are not a whole, intact log keeps them (``verify_hands`` names why) and
does not hold the mark back.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from apps.ledgers.models import SweepMark, Transaction
from apps.ledgers.sweeps import OVERLAP
from apps.tables.models import ENDED_TABLE_STATUSES, Hand, HandStatus, Table, TableArchive
from apps.tables.storage.archive import LogBroken, replace_rows
from apps.tables.storage.eventlog import TableLog, rows_exist

log = logging.getLogger(__name__)

SWEEP = "tables.compact"
BATCH = 100  # tables read per query; each is then compacted in its own transaction

COMPACTED, WOULD_COMPACT, SKIPPED = "compacted", "would compact", "skipped"
# Skips that clear up by themselves (the hand gets settled, ...): they hold the mark back.
TRANSIENT = frozenset({"in play", "unsettled"})


@dataclass
class TableResult:
    table_id: int
    finished_at: datetime
    outcome: str  # COMPACTED, WOULD_COMPACT or SKIPPED
    reason: str = ""
    events: int = 0
    hands: int = 0
    raw_bytes: int = 0  # the archive's JSON before compression
    stored_bytes: int = 0  # the compressed value stored
    wall_ms: float = 0.0
    cpu_ms: float = 0.0

    @property
    def holds_mark(self) -> bool:
        return self.outcome == SKIPPED and self.reason in TRANSIENT


@dataclass
class Report:
    cutoff: datetime
    mark_before: datetime | None
    mark_after: datetime | None
    results: list[TableResult] = field(default_factory=list)

    def of(self, outcome: str) -> list[TableResult]:
        return [r for r in self.results if r.outcome == outcome]


def compact_after_days() -> int:
    return int(getattr(settings, "TABLES_COMPACT_AFTER_DAYS", 395))


def due_tables(*, cutoff: datetime, since: datetime | None = None, club_id: int | None = None,
               after: tuple[datetime, int] | None = None, limit: int = BATCH) -> list[tuple[int, datetime]]:
    """``(table id, finished_at)`` of ended tables that ended in ``[since, cutoff]``, still have
    event rows and no archive, oldest first, after the keyset ``after``, at most ``limit``."""
    qs = Table.objects.filter(status__in=ENDED_TABLE_STATUSES, finished_at__lte=cutoff)
    if since is not None:
        qs = qs.filter(finished_at__gte=since)
    if club_id is not None:
        qs = qs.filter(club_id=club_id)
    if after is not None:
        qs = qs.filter(Q(finished_at__gt=after[0]) | Q(finished_at=after[0], pk__gt=after[1]))
    qs = qs.filter(rows_exist(OuterRef("pk"))).exclude(Exists(TableArchive.objects.filter(table_id=OuterRef("pk"))))
    return list(qs.order_by("finished_at", "pk").values_list("pk", "finished_at")[:limit])


def blocker(table: Table, cutoff: datetime) -> str | None:
    """Why ``table`` (locked) may not be compacted now, or None."""
    if table.status not in ENDED_TABLE_STATUSES:
        return "in play"
    if table.finished_at is None or table.finished_at > cutoff:
        return "too young"
    if TableArchive.objects.filter(table=table).exists():
        return "already compacted"
    settled = Exists(Transaction.objects.filter(hand_id=OuterRef("pk")))
    waiting = (Hand.objects.filter(table=table).alias(settled=settled)
               .filter(Q(status=HandStatus.PLAYING) | Q(status=HandStatus.FINISHED, settled=False))
               .values_list("status", flat=True).first())
    if waiting is not None:
        return "in play" if waiting == HandStatus.PLAYING else "unsettled"
    return None


def compact_table(table_id: int, *, cutoff: datetime, dry_run: bool = False) -> TableResult:
    """Compact one table in one transaction (its row locked); what happened."""
    w, c = time.perf_counter(), time.process_time()
    result = TableResult(table_id=table_id, finished_at=None, outcome=SKIPPED)
    try:
        with transaction.atomic():
            table = Table.objects.select_for_update().filter(pk=table_id).first()
            if table is None:
                result.reason = "gone"
                return result
            result.finished_at = table.finished_at
            result.reason = blocker(table, cutoff) or ""
            if result.reason:
                return result
            events = TableLog(table.pk).stored_rows()
            result.events = len(events)
            result.hands = len({e.hand_id for e in events if e.hand_id is not None})
            if dry_run:
                result.outcome = WOULD_COMPACT
                return result
            archive = replace_rows(table, events)
            result.outcome = COMPACTED
            result.raw_bytes, result.stored_bytes = archive.raw_bytes, len(archive.data)
    except LogBroken as exc:  # rolled back: the rows stay, the archive is gone
        result.outcome, result.reason = SKIPPED, f"log broken: {exc}"
        log.warning("compaction: table %s keeps its rows: %s", table_id, exc)
    finally:
        result.wall_ms = (time.perf_counter() - w) * 1000
        result.cpu_ms = (time.process_time() - c) * 1000
    return result


def compact_due(*, older_than_days: int | None = None, club_id: int | None = None, dry_run: bool = False,
                batch: int = BATCH, limit: int | None = None, now: datetime | None = None) -> Report:
    """The job: compact every due table (at most ``limit``), batch by batch.

    The mark is read and moved only by a run over every club that writes (not ``club_id``, not
    ``dry_run``): it moves to the end time of the oldest table held back (in play, unsettled), or,
    when none was, to the cutoff — or to the last table looked at when ``limit`` stopped the run."""
    now = now or timezone.now()
    days = compact_after_days() if older_than_days is None else older_than_days
    cutoff = now - timedelta(days=days)
    mark = SweepMark.objects.filter(name=SWEEP).values_list("mark", flat=True).first() if club_id is None else None
    report = Report(cutoff=cutoff, mark_before=mark, mark_after=mark)
    since = mark - OVERLAP if mark is not None else None
    held: datetime | None = None
    after = None
    stopped = False
    while True:
        page = due_tables(cutoff=cutoff, since=since, club_id=club_id, after=after, limit=batch)
        for table_id, finished_at in page:
            if limit is not None and len(report.results) >= limit:
                stopped = True
                break
            result = compact_table(table_id, cutoff=cutoff, dry_run=dry_run)
            report.results.append(result)
            if result.holds_mark and (held is None or finished_at < held):
                held = finished_at
            after = (finished_at, table_id)
        if stopped or len(page) < batch:
            break
    if held is not None:
        new_mark = held
    elif stopped:
        new_mark = after[0]
    else:  # every table up to the cutoff is done, and every one before the old mark was
        new_mark = cutoff if mark is None else max(mark, cutoff)
    if club_id is None and not dry_run:
        SweepMark.objects.update_or_create(name=SWEEP, defaults={"mark": new_mark})
        report.mark_after = new_mark
    done = report.of(COMPACTED)
    if done:
        log.info("compaction: %d tables, %d events, %d -> %d bytes", len(done), sum(r.events for r in done),
                 sum(r.raw_bytes for r in done), sum(r.stored_bytes for r in done))
    return report
