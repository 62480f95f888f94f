"""Celery entry points: fetch by id, call a service (STYLE.md). Thin on purpose."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from celery import shared_task
from django.core.cache import cache
from django.db import DatabaseError, close_old_connections

from . import leaderboards, selectors, services

LEADERBOARD_DEBOUNCE_SECONDS = 10


@shared_task(
    name="apps.ledgers.tasks.settle_hand",
    bind=True,
    ignore_result=True,  # the ledger row is the result
    acks_late=True,  # a worker killed mid-task leaves the message to be redelivered
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=8,
)
def settle_hand(self, hand_id: int) -> str:
    if not self.request.is_eager:
        # What Django does per request: drop a broken or CONN_MAX_AGE-expired connection (a worker
        # that reuses connections, see config/celery.py, would otherwise keep a broken one).
        close_old_connections()
    outcome = services.settle_hand(hand_id=hand_id)
    if outcome.status == "posted" and outcome.club_id is not None:
        schedule_leaderboard_rebuild(outcome.club_id)
    return outcome.status


@shared_task(name="apps.ledgers.tasks.sweep_unsettled", ignore_result=True)
def sweep_unsettled(limit: int = 2000) -> int:
    """Outbox sweep: re-enqueue finished hands that have no transaction yet."""
    hand_ids = selectors.unsettled_hand_ids(limit=limit)
    for hand_id in hand_ids:
        settle_hand.delay(hand_id)
    return len(hand_ids)


@shared_task(name="apps.ledgers.tasks.rebuild_leaderboards", bind=True, ignore_result=True, max_retries=20)
def rebuild_leaderboards(self, club_id: int | None = None, requested_at: float | None = None) -> str | int:
    """Rebuild every period of one club (after settlements) or of every club (beat)."""
    if club_id is None:
        return leaderboards.rebuild_all()
    cache.delete(_debounce_key(club_id))
    since = datetime.fromtimestamp(requested_at, tz=UTC) if requested_at else None
    status = leaderboards.rebuild_club(club_id=club_id, requested_at=since)
    if status == "busy":  # another worker is rebuilding with older data: come back after it
        raise self.retry(countdown=LEADERBOARD_DEBOUNCE_SECONDS)
    return status


def _debounce_key(club_id: int) -> str:
    return f"ledgers:lb-pending:{club_id}"


def schedule_leaderboard_rebuild(club_id: int) -> None:
    """At most one pending rebuild per club and process; rebuilds already covered are skipped."""
    if cache.add(_debounce_key(club_id), 1, timeout=LEADERBOARD_DEBOUNCE_SECONDS * 6):
        rebuild_leaderboards.apply_async(
            args=[club_id], kwargs={"requested_at": time.time()}, countdown=LEADERBOARD_DEBOUNCE_SECONDS
        )
