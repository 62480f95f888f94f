"""复盘 reads: one review's state for the viewer's poll, a player's weekly trend for his profile."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Count, Sum
from django.db.models.functions import TruncWeek
from django.utils import timezone

from .models import HandReview, ReviewStatus

TREND_WEEKS = 26


def review_state(review: HandReview | None, seat: int) -> dict[str, Any]:
    """What the viewer polls: ``status`` ("none" when never asked for) and, once done, the review."""
    if review is None:
        return {"seat": seat, "status": "none"}
    state: dict[str, Any] = {"seat": seat, "status": review.status}
    if review.status == ReviewStatus.DONE:
        state["review"] = review.result
    elif review.status == ReviewStatus.FAILED:
        state["error"] = review.error or "engine"
    return state


def weekly_trend(user, *, weeks: int = TREND_WEEKS) -> list[dict[str, Any]]:
    """``[{"week", "hands", "decisions", "mean_loss", "mistake_rate"}]`` over the user's reviewed hands
    of the last ``weeks`` weeks, one row a week in order: one aggregate query, whatever his history."""
    since = timezone.now() - timedelta(weeks=weeks)
    rows = (HandReview.objects.filter(user=user, status=ReviewStatus.DONE, played_at__gte=since)
            .annotate(week=TruncWeek("played_at")).values("week")
            .annotate(hands=Count("id"), decisions=Sum("decisions"), loss=Sum("loss"), mistakes=Sum("mistakes"))
            .order_by("week"))
    out = []
    for row in rows:
        n = row["decisions"] or 0
        out.append({
            "week": row["week"], "hands": row["hands"], "decisions": n,
            "mean_loss": round(row["loss"] / n, 3) if n else None,
            "mistake_rate": round(row["mistakes"] / n, 3) if n else None,
        })
    return out
