"""Audit pages: the collusion report (owner/admins/staff), disputes (players file, admins handle).

Access follows the club pages (apps/clubs/views.py): anonymous → sign in; not a member of the
club → 404; a member whose role may not → 403. Staff may read the report and the queue. The
owner, admins and staff judge disputes, never one about a hand they played in
(``services.judge_refusal``); a points adjustment is the owner's or an admin's. Ids of another
club's objects are unknown here (404).
"""

from __future__ import annotations

import csv
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_POST

from apps.clubs import access
from apps.clubs import services as club_services
from apps.clubs.access import club_access
from apps.clubs.models import AuditAction
from apps.clubs.paging import keyset_page
from apps.clubs.views import flash_error
from apps.tables.models import Hand

from . import selectors, services
from .fairplay import FairPlayError, fairplay_request
from .forms import DisputeForm, FairPlayAskForm, PeriodForm, ResolveForm
from .models import Dispute, DisputeStatus, FairPlayStatus

AUDIT_EXPORT = "audit.collusion_export"
FAIRPLAY_VIEW = AuditAction.FAIRPLAY_VIEW
FAIRPLAY_ASK = AuditAction.FAIRPLAY_REQUEST
FAIRPLAY_ERRORS = {
    "not_member": _lazy("That player is not a member of this club."),
    "same_player": _lazy("Choose two different players."),
    "bad_period": _lazy("The start of the period is after its end."),
}
DISPUTE_PAGE = 30


def _auditor(request: HttpRequest, club_id: int):
    club, membership = club_access(request, club_id)
    if not access.can_view_audit(membership, request.user):
        raise PermissionDenied
    return club, membership


def replay_url(hand_id: int) -> str | None:
    """The replay viewer's page of a hand (R-APP's ``replays:hand``), None while it does not exist."""
    try:
        return reverse("replays:hand", args=[hand_id])
    except NoReverseMatch:
        return None


def _period(request: HttpRequest):
    form = PeriodForm(request.GET or None)
    if form.is_bound and form.is_valid():
        return form, form.cleaned_data.get("since"), form.cleaned_data.get("until")
    return form, None, None


def _period_query(request: HttpRequest, form: PeriodForm) -> str:
    """The period part of the query string (for links that keep it), "" when invalid."""
    if form.errors:
        return ""
    query = request.GET.copy()
    for key in list(query):
        if key not in ("since", "until"):
            query.pop(key)
    return query.urlencode()


