"""复盘 writes: who may ask for which seat, and asking (once).

- ``review_seat(access, user, seat)``: the seat a viewer may have reviewed. A player of the hand gets
  his own seat only; the club's owner/admins and staff any seat. Anything else is refused as the
  replays app refuses a hand (404), so a plain player cannot learn that another seat's review exists.
- ``review_request``: one row per (hand, seat), made under the database's unique constraint; only the
  request that made the row (or revived a failed one) enqueues the task, after commit.
- The task's work is compute.py's ``review_compute``: it claims the row (pending → running) with one
  conditional UPDATE, runs the engine's reviewer outside any transaction, and stores the result with
  another (running → done): a second delivery of the task, or a parallel one, finds nothing to claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from apps.tables.models import Hand, HandStatus
from config.celery import send_on_commit

from .. import access as replay_access
from .models import HandReview, ReviewStatus

REVIEWERS = (replay_access.MANAGER, replay_access.STAFF)
# A run not finished after this long was lost (its worker died): the next request starts it again.
STALE_RUN = timedelta(minutes=30)


@dataclass
class ReviewError(Exception):
    """Bad input to a review request: ``code`` is stable (the page words it), nothing was changed."""

    code: str


def review_seed(hand: Hand) -> str:
    """The reviewer's seed: fixed per hand, so the review of a (hand, seat) is the same every time."""
    return f"hand:{hand.pk}:{hand.seed_hash}"


def parse_seat(raw: Any, default: int | None) -> int | None:
    """A seat number from a form or query value (``default`` when absent); ReviewError("bad_seat")."""
    if raw is None or raw == "":
        return default
    try:
        return int(str(raw).strip())
    except ValueError as exc:
        raise ReviewError("bad_seat") from exc


def review_seat(*, access: replay_access.ReplayAccess, user, seat: int | None) -> int:
    """The seat whose review ``user`` may see or ask for (``access`` from ``replays.access.hand_or_404``).

    Http404 for a seat that is not his and not his to see (as for a hand he may not see);
    ReviewError("bad_seat") for a seat the hand does not have."""
    hand = access.hand
    players = hand.players or {}
    if seat is None:
        if access.seat is None:
            raise ReviewError("bad_seat")
        seat = access.seat
    if seat != access.seat:
        role = access.role
        if role == replay_access.PLAYER:  # a player who is also an admin is a PLAYER: look his role up
            role = replay_access.club_role(user, hand.table.club_id)
        if role not in REVIEWERS:
            raise Http404
    if str(seat) not in {str(k) for k in players}:
        raise ReviewError("bad_seat")
    return seat


def review_of(*, hand: Hand, seat: int) -> HandReview | None:
    return HandReview.objects.filter(hand=hand, seat=seat).first()


def review_request(*, hand: Hand, seat: int, by) -> HandReview:
    """Ask for the review of ``seat`` of ``hand`` (the caller checked access and the seat).

    Exactly one row per (hand, seat) whatever the number of parallel requests: the row is created
    under its unique constraint, and only the request that created it enqueues the task (after its
    commit). Asking again returns the stored row; a failed or lost one is asked for again."""
    if hand.status != HandStatus.FINISHED or not hand.seed:
        raise ReviewError("not_finished")
    existing = review_of(hand=hand, seat=seat)
    if existing is not None and existing.status in (ReviewStatus.PENDING, ReviewStatus.DONE):
        return existing  # asked for already: stored, or on its way
    user_id = (hand.players or {}).get(str(seat), (hand.players or {}).get(seat))
    try:
        with transaction.atomic():
            review = HandReview.objects.create(
                hand=hand, seat=seat, user_id=user_id, requested_by=by, status=ReviewStatus.PENDING,
                seed=review_seed(hand), budget_ms=float(settings.REVIEW_BUDGET_MS),
                played_at=hand.finished_at or hand.started_at,
            )
    except IntegrityError:  # made by an earlier or a parallel request: that one enqueued it
        review = HandReview.objects.get(hand=hand, seat=seat)
        # A failed review, or one whose run was lost (its worker killed), is asked for again.
        lost = Q(status=ReviewStatus.RUNNING, started_at__lt=timezone.now() - STALE_RUN)
        revived = HandReview.objects.filter(Q(status=ReviewStatus.FAILED) | lost, pk=review.pk).update(
            status=ReviewStatus.PENDING, error="", requested_by=by, started_at=None, finished_at=None)
        review.refresh_from_db()
        if not revived:
            return review
    from .tasks import compute_review

    send_on_commit(compute_review, review.pk)
    return review
