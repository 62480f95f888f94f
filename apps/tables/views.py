"""HTTP views (thin): the table page and the POST forms around it (open, join, leave, bot, dissolve,
rematch)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.services import address_seen, client_ip
from apps.clubs.access import member_access
from apps.clubs.models import RuleTemplate
from apps.clubs.rules_text import describe_table
from apps.tables import phrasebook
from apps.tables.i18n import table_strings
from apps.tables.models import BotLevel, Table
from apps.tables.read import nearby
from apps.tables.read.codes import TableCodeRefused, table_by_code
from apps.tables.read.selectors import access_for
from apps.tables.signals import table_page
from apps.tables.transaction.context import TableError
from apps.tables.verbs import dissolve, invite, rematch, services


@login_required
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table.objects.select_related("club"), pk=table_id)
    access = access_for(user=request.user, table=table)
    if access is None:
        raise Http404
    if access.seat is not None:  # players' addresses feed the audit reports and match seating
        address_seen(user=request.user, ip=client_ip(request.META))
    arranger = _arranger(table, request.user)
    # A match table has no 解散 (it ends with its round) and no 再来一局.
    verbs = ("join", "leave", "bot", "nearby") if table.arranged else ("join", "leave", "bot", "dissolve", "nearby", "rematch",
                                                                    "invite")
    back = arranger["back"] if arranger else {"url": f"/clubs/{table.club_id}/", "label": gettext("Back to club")}
    config = {
        "tableId": table.pk,
        "wsPath": f"/ws/tables/{table.pk}/",
        "userId": request.user.pk,
        "clubUrl": f"/clubs/{table.club_id}/",
        "arranged": table.arranged,  # a match's table: no 解散 on it (dissolve.check_not_arranged)
        "back": back,  # where the page's back links lead: the club, or the match of a match table
        "urls": {name: f"/tables/{table.pk}/{name}/" for name in verbs},  # a match table has no 再来一局, no 邀请
    }
    if arranger:
        config["follow"] = {**arranger["follow"], "pollMs": FOLLOW_POLL_MS, "seconds": FOLLOW_SECONDS}
    # Replays of the table's ended hands (apps/replays, by URL name: tables never imports it).
    hands_url = reverse("replays:table_hands", args=[table.pk])
    config.update(handsUrl=hands_url, replayUrl=hands_url + "%(number)s/", handsLabel=gettext("All hands"))
    rules_lines = describe_table(table)  # the table's own snapshot of rules, in words
    # 快捷语 (issue #47): the lists in the viewer's language; the button only for seated players.
    config["phrases"] = None if table.no_phrases else phrasebook.page_list()
    strings = {**table_strings(), **phrasebook.page_strings(), **nearby.page_strings()}
    return render(request, "tables/table.html", {"table": table, "config": config, "strings": strings,
                                                 "rules_lines": rules_lines, "back": back,
                                                 "title": arranger["title"] if arranger else table.name})


FOLLOW_POLL_MS = 3000  # a match table's page, once its session is over, asks where the player goes next
FOLLOW_SECONDS = 5  # the countdown, which the player may cancel, before the page moves him there


def _arranger(table: Table, user) -> dict | None:
    """What the arranger of an arranged table (a match, through ``signals.table_page``) says about
    its page: title, back link, next-table endpoint. None for a club's own tables."""
    if not table.arranged:
        return None
    for _receiver, answer in table_page.send(sender=Table, table=table, user=user):
        if answer:
            return answer
    return None


def _answer(request: HttpRequest, ok_url: str, error: TableError | None) -> HttpResponse:
    """JSON for fetch() callers, a redirect with a message for plain forms."""
    if request.headers.get("Accept", "").startswith("application/json"):
        if error:  # in the reader's language, as the form's message below (the tables catalog)
            return JsonResponse({"ok": False, "code": error.code, "message": gettext(error.message)}, status=400)
        return JsonResponse({"ok": True})
    if error:
        messages.error(request, gettext(error.message))  # the tables catalog translates those it knows
    return redirect(ok_url)


@login_required
@require_POST
def table_open(request: HttpRequest, club_id: int) -> HttpResponse:
    """Any member opens a table from one of the club's rule templates (the README's matrix: the
    templates, their fees included, are the managers'; which of them to play is the members')."""
    club, _membership = member_access(request, club_id)  # 404 outsiders, 403 staff who only look
    template = get_object_or_404(RuleTemplate, pk=request.POST.get("template"), club=club)
    try:
        table = services.table_open(user=request.user, template=template,
                                    practice=request.POST.get("practice") in ("1", "on", "true"),
                                    name=request.POST.get("name", "").strip(),
                                    bot_level=request.POST.get("bot_level", BotLevel.NORMAL))
    except TableError as exc:
        return _answer(request, f"/clubs/{club.pk}/", exc)
    return redirect("tables:detail", table_id=table.pk)


