"""Match reminders (issue #47), each sent exactly once per entrant (accounts.notices: one notice
per recipient and key): check-in opens, the match starts in 5 minutes (both from the
``start_due_matches`` beat job), and a round's table is ready (sent where the round is seated)."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Q
from django.urls import reverse

from apps.accounts import notices

from ..models import BEFORE_START, BEFORE_START_STATES, EntrantStatus, Match, MatchState
from .base import now_or

SOON = timedelta(minutes=5)
NOT_CHECKED_IN = (EntrantStatus.REGISTERED, EntrantStatus.WAITLISTED)


def remind_due(now=None) -> int:
    """Send the check-in and starts-soon reminders that are due and not sent yet; how many. One
    query finds the matches in either window, then two per match (its entrants, those told)."""
    now = now_or(now)
    due = Match.objects.filter(state__in=BEFORE_START_STATES, starts_at__gt=now).filter(
        Q(checkin_opens_at__lte=now, state__in=(MatchState.REGISTERING, MatchState.CHECKING_IN))
        | Q(starts_at__lte=now + SOON)
    ).only("pk", "name", "checkin_opens_at", "starts_at", "state")
    sent = 0
    for match in due:
        url = reverse("matches:detail", args=[match.pk])
        entrants = list(match.entrants.filter(status__in=BEFORE_START).values_list("user_id", "status"))
        if match.checkin_opens_at <= now and match.state != MatchState.DRAFT:
            sent += len(notices.notify_each(
                recipient_ids=[u for u, status in entrants if status in NOT_CHECKED_IN], kind="match_checkin",
                key=f"match:{match.pk}:checkin", params={"match": match.name}, url=url))
        if match.starts_at <= now + SOON:
            sent += len(notices.notify_each(recipient_ids=[u for u, _status in entrants], kind="match_soon",
                                            key=f"match:{match.pk}:soon", params={"match": match.name}, url=url))
    return sent


def table_ready(*, match: Match, round_number: int, table_id: int, user_ids) -> None:
    """Tell the players of a newly seated match table where to go (inside the seating transaction:
    sent after its commit, never for a seating that rolled back)."""
    notices.notify_each(recipient_ids=user_ids, kind="match_table", key=f"match_table:{table_id}",
                        params={"match": match.name, "round": round_number},
                        url=reverse("tables:detail", args=[table_id]))
