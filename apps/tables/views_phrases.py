"""The club's 快捷语 log (issue #47) for its owner and admins (and staff): who sent which phrase at
which table, the last 30 days, newest first. Thin: the selector is apps/tables/read/phrases.py."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.clubs import access
from apps.clubs.paging import keyset_page
from apps.tables.phrasebook import KEEP_DAYS, words
from apps.tables.read.phrases import club_phrases

PAGE_SIZE = 50


@login_required
@require_GET
def club_phrase_log(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = access.club_access(request, club_id)
    if not access.can_view_audit(membership, request.user):
        raise PermissionDenied
    page = keyset_page(club_phrases(club_id=club.pk), keys=[("id", True)], size=PAGE_SIZE, params=request.GET)
    rows = [{"row": row, "words": words(row.phrase)} for row in page]
    return render(request, "tables/phrase_log.html", {
        "club": club, "membership": membership, "page": page, "rows": rows, "keep_days": KEEP_DAYS,
    })
