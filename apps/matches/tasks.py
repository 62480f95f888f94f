"""Celery entry points (thin): find due and running matches, let the services move them."""

from __future__ import annotations

import logging

from celery import shared_task

from . import services

log = logging.getLogger(__name__)


@shared_task(name="apps.matches.tasks.start_due_matches")
def start_due_matches() -> int:
    """Open/close registration and start every match whose time has come, then send the match
    reminders now due (each once: apps/matches/services/reminders.py); how many matches moved."""
    moved = len(services.start_due())
    services.remind_due()
    return moved


@shared_task(name="apps.matches.tasks.advance_matches")
def advance_matches() -> int:
    """The safety net of the on-commit advance: record finished tables, seat due rounds, and let
    托管 seats of the running matches' tables play what is due; how many matches moved."""
    moved = 0
    for match_id in services.running_match_ids():
        try:
            moved += bool(services.advance(match_id=match_id))
            services.play_tables(services.open_table_ids(match_id=match_id))
        except Exception:  # noqa: BLE001 - one broken match must not stop the others
            log.exception("advancing match %s failed", match_id)
    return moved
