"""Celery entry points of the replays app (thin: call a service)."""

from __future__ import annotations

from celery import shared_task

from apps.tables.verbs import phrases

from . import retention


@shared_task(name="apps.replays.tasks.compact_old_events", ignore_result=True)
def compact_old_events(limit: int = 20_000) -> int:
    """Beat, daily: compact the event logs of tables that ended more than TABLES_COMPACT_AFTER_DAYS
    days ago (apps/replays/retention.py); the number of tables compacted. A run stopped by ``limit``
    leaves its mark at the last table it looked at: the next run goes on from there. It also purges
    the 快捷语 older than 30 days (issue #47: apps/tables/verbs/phrases.py ``purge_old``)."""
    phrases.purge_old()
    return len(retention.compact_due(limit=limit).of(retention.COMPACTED))
