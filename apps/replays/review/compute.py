"""The 复盘 worker's side: run the engine's reviewer on a requested (hand, seat) and store it once
(services.py asks for it; tasks.py, on the ``review`` queue, calls this)."""

from __future__ import annotations

import logging

from django.utils import timezone

from apps.engine.analysis.review import review as engine_review

from ..export import hand_record
from .models import HandReview, ReviewStatus

log = logging.getLogger(__name__)


def review_compute(*, review_id: int) -> str:
    """The task's work: ``done``, ``failed``, or ``skipped`` (not pending: done, or another run has it)."""
    claimed = HandReview.objects.filter(pk=review_id, status=ReviewStatus.PENDING).update(
        status=ReviewStatus.RUNNING, started_at=timezone.now())
    if not claimed:
        return "skipped"
    review = HandReview.objects.select_related("hand").get(pk=review_id)
    try:
        result = engine_review(hand_record(review.hand), seat=review.seat, seed=review.seed,
                               budget_ms=review.budget_ms)
    except Exception:  # noqa: BLE001 - a record the reviewer cannot read: stored as failed, asked again later
        log.exception("review %s (hand %s seat %s) failed", review_id, review.hand_id, review.seat)
        HandReview.objects.filter(pk=review_id, status=ReviewStatus.RUNNING).update(
            status=ReviewStatus.FAILED, error="engine", finished_at=timezone.now())
        return "failed"
    summary = result["seats"][str(review.seat)]
    stored = HandReview.objects.filter(pk=review_id, status=ReviewStatus.RUNNING).update(
        status=ReviewStatus.DONE, result={"decisions": result["decisions"], "summary": summary,
                                          "review": result["review"]},
        decisions=summary["decisions"], mistakes=summary["mistakes"], loss=summary["loss"],
        finished_at=timezone.now())
    return "done" if stored else "skipped"
