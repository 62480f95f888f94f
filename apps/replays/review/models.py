"""One stored 复盘 per (hand, seat): asked for once, computed once by the ``review`` queue's task."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ReviewStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    RUNNING = "running", _("Reviewing")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class HandReview(models.Model):
    """The review of one seat of one ended hand. ``result`` is the engine's review object for that
    seat (decisions and the seat's summary); ``decisions``, ``mistakes`` and ``loss`` repeat the
    summary for the profile's weekly trend, bucketed by ``played_at`` (when the hand ended)."""

    hand = models.ForeignKey("tables.Hand", on_delete=models.CASCADE, related_name="reviews")
    seat = models.PositiveSmallIntegerField(_("seat"))
    # The seat's player when the review was asked for (None: a bot seat): whose trend it feeds.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="+")
    status = models.CharField(_("status"), max_length=8, choices=ReviewStatus.choices, default=ReviewStatus.PENDING)
    seed = models.CharField(max_length=100)
    budget_ms = models.FloatField()
    result = models.JSONField(null=True, blank=True)
    decisions = models.PositiveIntegerField(default=0)
    mistakes = models.PositiveIntegerField(default=0)
    loss = models.FloatField(default=0.0)
    # A failure's kind (a code, never a sentence: the page words it).
    error = models.CharField(max_length=40, blank=True)
    played_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("hand review")
        verbose_name_plural = _("hand reviews")
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="review_one_per_hand_seat"),
            models.CheckConstraint(condition=Q(status="done") | Q(result__isnull=True), name="review_result_only_when_done"),
        ]
        indexes = [models.Index(fields=["user", "status", "played_at"], name="review_user_trend")]

    def __str__(self) -> str:
        return f"review hand {self.hand_id} seat {self.seat} ({self.status})"
