"""HTTP views (thin): the replay viewer, its JSON and export, share codes (回放码), a table's 大局 list.

Every route asks apps/replays/access.py first: a hand that has not ended, or that the viewer may not
see, is a 404 on every route.
"""

from __future__ import annotations

import functools
import json
import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.services import client_ip
from apps.tables.i18n import table_strings
from apps.tables.models import Hand
from apps.tables.storage.eventlog import ArchiveCorrupt

from . import access as replay_access
from . import selectors, services
from .export import hand_document, session_document
from .forms import CodeForm, ShareCreateForm
from .models import ShareCode
from .verification import checklist

log = logging.getLogger(__name__)


def replay_strings() -> dict:
    """The viewer's UI strings on top of the table page's (translated on the server)."""
    return {
        **table_strings(),
        "deal": _("Deal"), "drawCard": _("Draw"), "show": _("Shown"), "naturalWin": _("Natural win"),
        "huang": _("Draw (huang zhuang)"), "step": _("Move"), "start": _("Start"), "end": _("End"),
        "prev": _("Back"), "next": _("Forward"), "play": _("Play"), "pause": _("Pause"),
        "claimWindow": _("Claim window"), "claimOn": _("On %(card)s from %(name)s (%(source)s)"),
        "couldDo": _("could"), "waiting": _("deciding"), "notAsked": _("not asked"),
        "declinedHu": _("Declined a win"), "chose": _("chose"), "noClaim": _("No claim window open"),
        "closedWindow": _("Just decided"), "dissolvedHand": _("This hand was dissolved before its end"),
        "moveCount": _("Move %(k)s of %(n)s"),
        "handSize": _("cards in hand"),
        # An action the player did not take himself (the log's "by"): marked on its step.
        "autoTimeout": _("timed out, played automatically"), "autoTuoguan": _("played by auto-play"),
    }


def _dispute_url(hand_id: int) -> str | None:
    try:
        return reverse("audit:dispute_create", args=[hand_id])
    except NoReverseMatch:
        return None


def _checklist(hand) -> list[dict]:
    return [c.as_dict() for c in checklist(hand)]


def _damaged(exc: ArchiveCorrupt, what: str) -> None:
    log.error("replays: %s: the stored record is damaged: %s", what, exc)


def _damaged_json(exc: ArchiveCorrupt, what: str) -> JsonResponse:
    """A hand or table whose archive fails its own checks: a clear error, no partial document."""
    _damaged(exc, what)
    return JsonResponse({"error": "record_damaged",
                         "message": _("This hand's stored record is damaged: it cannot be replayed or downloaded.")},
                        status=500)


def _json_when_damaged(view):
    """A JSON or download view whose record fails its own checks answers ``record_damaged``."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, **kwargs) -> HttpResponse:
        try:
            return view(request, **kwargs)
        except ArchiveCorrupt as exc:
            return _damaged_json(exc, ", ".join(f"{key} {value}" for key, value in kwargs.items()))

    return wrapped


def _dispute_link(access: replay_access.ReplayAccess) -> str | None:
    """Only a player of the hand, on the club's own page (not through a share code), may dispute it."""
    if access.shows_club and access.role == replay_access.PLAYER:
        return _dispute_url(access.hand.pk)
    return None


def _damaged_page(request: HttpRequest, access: replay_access.ReplayAccess, exc: ArchiveCorrupt) -> HttpResponse:
    hand = access.hand
    _damaged(exc, f"hand {hand.pk}")
    context = {"access": access, "hand": hand, "table": hand.table, "checks": _checklist(hand),
               "dispute_url": _dispute_link(access)}
    return render(request, "replays/damaged.html", context, status=500)


def _bottom_seat(request: HttpRequest, access: replay_access.ReplayAccess, data: dict) -> int:
    """The seat drawn at the bottom: ``?seat=`` when the hand has it (a link from the 信息优势 page
    opens the weighed seat, its 复盘 chosen for a manager), else the viewer's own, else the dealer's."""
    asked = request.GET.get("seat", "")
    if asked.isdigit() and int(asked) in {s["index"] for s in data["seats"]}:
        return int(asked)
    return access.seat if access.seat is not None else access.hand.dealer


