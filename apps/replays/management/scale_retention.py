"""The retention part of ``scale_bench`` (issue #27, "bytes per hand"): what compaction saves and costs.

At each size: the event log's bytes per hand in PostgreSQL (``pg_total_relation_size`` of the event
table and of the archive table, indexes and TOAST included) before the job, right after it (deleted
rows leave free space PostgreSQL reuses but keeps) and after ``VACUUM FULL`` of both tables; the
job's wall and CPU ms per table; and the replay page, the export and the verification of a hand
before and after its table was compacted, against a hand whose table keeps its rows. Every table
with event rows but the last ``--keep-rows`` is compacted, by the daily job's own function
(``retention.compact_due``) with its cutoff at the last of them; its mark carries over to the next
size, so that size's run reads only the tables added since.
"""

from __future__ import annotations

import statistics
import time

from django.db import connection
from django.db.models import OuterRef, Sum
from django.test import Client

from apps.replays import retention
from apps.replays.verification import checklist, session_checklists
from apps.tables.models import Hand, Table, TableArchive
from apps.tables.storage.eventlog import hand_rows_exist, rows_exist

LOG_TABLES = ("tables_tableevent", "tables_tablearchive")
SAMPLE_NUMBER = 10  # the hand of a sample table that is measured (tables have 20)
SESSION_HANDS = 20  # scale_bench's HANDS_PER_TABLE


def relation_bytes(name: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s)", [name])
        return cursor.fetchone()[0]


def log_sizes(club, hand_tables: list[str]) -> dict:
    """Bytes of the event log per hand: rows, archives, both; and of every per-hand table."""
    row_hands = Hand.objects.filter(table__club=club).filter(hand_rows_exist(OuterRef("pk"))).count()
    archived = TableArchive.objects.filter(table__club=club).aggregate(hands=Sum("hands"), raw=Sum("raw_bytes"))
    archived_hands = archived["hands"] or 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(length(data)), 0) FROM tables_tablearchive a "
                       "JOIN tables_table t ON t.id = a.table_id WHERE t.club_id = %s", [club.pk])
        data_bytes = cursor.fetchone()[0]
    rows_b, archive_b = (relation_bytes(name) for name in LOG_TABLES)
    hands = Hand.objects.filter(table__club=club).count()
    every = sum(relation_bytes(name) for name in {*hand_tables, *LOG_TABLES})
    return {
        "hands": hands,
        "hands_in_rows": row_hands,
        "hands_archived": archived_hands,
        "event_rows_bytes_per_hand": round(rows_b / row_hands) if row_hands else None,
        "archive_bytes_per_hand": round(archive_b / archived_hands) if archived_hands else None,
        "archive_data_bytes_per_hand": round(data_bytes / archived_hands) if archived_hands else None,
        "archive_json_bytes_per_hand": round((archived["raw"] or 0) / archived_hands) if archived_hands else None,
        "event_log_bytes_per_hand": round((rows_b + archive_b) / max(row_hands + archived_hands, 1)),
        "event_table_bytes": rows_b,
        "archive_table_bytes": archive_b,
        "all_hand_tables_bytes_per_hand": round(every / max(hands, 1)),
    }