@login_required
def collusion(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = _auditor(request, club_id)
    form, since, until = _period(request)
    report = selectors.collusion_report(club=club, since=since, until=until)
    query = _period_query(request, form)
    order = "fairplay" if request.GET.get("order") == "fairplay" else "score"
    fairplay = _report_fairplay(club, report)
    pairs = selectors.by_fairplay(report.pairs, fairplay) if order == "fairplay" else report.pairs
    page = Paginator(pairs, 100).get_page(request.GET.get("page"))
    return render(request, "replays/audit/collusion.html", {
        "club": club, "membership": membership, "form": form, "report": report, "page": page,
        "query": query, "order": order, "page_query": "&".join(q for q in (query, order == "fairplay" and "order=fairplay") if q),
        "review_score": selectors.REVIEW_SCORE, "floors": selectors.FLOORS,
        "fairplay": fairplay, "fairplay_form": _fairplay_form(club, since, until),
    })


def _report_fairplay(club, report) -> dict:
    """The latest 信息优势 result of each player in the report's pairs (one query)."""
    return selectors.latest_fairplay(club=club, user_ids={u for r in report.pairs for u in (r.a, r.b)})


def _fairplay_form(club, since, until, data=None) -> FairPlayAskForm:
    until = until or timezone.localdate()
    since = since or until - timedelta(days=int(settings.FAIRPLAY_PERIOD_DAYS) - 1)
    return FairPlayAskForm(data, players=selectors.club_players(club=club), initial={"since": since, "until": until})


# --- 信息优势 (fairplay.py): the same readers as the collusion report ----------------------------


@login_required
@require_POST
def fairplay_ask(request: HttpRequest, club_id: int) -> HttpResponse:
    club, _membership = _auditor(request, club_id)
    form = _fairplay_form(club, None, None, request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            row = fairplay_request(club=club, user_id=data["user"], partner_id=data.get("partner"),
                                   since=data["since"], until=data["until"], by=request.user)
        except FairPlayError as exc:
            messages.error(request, FAIRPLAY_ERRORS.get(exc.code, _("This request cannot be made.")))
        else:
            club_services.audit_log(club=club, actor=request.user, action=FAIRPLAY_ASK, target_user=row.user,
                                    detail={"result": row.pk, "partner": row.partner_id,
                                            "since": str(row.since), "until": str(row.until)})
            return redirect("audit:fairplay", club_id=club.pk, result_id=row.pk)
    else:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
    return redirect("audit:collusion", club_id=club.pk)


def _fairplay_row(request: HttpRequest, club_id: int, result_id: int):
    club, membership = _auditor(request, club_id)
    row = selectors.fairplay_result(club=club, result_id=result_id)
    if row is None:
        raise Http404
    return club, membership, row


@login_required
def fairplay_page(request: HttpRequest, club_id: int, result_id: int) -> HttpResponse:
    club, membership, row = _fairplay_row(request, club_id, result_id)
    club_services.audit_log(club=club, actor=request.user, action=FAIRPLAY_VIEW, target_user=row.user,
                            detail={"result": row.pk, "partner": row.partner_id, "status": row.status})
    names = {row.user_id: row.user.name, **({row.partner_id: row.partner.name} if row.partner_id else {})}
    hands = []
    for top in (row.result or {}).get("top_hands", []):
        url = replay_url(top["hand"])
        hands.append({**top, "name": names.get(top["user"], ""), "decisions": [
            {**d, "url": f"{url}?seat={top['seat']}#{d['index']}" if url else None,
             "same": d["own_best"] == d["informed_best"]} for d in top["decisions"]]})
    return render(request, "replays/audit/fairplay.html", {
        "club": club, "membership": membership, "row": row, "hands": hands,
        "history": selectors.fairplay_history(row=row),
        "summary": (row.result or {}).get("summary"), "working": row.status in (FairPlayStatus.PENDING,
                                                                                FairPlayStatus.RUNNING),
    })


@login_required
def fairplay_state(request: HttpRequest, club_id: int, result_id: int) -> HttpResponse:
    """The page's poll while the job waits or runs (not audit-logged: the page's opening is)."""
    _club, _membership, row = _fairplay_row(request, club_id, result_id)
    return JsonResponse({"status": row.status})


@login_required
def collusion_csv(request: HttpRequest, club_id: int) -> HttpResponse:
    club, _membership = _auditor(request, club_id)
    form, since, until = _period(request)
    report = selectors.collusion_report(club=club, since=since, until=until)
    club_services.audit_log(club=club, actor=request.user, action=AUDIT_EXPORT,
                            detail={"since": str(since or ""), "until": str(until or ""), "pairs": len(report.pairs)})
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="club-{club.pk}-collusion.csv"'
    writer = csv.writer(response)
    writer.writerow([
        "rank", "score", "signals", "user_a", "user_b", "hands", "net_points_a_to_b", "flow_z",
        "feed_giver", "feed_taker", "feed_discards", "feed_taken", "feed_rate", "feed_baseline", "feed_z",
        "shows_a_to_b", "shows_taken_a_to_b", "shows_b_to_a", "shows_taken_b_to_a", "wins_a_on_b", "wins_b_on_a",
        "declined_by", "declined", "declined_then_won", "declined_points", "shared_ips", "joins_together",
        "leaves_together", *[f"part_{k}" for k in selectors.SIGNALS],
        # Each player's latest 信息优势 result (fairplay.py), as the report's column shows it.
        "fairplay_a_score", "fairplay_a_p", "fairplay_a_flagged", "fairplay_b_score", "fairplay_b_p", "fairplay_b_flagged",
    ])
    fairplay = _report_fairplay(club, report)
    for i, r in enumerate(report.pairs, 1):
        f, d = r.feed, r.decline
        fp = [fairplay.get(r.a), fairplay.get(r.b)]
        writer.writerow([
            i, round(r.score, 1), r.signal_count, _cell(r.names[0]), _cell(r.names[1]), r.hands, round(r.net, 2),
            round(r.flow_z, 2), _cell(r.name(f.giver)), _cell(r.name(f.taker)), f.discards, f.discards_taken,
            "" if f.rate is None else round(f.rate, 4), round(f.baseline, 4), round(f.feed_z, 2),
            r.ab.shows, r.ab.shows_taken, r.ba.shows, r.ba.shows_taken, r.ba.wins, r.ab.wins,
            _cell(r.name(d.giver)), d.declined, d.declined_then_won, d.declined_points, " ".join(r.ips),
            r.joins, r.leaves, *[round(r.parts[k], 3) for k in selectors.SIGNALS],
            *[cell for row in fp for cell in (("", "", "") if row is None else
                                              (round(row.score, 2), f"{row.p:.3g}", int(row.flagged)))],
        ])
    return response


def _cell(text: str) -> str:
    """Keep spreadsheets from running user text as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@login_required
def collusion_pair(request: HttpRequest, club_id: int, user_a: int, user_b: int) -> HttpResponse:
    club, membership = _auditor(request, club_id)
    if user_a == user_b:
        raise Http404
    a, b = min(user_a, user_b), max(user_a, user_b)
    form, since, until = _period(request)
    report = selectors.collusion_report(club=club, since=since, until=until)
    row = selectors.pair_row(report, a, b)
    if row is None:  # nothing in this period: a pair of the club shows empty, anything else is unknown
        if not selectors.pair_known(club=club, a=a, b=b):
            raise Http404
        row = selectors.empty_pair(a, b)
    page = Paginator(selectors.pair_hands(club=club, a=a, b=b, since=since, until=until), 50).get_page(
        request.GET.get("page"))
    back = selectors.reverse_rows(hand_ids=[h.hand_id for h in page.object_list], a=a, b=b)
    hands = [{"ab": h, "ba": back.get(h.hand_id), "replay": replay_url(h.hand_id)} for h in page.object_list]
    return render(request, "replays/audit/pair.html", {
        "club": club, "membership": membership, "row": row, "hands": hands, "page": page, "form": form,
        "query": _period_query(request, form),
        "pair_form": _fairplay_form(club, since, until), "pair_fairplay": selectors.latest_pair_fairplay(club=club, a=a, b=b),
    })


# --- disputes ---------------------------------------------------------------------------------


def _played_hand(request: HttpRequest, hand_id: int) -> Hand:
    """An ended hand the user sat in, else 404 (whether it exists is not revealed)."""
    hand = Hand.objects.select_related("table", "table__club").filter(pk=hand_id).first()
    if hand is None or hand.status == "playing":
        raise Http404
    if request.user.pk not in {u for u in (hand.players or {}).values() if u is not None}:
        raise Http404
    return hand


@login_required
def dispute_create(request: HttpRequest, hand_id: int) -> HttpResponse:
    hand = _played_hand(request, hand_id)
    step = request.GET.get("step", "")
    form = DisputeForm(request.POST or None, initial={"step": int(step) if step.isdigit() else None})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.dispute_create(user=request.user, hand=hand, reason=data["reason"], kind=data["kind"],
                                    step=data.get("step"))
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, _("Your dispute was filed. The club's admins will review it."))
            return redirect("audit:my_disputes")
    return render(request, "replays/audit/dispute_new.html", {
        "hand": hand, "form": form, "replay": replay_url(hand.pk),
    }, status=400 if form.errors else 200)


@login_required
def my_disputes(request: HttpRequest) -> HttpResponse:
    disputes = list(selectors.user_disputes(user=request.user)[:200])
    return render(request, "replays/audit/my_disputes.html", {
        "disputes": [{"d": d, "replay": replay_url(d.hand_id)} for d in disputes],
    })


def _queue_access(request: HttpRequest, club_id: int):
    """Owner/admins and staff (who judge, each dispute but those of hands they played); members
    403, others 404."""
    club, membership = club_access(request, club_id)
    if not access.can_view_audit(membership, request.user):
        raise PermissionDenied
    return club, membership, True


def _decorate(disputes: list[Dispute]) -> list[dict]:
    hand_ids = {d.hand_id for d in disputes}
    lines = selectors.hand_ledger_lines(hand_ids=hand_ids)
    settled = selectors.hand_settlements(hand_ids=hand_ids) if hand_ids else {}
    return [{"d": d, "replay": replay_url(d.hand_id), "lines": lines.get(d.hand_id, []),
             "settled": d.hand_id in settled, "draw": bool(settled.get(d.hand_id, {}).get("draw"))}
            for d in disputes]


@login_required
def disputes(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership, can_act = _queue_access(request, club_id)
    status = request.GET.get("status") or ""
    if status and status not in DisputeStatus.values:
        status = ""
    page = keyset_page(selectors.club_disputes(club=club, status=status or None), keys=[("id", True)],
                       size=DISPUTE_PAGE, params=request.GET)
    return render(request, "replays/audit/disputes.html", {
        "club": club, "membership": membership, "can_act": can_act, "page": page,
        "items": _decorate(list(page.object_list)), "status": status, "statuses": DisputeStatus.choices,
    })


@login_required
def dispute_detail(request: HttpRequest, club_id: int, dispute_id: int) -> HttpResponse:
    club, membership, _can_act = _queue_access(request, club_id)
    dispute = get_object_or_404(selectors.club_disputes(club=club), pk=dispute_id)
    return _detail_page(request, club, membership, dispute, _resolve_form(None, dispute, membership))


def _resolve_form(data, dispute: Dispute, membership) -> ResolveForm:
    """The resolution form; its adjustment choices only for the club's owner and admins (staff
    resolve in words: points move through the ledger by a manager of the club)."""
    players = selectors.hand_players(dispute.hand) if access.is_manager(membership) else ()
    return ResolveForm(data, players=players)


def _detail_page(request, club, membership, dispute, form, status=200) -> HttpResponse:
    item = _decorate([dispute])[0]
    refusal = services.judge_refusal(dispute=dispute, user=request.user)
    return render(request, "replays/audit/dispute_detail.html", {
        "club": club, "membership": membership, "can_act": refusal is None, "refusal": refusal, "item": item,
        "form": form, "players": selectors.hand_players(dispute.hand), "now": timezone.now(),
        "may_adjust": access.is_manager(membership),
    }, status=status)


def _judged_dispute(request: HttpRequest, club_id: int, dispute_id: int):
    club, membership, _can_act = _queue_access(request, club_id)
    return club, membership, get_object_or_404(selectors.club_disputes(club=club), pk=dispute_id)


@login_required
@require_POST
def dispute_review(request: HttpRequest, club_id: int, dispute_id: int) -> HttpResponse:
    club, _membership, dispute = _judged_dispute(request, club_id, dispute_id)
    try:
        services.dispute_review(dispute=dispute, by=request.user)
    except ValidationError as exc:
        flash_error(request, exc)
    except PermissionDenied as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("You are reviewing this dispute."))
    return redirect("audit:dispute", club_id=club.pk, dispute_id=dispute.pk)


@login_required
@require_POST
def dispute_resolve(request: HttpRequest, club_id: int, dispute_id: int) -> HttpResponse:
    club, membership, dispute = _judged_dispute(request, club_id, dispute_id)
    form = _resolve_form(request.POST, dispute, membership)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.dispute_resolve(dispute=dispute, by=request.user, outcome=data["outcome"],
                                     member_id=data.get("member"), amount=data.get("amount"))
        except (ValidationError, PermissionDenied) as exc:
            form.add_error(None, exc.messages if isinstance(exc, ValidationError) else str(exc))
        else:
            messages.success(request, _("The dispute is resolved; the player sees the outcome."))
            return redirect("audit:dispute", club_id=club.pk, dispute_id=dispute.pk)
    return _detail_page(request, club, membership, dispute, form, status=400)
