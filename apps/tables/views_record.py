"""战绩 pages (issue #47): a player's own sessions, and a member's sessions in one club for its
owner and admins. Thin: the selectors are in apps/tables/read/record.py."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.clubs.access import manager_access
from apps.clubs.models import Membership
from apps.clubs.paging import keyset_page
from apps.tables.read import record


def _page(request: HttpRequest, *, target, club=None, extra: dict | None = None) -> HttpResponse:
    page = keyset_page(record.sessions(user=target, club=club), keys=record.KEYS, size=record.PAGE_SIZE,
                       params=request.GET)
    return render(request, "tables/record.html", {
        "target": target, "club": club, "page": page, "own": target.pk == request.user.pk,
        "sessions": record.with_hands(page.object_list, user_id=target.pk), **(extra or {}),
    })


@login_required
@require_GET
def my_record(request: HttpRequest) -> HttpResponse:
    """His own 战绩, every club."""
    return _page(request, target=request.user)


@login_required
@require_GET
def member_record(request: HttpRequest, club_id: int, user_id: int) -> HttpResponse:
    """A member's 战绩 in this club, for its owner and admins (404 outsiders and non-members, 403 below admin)."""
    club, _membership = manager_access(request, club_id)
    if not Membership.objects.filter(club=club, user_id=user_id).exists():
        raise Http404
    return _page(request, target=get_user_model().objects.get(pk=user_id), club=club)
