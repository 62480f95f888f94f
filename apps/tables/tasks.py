"""Celery entry points (thin): fire overdue deadlines (the time-out rules), sweep lost presence."""

from __future__ import annotations

import logging

from celery import shared_task

from apps.tables.read.selectors import overdue_table_ids
from apps.tables.verbs import presence
from apps.tables.verbs.play import deadline_fire

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


@shared_task(name="apps.tables.tasks.sweep_presence")
def sweep_presence() -> int:
    """Put offline the seats whose socket died with its process (presence.py); returns how many."""
    return len(presence.sweep())
