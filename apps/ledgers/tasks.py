"""Celery entry points: fetch by id, call a service (STYLE.md). Thin on purpose."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError, close_old_connections

from . import selectors, services


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
    # The leaderboard buckets are updated by the posting itself (apps.ledgers.leaderboards).
    return services.settle_hand(hand_id=hand_id).status


@shared_task(name="apps.ledgers.tasks.sweep_unsettled", ignore_result=True)
def sweep_unsettled(limit: int = 2000) -> int:
    """Outbox sweep: re-enqueue finished hands that have no transaction yet."""
    hand_ids = selectors.unsettled_hand_ids(limit=limit)
    for hand_id in hand_ids:
        settle_hand.delay(hand_id)
    return len(hand_ids)
