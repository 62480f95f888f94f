"""``manage.py compact_events [--older-than-days N] [--club ID] [--dry-run]``: the retention job by hand.

Compacts the event rows of every ended table that ended more than N days ago (default
``TABLES_COMPACT_AFTER_DAYS``) into its archive (apps/replays/retention.py), and prints one line per
table looked at (compacted, or why not), then the totals: events, bytes before and after
compression, wall and CPU milliseconds per table, and the job's mark. ``--club`` limits it to one
club (the mark is then neither read nor moved); ``--dry-run`` writes nothing.
"""

from __future__ import annotations

import statistics

from django.core.management.base import BaseCommand, CommandError

from apps.replays import retention


class Command(BaseCommand):
    help = "Compact the event logs of tables that ended more than N days ago into verified archives."

    def add_arguments(self, parser):
        parser.add_argument("--older-than-days", type=int, help="default: TABLES_COMPACT_AFTER_DAYS")
        parser.add_argument("--club", type=int, help="only this club's tables (the job's mark is left alone)")
        parser.add_argument("--dry-run", action="store_true", help="list what would be compacted; write nothing")
        parser.add_argument("--limit", type=int, help="at most this many tables")
        parser.add_argument("--quiet", action="store_true", help="totals only, no line per table")

    def handle(self, *args, **opts):
        if opts["older_than_days"] is not None and opts["older_than_days"] < 0:
            raise CommandError("--older-than-days must be 0 or more", returncode=2)
        report = retention.compact_due(older_than_days=opts["older_than_days"], club_id=opts["club"],
                                       dry_run=opts["dry_run"], limit=opts["limit"])
        if not opts["quiet"]:
            for r in report.results:
                ended = f"{r.finished_at:%Y-%m-%d}" if r.finished_at else "-"
                line = f"table {r.table_id} (ended {ended}): {r.outcome}"
                if r.reason:
                    line += f" ({r.reason})"
                if r.outcome != retention.SKIPPED:
                    line += f", {r.events} events of {r.hands} hands"
                if r.outcome == retention.COMPACTED:
                    line += f", {r.raw_bytes:,} -> {r.stored_bytes:,} bytes, {r.wall_ms:.1f} ms ({r.cpu_ms:.1f} CPU)"
                self.stdout.write(line)
        done = report.of(retention.COMPACTED)
        would = report.of(retention.WOULD_COMPACT)
        skipped = report.of(retention.SKIPPED)
        self.stdout.write(f"cutoff {report.cutoff.isoformat()}: {len(done)} compacted, {len(would)} would be, "
                          f"{len(skipped)} skipped")
        if done:
            raw, stored = sum(r.raw_bytes for r in done), sum(r.stored_bytes for r in done)
            self.stdout.write(
                f"  {sum(r.events for r in done):,} events of {sum(r.hands for r in done):,} hands; "
                f"{raw:,} bytes of JSON -> {stored:,} stored ({raw / max(stored, 1):.1f}x); per table "
                f"median {statistics.median(r.wall_ms for r in done):.1f} ms wall, "
                f"{statistics.median(r.cpu_ms for r in done):.1f} ms CPU")
        for reason in sorted({r.reason for r in skipped}):
            self.stdout.write(f"  skipped ({reason}): {sum(r.reason == reason for r in skipped)}")
        if report.mark_after != report.mark_before:
            before = report.mark_before.isoformat() if report.mark_before else "none"
            self.stdout.write(f"  mark {retention.SWEEP}: {before} -> {report.mark_after.isoformat()}")
