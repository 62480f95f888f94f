"""Celery entry point of the 复盘 (thin: call the service). Routed to the ``review`` queue
(config/settings.py CELERY_TASK_ROUTES): its own worker, never the live tables' one."""

from __future__ import annotations

from celery import shared_task
from django.db import close_old_connections

from .compute import review_compute


@shared_task(name="apps.replays.review.tasks.compute_review", bind=True, ignore_result=True)
def compute_review(self, review_id: int) -> str:
    if not self.request.is_eager:
        close_old_connections()
    return review_compute(review_id=review_id)
