"""``manage.py verify_hands [--club ID] [--since DATE]``: the verification checklist in bulk.

Checks every ended hand (finished or dissolved) of the selection — the engine's standalone checks
(commitment, deck, replay, chain, settlement, ledger) plus the database facts (apps/replays/
verification.py) — one session export per table, so a few queries per table, not per event.
Prints the counts (checked, passed, failed per check kind), each failing hand with its first
problem, and the throughput; exits 1 when any hand failed, 2 for bad arguments.
"""

from __future__ import annotations

import time
from collections import Counter
from datetime import datetime
from datetime import time as dtime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from apps.replays.verification import session_checklists
from apps.tables.models import Hand, Table
from apps.tables.storage.records import ENDED


def parse_since(text: str) -> datetime:
    """A date (midnight, current time zone) or an ISO datetime; CommandError otherwise."""
    when = parse_datetime(text)
    if when is None:
        day = parse_date(text)
        if day is None:
            raise CommandError(f"--since: not a date (YYYY-MM-DD) or ISO datetime: {text!r}", returncode=2)
        when = datetime.combine(day, dtime.min)
    if timezone.is_naive(when):
        when = timezone.make_aware(when)
    return when


class Command(BaseCommand):
    help = "Verify ended hands in bulk (commitment, deck, replay, chain, settlement, ledger); exit 1 on any failure."

    def add_arguments(self, parser):
        parser.add_argument("--club", type=int, help="only this club's tables")
        parser.add_argument("--since", help="only hands that ended at or after this date / datetime")
        parser.add_argument("--show", type=int, default=50, help="failing hands listed (default 50)")

    def handle(self, *args, **opts):
        hands = Hand.objects.filter(status__in=ENDED).order_by("table_id", "number")
        if opts["club"] is not None:
            hands = hands.filter(table__club_id=opts["club"])
        if opts["since"]:
            hands = hands.filter(finished_at__gte=parse_since(opts["since"]))
        start, cpu_start = time.perf_counter(), time.process_time()
        table_ids = sorted(set(hands.values_list("table_id", flat=True)))
        checked = passed = 0
        failed_by_key: Counter[str] = Counter()
        failures: list[str] = []
        for table_id in table_ids:  # one table's hands in memory at a time
            table = Table.objects.get(pk=table_id)
            table_hands = list(hands.filter(table_id=table_id))
            results, table_level = session_checklists(table, table_hands)
            for check in table_level:
                failed_by_key[f"{check.key} (between hands)"] += 1
                failures.append(f"table {table_id}: {check.key}: {check.detail}")
            for hand in table_hands:
                checks = results[hand.pk]
                checked += 1
                bad = [c for c in checks if not c.ok]
                for c in bad:
                    failed_by_key[c.key] += 1
                if bad:
                    failures.append(f"hand {hand.pk} (table {table_id} #{hand.number}, {hand.status}): "
                                    f"{bad[0].key}: {bad[0].detail}")
                else:
                    passed += 1
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        rate = f"{checked / seconds:.0f} hands/s" if seconds > 0 and checked else "-"
        # On a shared machine the wall clock counts other processes' turns; this process's CPU does not
        # (the database's own work is in the wall time only).
        cpu_rate = f"{checked / cpu:.0f} hands per CPU second" if cpu > 0 and checked else "-"
        self.stdout.write(f"checked {checked} hands on {len(table_ids)} tables in {seconds:.1f}s ({rate}; "
                          f"{cpu:.1f}s CPU, {cpu_rate})")
        self.stdout.write(f"passed {passed}, failed {checked - passed}")
        for key, n in sorted(failed_by_key.items()):
            self.stdout.write(f"  failed {key}: {n}")
        for line in failures[: opts["show"]]:
            self.stdout.write(f"  FAIL {line}")
        if len(failures) > opts["show"]:
            self.stdout.write(f"  … and {len(failures) - opts['show']} more")
        if failures:
            raise CommandError(f"{len(failures)} verification failures", returncode=1)
        self.stdout.write(self.style.SUCCESS("every hand checks out"))
