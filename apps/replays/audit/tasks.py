"""Celery entry points of the audit statistics (thin: fetch by id, call a service)."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError, close_old_connections

from . import selectors, services


@shared_task(
    name="apps.replays.audit.tasks.record_hand",
    bind=True,
    ignore_result=True,  # the statistics rows are the result
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError,),  # a deadlock or a lost race between two hands of one club
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=8,
)
def record_hand(self, hand_id: int) -> str:
    if not self.request.is_eager:
        close_old_connections()
    return services.record_hand(hand_id=hand_id)


@shared_task(name="apps.replays.audit.tasks.sweep_unrecorded", ignore_result=True)
def sweep_unrecorded(limit: int = 1000) -> int:
    """Beat: re-enqueue finished hands whose statistics were never recorded (a lost task)."""
    hand_ids = selectors.unrecorded_hand_ids(limit=limit)
    for hand_id in hand_ids:
        record_hand.delay(hand_id)
    return len(hand_ids)