def _viewer(request: HttpRequest, access: replay_access.ReplayAccess, *, share: ShareCode | None = None,
            status: int = 200) -> HttpResponse:
    hand = access.hand
    try:
        data = selectors.replay_data(access)
    except ArchiveCorrupt as exc:
        return _damaged_page(request, access, exc)
    checks = _checklist(hand)
    context = {
        "access": access,
        "hand": hand,
        "table": hand.table,
        "data": data,
        "strings": replay_strings(),
        "checks": checks,
        "checks_ok": bool(checks) and all(c["ok"] for c in checks),
        "share": share,
        "seat_choices": [(s["index"], s["name"]) for s in data["seats"]],
        "bottom": _bottom_seat(request, access, data),
        "dispute_url": _dispute_link(access),
    }
    if access.shows_club:
        context["share_form"] = ShareCreateForm() if access.may_share else None
        if access.may_share:  # a player who is also an admin is a PLAYER: his role is looked up again
            manager = True if access.role == replay_access.MANAGER else None
            context["share_codes"] = selectors.share_codes_for(hand=hand, user=request.user, manager=manager)
        context["export_url"] = reverse("replays:export", args=[hand.pk])
    else:
        context["export_url"] = reverse("replays:share_export", args=[share.code]) if share else None
    return render(request, "replays/hand.html", context, status=status)


@login_required
@require_GET
def hand_page(request: HttpRequest, hand_id: int) -> HttpResponse:
    access = replay_access.hand_or_404(user=request.user, hand_id=hand_id)
    replay_access.record_view(access, user=request.user, route="page")
    return _viewer(request, access)


