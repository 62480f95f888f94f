"""Celery entry points of the audit statistics (thin: fetch by id, call a service)."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError, close_old_connections

from config.celery import send_on_commit

from . import selectors, services
from .fairplay_work import fairplay_compute, sweep_rows


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


@shared_task(name="apps.replays.audit.tasks.compute_fairplay", bind=True, ignore_result=True)
def compute_fairplay(self, result_id: int) -> str:
    """信息优势: routed to the ``review`` queue (config/settings.py CELERY_TASK_ROUTES), never the live tables'."""
    if not self.request.is_eager:
        close_old_connections()
    return fairplay_compute(result_id=result_id)


@shared_task(name="apps.replays.audit.tasks.sweep_fairplay", ignore_result=True)
def sweep_fairplay(today=None) -> int:
    """Beat, nightly: ask for the 信息优势 of the players with enough new hands (fairplay_work.py)."""
    ids = sweep_rows(today=today)
    for result_id in ids:
        send_on_commit(compute_fairplay, result_id)
    return len(ids)
