"""Ledger pages. Access: anonymous -> login; not a member -> 404; a role that may not -> 403.

member: own balance/history, leaderboard. owner/admin: also the club ledger (+CSV), any
member's history, adjustments (上分/下分).
"""

from __future__ import annotations

import csv
import re
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.clubs import access
from apps.clubs import selectors as club_selectors
from apps.clubs.models import Club, Membership
from apps.clubs.paging import keyset_page

from . import charts, memos, selectors, services
from .forms import AdjustmentForm, LedgerFilterForm
from .links import hand_url
from .models import Period

PAGE_SIZE = 50


def _access(request: HttpRequest, club_id: int) -> tuple[Club, Membership]:
    """The club and the viewer's membership; 404 for anyone who is not a member."""
    club = Club.objects.filter(pk=club_id).first()
    membership = club and club_selectors.membership_for(user=request.user, club=club)
    if not membership:
        raise Http404
    return club, membership


def _manager_access(request: HttpRequest, club_id: int) -> tuple[Club, Membership]:
    club, membership = _access(request, club_id)
    if not access.is_manager(membership):
        raise PermissionDenied
    return club, membership


def _rows(entries):
    return [{"e": e, "hand_url": hand_url(e.transaction), "what": memos.describe(e), "kind": memos.kind_label(e)}
            for e in entries]


@login_required
def my_ledger(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = _access(request, club_id)
    return _member_page(request, club, membership, membership)


@login_required
def member_ledger(request: HttpRequest, club_id: int, user_id: int) -> HttpResponse:
    club, membership = _access(request, club_id)
    if user_id != request.user.pk and not access.is_manager(membership):
        raise PermissionDenied
    target = get_object_or_404(Membership.objects.select_related("user"), club=club, user_id=user_id)
    return _member_page(request, club, membership, target)


def _entry_page(entries, request: HttpRequest):
    return keyset_page(entries, keys=selectors.ENTRY_ORDER, size=PAGE_SIZE, params=request.GET,
                       first_key_also=selectors.ENTRY_TRANSACTION_ID)


def _member_page(request, club, membership, target) -> HttpResponse:
    account = selectors.member_account(club=club, user=target.user)
    page = None
    if account is not None:
        page = _entry_page(selectors.account_history(account=account), request)
    context = {
        "club": club,
        "membership": membership,
        "target": target,
        "balance": account.balance if account else 0,
        "page": page,
        "rows": _rows(page.object_list) if page else [],
        "can_manage": access.is_manager(membership),
    }
    return render(request, "ledgers/member.html", context)


@login_required
def club_ledger(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = _manager_access(request, club_id)
    form = LedgerFilterForm(request.GET or None, club=club)
    filters = form.filters() if form.is_valid() else {}
    entries = selectors.club_entries(club=club, **filters)
    if request.GET.get("format") == "csv":
        return _csv_response(club, entries)
    page = _entry_page(entries, request)
    house = selectors.club_account(club=club)
    fee_income = selectors.fee_income(
        club=club, **{k: filters.get(k) for k in ("user_id", "date_from", "date_to")}
    )
    context = {
        "club": club,
        "membership": membership,
        "form": form,
        "page": page,
        "rows": _rows(page.object_list),
        "house_balance": house.balance if house else 0,
        "fee_income": fee_income,
        "fee_filtered_by_member": bool(filters.get("user_id")),
        "query": urlencode(page.query),
    }
    return render(request, "ledgers/club.html", context)


class _Echo:
    def write(self, value):
        return value


def _csv_response(club: Club, entries) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())
    header = ["time", "transaction", "kind", "member", "account", "entry_kind", "amount", "table", "hand", "memo"]

    def rows():
        yield writer.writerow(header)
        for e in entries.iterator(chunk_size=2000):
            t = e.transaction
            hand = t.hand
            yield writer.writerow(
                [
                    timezone.localtime(t.created_at).isoformat(),
                    t.idempotency_key,
                    t.kind,
                    _cell(e.account.user.username if e.account.user_id else ""),
                    e.account.kind,
                    e.kind,
                    e.amount,
                    hand.table_id if hand else "",
                    hand.number if hand else "",
                    _cell(t.memo),
                ]
            )

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="club-{club.pk}-ledger.csv"'
    return response


def _cell(text: str) -> str:
    """Keep spreadsheets from running user text as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


TOKEN_RE = re.compile(r"^[0-9a-f]{24}$")


@login_required
def adjust(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = _manager_access(request, club_id)
    form = AdjustmentForm(request.POST or None, club=club, initial={"token": services.transaction_token()})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        token = data["token"] if TOKEN_RE.match(data["token"] or "") else services.transaction_token()
        try:
            result = services.adjustment_create(
                club=club,
                member=data["member"],
                amount=data["signed_amount"],
                reason=data["reason"],
                by=request.user,
                idempotency_key=f"adjust:{club.pk}:{token}",
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if result.created:
                messages.success(request, _("Adjustment posted."))
            else:
                messages.warning(request, _("This form was already submitted; nothing more was posted."))
            return redirect("ledgers:club", club_id=club.pk)
    return render(request, "ledgers/adjust.html", {"club": club, "membership": membership, "form": form})


@login_required
def leaderboard(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = _access(request, club_id)
    period = request.GET.get("period", Period.WEEK)
    if period not in Period.values:
        period = Period.WEEK
    rows = selectors.leaderboard(club=club, period=period)
    top = [r.user_id for r in rows[: charts.MAX_SERIES]]
    series = selectors.score_series(club=club, user_ids=top, period=period)
    names = {r.user_id: r.name for r in rows}
    context = {
        "club": club,
        "membership": membership,
        "period": period,
        "periods": Period.choices,
        "rows": rows,
        "chart": charts.score_chart(series, names),
    }
    return render(request, "ledgers/leaderboard.html", context)