def measure(bench, size: int) -> dict:
    """The retention figures of ``bench`` (a scale_bench Command that has built ``size`` hands)."""
    club, opts = bench.club, bench.opts
    tables = list(Table.objects.filter(club=club, status__in=("finished", "dissolved"))
                  .filter(rows_exist(OuterRef("pk"))).order_by("finished_at", "pk")
                  .values_list("pk", "finished_at", "hands_per_session"))
    # The samples are whole sessions: not a table settle_hand's timing added event-less hands to.
    sample_tables = [t for t in tables if t[2] <= SESSION_HANDS]
    keep = opts["keep_rows"]
    if len(tables) <= keep:
        return {"skipped": f"{len(tables)} tables with event rows, --keep-rows {keep}"}
    due, kept = tables[:-keep], tables[-keep:]
    kept_sample = [t for t in kept if t in sample_tables]
    due_sample = [t for t in due if t in sample_tables]
    samples = {"compacted": Hand.objects.get(table_id=due_sample[len(due_sample) // 2][0], number=SAMPLE_NUMBER),
               "rows": Hand.objects.get(table_id=kept_sample[0][0], number=SAMPLE_NUMBER)}
    client = Client()
    client.force_login(bench.users[0])  # the owner: sees every replay of the club
    out: dict = {"tables_compacted": len(due), "tables_kept_in_rows": len(kept)}

    def items(when: str) -> dict:
        found = {}
        for label, hand in samples.items():
            hand_id, table = hand.pk, Table.objects.get(pk=hand.table_id)
            if when == "before" and label == "compacted":
                label = "to compact (rows)"
            for name, fn in (
                ("replay page", lambda h=hand_id: _ok(client.get(f"/replays/hands/{h}/"))),
                ("export", lambda h=hand_id: _ok(client.get(f"/replays/hands/{h}/export.json"))),
                ("verify the hand (checklist)", lambda h=hand_id: _all_ok(checklist(Hand.objects.get(pk=h)))),
                ("verify_hands of its table (20 hands)", lambda t=table: _session_ok(t)),
            ):
                found[f"{name}: {label}"] = bench.timed(fn)[0]
        return found

    out["before"] = {"sizes": log_sizes(club, bench.hand_tables), "items": items("before")}
    w, c = time.perf_counter(), time.process_time()
    cutoff = due[-1][1]
    report = retention.compact_due(older_than_days=0, now=cutoff)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    done = report.of(retention.COMPACTED)
    out["job"] = {
        "tables_looked_at": len(report.results), "compacted": len(done),
        "skipped": {r: sum(x.reason == r for x in report.results if x.outcome == retention.SKIPPED)
                    for r in {x.reason for x in report.results if x.outcome == retention.SKIPPED}},
        "events": sum(r.events for r in done), "hands": sum(r.hands for r in done),
        "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
        "per_table_wall_ms_median": round(statistics.median(r.wall_ms for r in done), 1) if done else None,
        "per_table_cpu_ms_median": round(statistics.median(r.cpu_ms for r in done), 1) if done else None,
        "json_bytes": sum(r.raw_bytes for r in done), "stored_bytes": sum(r.stored_bytes for r in done),
        "mark": report.mark_after.isoformat() if report.mark_after else None,
    }
    rerun, _ = bench.timed(lambda: retention.compact_due(older_than_days=0, now=cutoff))
    out["job"]["rerun (nothing new)"] = rerun
    out["after_job"] = {"sizes": log_sizes(club, bench.hand_tables)}
    with connection.cursor() as cursor:
        for name in LOG_TABLES:
            cursor.execute(f"VACUUM FULL ANALYZE {connection.ops.quote_name(name)}")
    out["after_vacuum_full"] = {"sizes": log_sizes(club, bench.hand_tables), "items": items("after")}
    failed = checked = 0
    for table_id, _, _ in due_sample[:: max(1, len(due_sample) // 5)][:5]:  # a verify_hands sample of compacted tables
        table = Table.objects.get(pk=table_id)
        hands = list(Hand.objects.filter(table=table).order_by("number"))
        results, between = session_checklists(table, hands)
        checked += len(hands)
        failed += bool(between) + sum(any(not c.ok for c in results[h.pk]) for h in hands)
    out["verify_sample_of_compacted"] = {"hands": checked, "failed": failed}
    return out


def _ok(response) -> None:
    assert response.status_code == 200, response.status_code


def _all_ok(checks) -> None:
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]


def _session_ok(table) -> None:
    hands = list(Hand.objects.filter(table=table).order_by("number"))
    results, between = session_checklists(table, hands)
    assert not between and all(c.ok for h in hands for c in results[h.pk])
