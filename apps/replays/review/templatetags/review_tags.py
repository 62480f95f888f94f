"""The 复盘's words for the replay viewer's script, and the profile's weekly trend block."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

from ..selectors import weekly_trend
from ..views import error_words

register = template.Library()


@register.simple_tag
def review_strings() -> dict:
    """The review panel's UI strings (static/js/replay/review.js), translated on the server."""
    return {
        **error_words(),
        "pending": _("Waiting for the reviewer…"), "running": _("Reviewing… this takes a little while."),
        "agreement": _("Agreement"), "pointsLost": _("Points lost"), "mistakes": _("Mistakes"),
        "decisions": _("Decisions"), "meanLoss": _("Mean loss per decision"),
        "noMistake": _("No mistakes in this hand."),
        "chosen": _("Chosen:"), "preferred": _("The review prefers:"), "agrees": _("Agrees with the review"),
        "tooClose": _("Agrees with the review: the difference is within the noise of the simulation"),
        "mistakeCost": _("Mistake: costs %(loss)s points"), "smallLoss": _("Costs %(loss)s points"),
        "ev": _("Expected points"), "decisionOf": _("Decision %(k)s of %(n)s"),
        "notDecision": _("Step to one of this seat's decisions (or jump to a mistake) to see its review."),
        "worlds": _("%(n)s simulated deals"), "mistakeMark": _("Mistake"),
    }


@register.inclusion_tag("replays/_review_trend.html")
def review_trend(user) -> dict:
    """The profile's block: mean loss per decision and mistake rate per week over the user's reviewed
    hands (one aggregate query), drawn by static/js/replay/trend.js with the vendored uPlot."""
    rows = weekly_trend(user)
    return {
        "rows": rows,
        "chart": {
            "x": [int(r["week"].timestamp()) for r in rows],
            "mean_loss": [r["mean_loss"] for r in rows],
            "mistake_rate": [None if r["mistake_rate"] is None else round(100 * r["mistake_rate"], 1) for r in rows],
            "hands": [r["hands"] for r in rows],
        },
    }