@login_required
@require_GET
@_json_when_damaged
def hand_frames(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The viewer's data as JSON (the same frames the page embeds)."""
    access = replay_access.hand_or_404(user=request.user, hand_id=hand_id)
    replay_access.record_view(access, user=request.user, route="json")
    return JsonResponse(selectors.replay_data(access))


def _attachment(document: dict, filename: str) -> HttpResponse:
    response = HttpResponse(json.dumps(document, ensure_ascii=False, indent=1),
                            content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_GET
@_json_when_damaged
def hand_export(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The hand's export document (format "paohuzi-hand/1"), as a download."""
    access = replay_access.hand_or_404(user=request.user, hand_id=hand_id)
    replay_access.record_view(access, user=request.user, route="export")
    return _attachment(hand_document(access.hand), f"paohuzi-hand-{access.hand.pk}.json")


@login_required
@require_GET
@_json_when_damaged
def table_export(request: HttpRequest, table_id: int) -> HttpResponse:
    """The session's export: only for viewers who may open every ended hand in it."""
    taccess = replay_access.table_or_404(user=request.user, table_id=table_id)
    hands = list(selectors.ended_hands(taccess.table))
    if not hands or not all(replay_access.may_open_hand(taccess, h) for h in hands):
        raise Http404
    replay_access.record_session_export(taccess, user=request.user)
    return _attachment(session_document(taccess.table), f"paohuzi-table-{taccess.table.pk}.json")


@login_required
@require_GET
def table_hands(request: HttpRequest, table_id: int) -> HttpResponse:
    taccess = replay_access.table_or_404(user=request.user, table_id=table_id)
    data = selectors.table_hands(taccess.table)
    for row in data["rows"]:
        row["may_open"] = replay_access.may_open_hand(taccess, row["hand"])
    may_export = bool(data["rows"]) and all(r["may_open"] for r in data["rows"])
    return render(request, "replays/table_hands.html",
                  {"table": taccess.table, "data": data, "may_export": may_export})


@login_required
@require_GET
def table_hand(request: HttpRequest, table_id: int, number: int) -> HttpResponse:
    """Hand ``number`` of a table (the table page's settlement panel knows the number, not the id)."""
    hand_id = Hand.objects.filter(table_id=table_id, number=number).values_list("pk", flat=True).first()
    if hand_id is None:
        raise Http404
    replay_access.hand_or_404(user=request.user, hand_id=hand_id)  # the same 404 before redirecting
    return redirect("replays:hand", hand_id=hand_id)


@login_required
@require_POST
def share_create(request: HttpRequest, hand_id: int) -> HttpResponse:
    access = replay_access.hand_or_404(user=request.user, hand_id=hand_id)
    form = ShareCreateForm(request.POST)
    url = reverse("replays:hand", args=[hand_id]) + "#share"
    if not form.is_valid():
        messages.error(request, _("Choose how long the code stays valid."))
        return redirect(url)
    try:
        share = services.share_create(user=request.user, hand=access.hand, expiry=form.cleaned_data["expiry"])
    except PermissionDenied as exc:
        raise Http404 from exc
    except services.ShareError as exc:
        messages.error(request, exc.message)
        return redirect(url)
    messages.success(request, _("Replay code %(code)s made.") % {"code": share.display})
    return redirect(url)


@login_required
@require_POST
def share_revoke(request: HttpRequest, share_id: int) -> HttpResponse:
    share = get_object_or_404(ShareCode.objects.select_related("hand", "hand__table"), pk=share_id)
    try:
        services.share_revoke(user=request.user, share=share)
    except PermissionDenied as exc:
        raise Http404 from exc
    messages.success(request, _("Replay code %(code)s revoked.") % {"code": share.display})
    return redirect(reverse("replays:hand", args=[share.hand_id]) + "#share")


def _share_problem(request: HttpRequest, state: str, *, code: str = "", status: int) -> HttpResponse:
    messages_by_state = {
        "unknown": _("There is no replay with this code. Check the code and try again."),
        "revoked": _("This replay code has been revoked by its owner."),
        "expired": _("This replay code has expired."),
        "not_ended": _("This hand has not ended yet."),
        "invalid": _("A replay code has 10 letters and digits (no 0, O, 1, I or L)."),
        "rate": _("Too many replay codes tried. Please wait a minute and try again."),
    }
    return render(request, "replays/share_problem.html",
                  {"state": state, "message": messages_by_state[state], "code": code, "form": CodeForm()},
                  status=status)


def _lookup(request: HttpRequest, raw: str) -> tuple[ShareCode | None, HttpResponse | None]:
    try:
        found = services.share_lookup(raw=raw, user_id=request.user.pk, ip=client_ip(request.META))
    except services.RateLimited as exc:
        response = _share_problem(request, "rate", code=raw, status=429)
        response["Retry-After"] = str(exc.retry_after)
        return None, response
    if found.state == "active":
        return found.share, None
    status = {"unknown": 404, "not_ended": 404}.get(found.state, 410)
    return None, _share_problem(request, found.state, code=raw, status=status)


@login_required
@require_GET
def share_enter(request: HttpRequest) -> HttpResponse:
    """The "输入回放码" box posts here (GET ?code=): a normalised code goes to its page."""
    raw = request.GET.get("code", "")
    code = services.normalise(raw)
    if not code:
        try:
            services.check_rate(user_id=request.user.pk, ip=client_ip(request.META))
        except services.RateLimited as exc:
            response = _share_problem(request, "rate", code=raw, status=429)
            response["Retry-After"] = str(exc.retry_after)
            return response
        return _share_problem(request, "invalid", code=raw, status=400)
    return redirect("replays:share_open", code=code)


@login_required
@require_GET
def share_open(request: HttpRequest, code: str) -> HttpResponse:
    share, problem = _lookup(request, code)
    if problem is not None:
        return problem
    access = replay_access.for_share(user=request.user, hand=share.hand)
    return _viewer(request, access, share=share)


@login_required
@require_GET
@_json_when_damaged
def share_export(request: HttpRequest, code: str) -> HttpResponse:
    share, problem = _lookup(request, code)
    if problem is not None:
        return problem
    access = replay_access.for_share(user=request.user, hand=share.hand)
    document = hand_document(access.hand)
    document["table"].pop("club", None)  # a share code shows nothing of the club (the checks do not use it)
    return _attachment(document, f"paohuzi-hand-{share.code}.json")