@login_required
@require_POST
def table_verb(request: HttpRequest, table_id: int, verb: str) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    error = None
    try:
        if verb == "join":
            services.table_join(user=request.user, table_id=table.pk)
        elif verb == "leave":
            services.table_leave(user=request.user, table_id=table.pk)
        elif verb == "nearby":  # 共享位置: the numbers live only in this request (read/nearby.py)
            services.position_share(user=request.user, table_id=table.pk,
                                    lat=request.POST.get("lat"), lon=request.POST.get("lon"))
        elif verb == "bot":
            services.seat_add_bot(user=request.user, table_id=table.pk, kind=request.POST.get("kind") or None)
        elif verb == "dissolve":
            if table.status == "waiting" and table.created_by_id == request.user.pk:
                dissolve.dissolve_vote(user=request.user, table_id=table.pk, vote=True)
            else:
                dissolve.table_force_dissolve(user=request.user, table_id=table.pk)
        else:
            raise Http404
    except TableError as exc:
        error = exc
    return _answer(request, f"/tables/{table.pk}/", error)


# The HTTP status of a refused invitation, by TableError code (anything else: 400).
INVITE_STATUS = {"no_table": 404, "not_seated": 403, "not_member": 400, "rate_limited": 429,
                 "not_waiting": 409, "table_full": 409, "already_invited": 409}


@login_required
def table_invite(request: HttpRequest, table_id: int) -> HttpResponse:
    """邀请 (JSON only): GET the club's online members not at the table, POST ``{"user": id}`` to
    invite one. Refusals are ``{"ok": false, "code", "message"}`` and change nothing."""
    try:
        if request.method == "GET":
            return JsonResponse({"ok": True, "members": invite.invite_candidates(user=request.user, table_id=table_id)})
        if request.method != "POST":
            return JsonResponse({"ok": False, "code": "method", "message": ""}, status=405)
        try:
            invitee = json.loads(request.body or b"null")
        except ValueError:
            invitee = None
        invitee = invitee.get("user") if isinstance(invitee, dict) else None
        name = invite.table_invite(user=request.user, table_id=table_id, invitee_id=invitee)
    except TableError as exc:
        return JsonResponse({"ok": False, "code": exc.code, "message": gettext(exc.message)},
                            status=INVITE_STATUS.get(exc.code, 400))
    return JsonResponse({"ok": True, "message": gettext("Invited %(name)s.") % {"name": name}})


# The HTTP status of a refused rematch, by TableError code (anything else: 400).
REMATCH_STATUS = {"no_table": 404, "not_seated": 403, "not_member": 403, "not_over": 409, "match_table": 409,
                  "seating_rule": 409}


@login_required
@require_POST
def table_rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    """再来一局: ``{"url": new table page}`` (JSON) or a redirect there; refusals as
    ``{"code", "message"}`` with a 4xx status, or a message on the old table's page for plain forms."""
    wants_json = request.headers.get("Accept", "").startswith("application/json")
    try:
        table, _created = rematch.table_rematch(user=request.user, table_id=table_id)
    except TableError as exc:
        message = gettext(exc.message)  # the rematch's messages are in the tables catalog
        if wants_json:
            return JsonResponse({"code": exc.code, "message": message}, status=REMATCH_STATUS.get(exc.code, 400))
        if exc.code == "no_table":
            raise Http404 from exc
        messages.error(request, message)
        return redirect("tables:detail", table_id=table_id)
    url = reverse("tables:detail", args=[table.pk])
    return JsonResponse({"url": url}) if wants_json else redirect(url)


@login_required
@require_GET
def table_by_number(request: HttpRequest) -> HttpResponse:
    """The 输入桌号 box (GET ?code=&next=): the table's page, or back to the box's page (``next``,
    this site's only) with the refusal said; nothing else changes."""
    try:
        table = table_by_code(user=request.user, raw=request.GET.get("code", ""))
    except TableCodeRefused as exc:
        messages.error(request, exc.message)
        back = request.GET.get("next", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                               require_https=request.is_secure()):
            back = reverse("home")
        response = redirect(back)
        if exc.retry_after:
            response["Retry-After"] = str(exc.retry_after)
        return response
    return redirect("tables:detail", table_id=table.pk)
