"""A club's live group (``club.<id>``): the club page follows it through the page's own socket
(accounts/live.py ``FOLLOWS["club"]``, members only), and anything that changes what the page
shows — its open tables, its pending join requests — nudges it after the commit. A nudge carries
no data: each page then fetches the part once (clubs.views.club_live, a fixed number of queries)."""

from __future__ import annotations

from django.db import transaction

from apps.accounts import notices

from .models import Membership


def group_name(club_id: int) -> str:
    return f"club.{club_id}"


def nudge_message(club_id: int) -> dict:
    return {"type": "live.nudge", "what": "club", "id": club_id}


def follow(user_id: int, club_id: int) -> str | None:
    """The group a member's page joins (one query); None for anyone else."""
    return group_name(club_id) if Membership.objects.filter(club_id=club_id, user_id=user_id).exists() else None


def nudge_on_commit(club_id: int) -> None:
    """Nudge the club's pages once the caller's transaction commits."""
    transaction.on_commit(lambda: notices.group_send(group_name(club_id), nudge_message(club_id)))
