"""Celery entry points (thin): find overdue tables, let the service apply the time-out rules."""

from __future__ import annotations

import logging

from celery import shared_task

from .play import deadline_fire
from .selectors import overdue_table_ids

log = logging.getLogger(__name__)


@shared_task(name="apps.tables.tasks.fire_deadlines")
def fire_deadlines() -> int:
    """Fire every overdue turn/claim/piao/dissolve deadline; returns how many tables moved."""
    fired = 0
    for table_id in overdue_table_ids():
        try:
            fired += bool(deadline_fire(table_id=table_id))
        except Exception:  # noqa: BLE001 - one broken table must not stop the others
            log.exception("deadline of table %s failed", table_id)
    return fired
