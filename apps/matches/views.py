"""Match pages (thin): the club's matches, my matches, the match page with its live standings
endpoint, the create/edit form, register / withdraw / check-in, and the owner/admin console.

Access (as every club page, apps/clubs/views.py): anonymous -> sign in; a match of a club the
viewer is not in -> 404 (its existence is not revealed; staff may look); a role too low -> 403;
ids of another club's objects -> 404. The services check the role again, so a view bug cannot
grant a permission; they raise ValidationError (shown as a message) for bad input.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from apps.clubs import access
from apps.clubs.models import Club, Membership
from apps.clubs.rules_text import describe_snapshot

from . import formats, live, selectors, services
from .forms import CancelForm, MatchForm
from .models import Entrant, EntrantStatus, Match, MatchState, NeverTogether
from .seating import describe_recompute
from .status import entrant_status, entrant_statuses, in_field

POLL_MS = 3000
MOVE_SECONDS = 5  # the countdown before a page moves a player to his next table

# The groups of the match lists, in page order: (key, label, states, text when empty).
GROUPS = [
    ("registering", gettext_lazy("Registration open"), (MatchState.REGISTERING, MatchState.CHECKING_IN),
     gettext_lazy("No match is taking entries.")),
    ("upcoming", gettext_lazy("Registration not open yet"), (MatchState.DRAFT,),
     gettext_lazy("No match announced.")),
    ("running", gettext_lazy("In progress"), (MatchState.RUNNING,), gettext_lazy("No match is being played.")),
    ("finished", gettext_lazy("Finished"), (MatchState.FINISHED,), gettext_lazy("No finished match yet.")),
    ("cancelled", gettext_lazy("Cancelled"), (MatchState.CANCELLED,), gettext_lazy("No cancelled match.")),
]

# --- access ----------------------------------------------------------------------------------


def _match_access(request: HttpRequest, match_id: int) -> tuple[Match, Membership | None]:
    """The match and the viewer's membership of its club; 404 for anyone who may not see it."""
    match = Match.objects.select_related("club").filter(pk=match_id).first()
    if match is None:
        raise Http404
    return match, access.viewer_membership(request, match.club)


def _manager_access(request: HttpRequest, match_id: int) -> tuple[Match, Membership]:
    match, membership = _match_access(request, match_id)
    if not access.is_manager(membership):
        raise PermissionDenied
    return match, membership


def _flash(request: HttpRequest, exc: ValidationError) -> None:
    for message in exc.messages:
        messages.error(request, message)


# --- lists -----------------------------------------------------------------------------------


def _grouped(matches, *, entries_by_match: dict[int, Entrant] | None = None) -> list[dict]:
    entries_by_match = entries_by_match or {}
    by_state: dict[str, list] = {}
    for m in matches:
        entry = entries_by_match.get(m.pk)
        shown = entrant_status(entry, m) if entry else None
        m.my_status = shown.key if shown else ""
        m.my_status_label = shown.label if shown else ""
        by_state.setdefault(m.state, []).append(m)
    groups = []
    for key, label, states, empty in GROUPS:
        items = [m for s in states for m in by_state.get(s, [])]
        if key in ("finished", "cancelled"):
            items.sort(key=lambda m: m.starts_at, reverse=True)
        else:
            items.sort(key=lambda m: m.starts_at)
        groups.append({"key": key, "label": label, "matches": items, "empty": empty})
    return groups


# The entrants a match counts (status.in_field, as one query): holding a place, playing, out, or
# withdrawn once the match had started (he took part and is ranked).
COUNTED = Q(status__in=(EntrantStatus.REGISTERED, EntrantStatus.CHECKED_IN, EntrantStatus.ACTIVE,
                        EntrantStatus.OUT)) | Q(status=EntrantStatus.WITHDRAWN, out_round__isnull=False)


def _with_counts(matches: list[Match]) -> list[Match]:
    """Set ``entrant_count`` on each match (one query for the whole list)."""
    counts = dict(
        Entrant.objects.filter(COUNTED, match_id__in=[m.pk for m in matches])
        .values("match_id").annotate(n=Count("id")).values_list("match_id", "n")
    )
    for m in matches:
        m.entrant_count = counts.get(m.pk, 0)
    return matches


def _my_entries(user, match_ids) -> dict[int, Entrant]:
    if not user.is_authenticated:
        return {}
    return {e.match_id: e for e in Entrant.objects.filter(user=user, match_id__in=list(match_ids))}


@login_required
def match_list(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = access.club_access(request, club_id)
    matches = _with_counts(list(selectors.club_matches(club=club)))
    groups = _grouped(matches, entries_by_match=_my_entries(request.user, [m.pk for m in matches]))
    context = {
        "club": club,
        "membership": membership,
        "groups": groups,
        "can_manage": access.is_manager(membership),
    }
    return render(request, "matches/list.html", context)


@login_required
def match_mine(request: HttpRequest) -> HttpResponse:
    entries = list(selectors.my_matches(user=request.user))
    matches = _with_counts([e.match for e in entries])
    groups = [g for g in _grouped(matches, entries_by_match={e.match_id: e for e in entries}) if g["matches"]]
    return render(request, "matches/mine.html", {"groups": groups, "any_match": bool(matches)})


# --- the match page --------------------------------------------------------------------------


def rules_summary(match: Match) -> list[str]:
    """The snapshotted rules in words (what a player wants to know before entering)."""
    return [*describe_snapshot(match), _("Match hands move no club points: only the entry fee and the prizes do.")]


@login_required
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match, membership = _match_access(request, match_id)
    now = timezone.now()
    can_manage = access.is_manager(membership)
    fmt = formats.of(match)
    entry = Entrant.objects.filter(match=match, user=request.user).first()
    entries = list(Entrant.objects.filter(match=match).select_related("user").order_by("registered_order"))
    statuses = entrant_statuses(entries, match)
    entrants = [e for e in entries if in_field(e, match)]
    for e in entrants:
        e.shown = statuses[e.user_id]
    waitlist = [e for e in entries if e.status == EntrantStatus.WAITLISTED]
    live_data = live.page_payload(match=match, user=request.user, membership=membership,
                                  can_watch=can_manage or request.user.is_staff, now=now)
    language = get_language() or "zh-hans"
    seatings = selectors.round_seatings(match=match, viewer_id=request.user.pk)
    context = {
        "club": match.club,
        "match": match,
        "membership": membership,
        "can_manage": can_manage,
        "can_edit": can_manage and services.check_edit(match, now) is None,
        "state": live_data["state"],
        "state_label": live_data["state_label"],
        "fmt": fmt,
        "entry": entry,
        "entry_status": statuses.get(request.user.pk),
        "balance": live_data["balance"],
        "options": live_data["options"],
        "entrants": entrants,
        "waitlist": waitlist,
        "prizes": selectors.prize_preview(match=match),
        "standings": live_data,
        "show_standings": live_data["standings"],
        "seatings": seatings,
        "apart": selectors.kept_together(match=match, seatings=seatings, names=can_manage),
        "rules": rules_summary(match),
        "format_lines": fmt.summary(_),
        "tie_breaks": fmt.tie_breaks(_),
        "recompute": describe_recompute(seed_hex=match.seed, table_size=match.players, language=language)
        if match.seed_hash else "",
        "config": {
            "standingsUrl": reverse("matches:standings", args=[match.pk]),
            "pollMs": POLL_MS,
            "state": live_data["state"],
            "round": match.current_round,
            "usesChips": fmt.uses_chips,
            "userId": request.user.pk,
            "tableAtLoad": (live_data["me"] or {}).get("table_url"),
            "moveSeconds": MOVE_SECONDS,
        },
        "strings": {
            "you": _("you"),
            "tableNo": _("Table %(n)s"),
            "seated": _("You are seated: your table is ready."),
            "seatedAt": _("You are seated at table %(n)s."),
            "roundOf": _("Round %(n)s of %(total)s") if fmt.knows_rounds else _("Round %(n)s"),
            "final": _("Final table"),
            "prize": _("prize %(n)s"),
            "finalResults": _("Final results"),
            "liveStandings": _("Live standings"),
            "prizeHead": _("Prize"),
            "statusHead": _("Status"),
            "movingIn": _("Taking you to table %(n)s in %(s)s s…"),
            "checkedInAt": _("Checked in at %(at)s. Your table appears here when the match starts."),
        },
        "now": now,
    }
    return render(request, "matches/detail.html", context)


@never_cache
@login_required
def standings_json(request: HttpRequest, match_id: int) -> JsonResponse:
    match, membership = _match_access(request, match_id)
    can_watch = access.is_manager(membership) or request.user.is_staff
    return JsonResponse(live.page_payload(match=match, user=request.user, membership=membership,
                                          can_watch=can_watch))


@never_cache
@login_required
def my_table_json(request: HttpRequest, match_id: int) -> JsonResponse:
    """Where the viewer plays now (the table page's poll between rounds): his own entry only."""
    match, membership = _match_access(request, match_id)
    return JsonResponse(live.my_table(match=match, user=request.user))


# --- create / edit ---------------------------------------------------------------------------


@login_required
def match_form(request: HttpRequest, club_id: int | None = None, match_id: int | None = None) -> HttpResponse:
    if match_id is not None:
        match, membership = _manager_access(request, match_id)
        club = match.club
        refusal = services.check_edit(match, timezone.now())
        if refusal:
            messages.error(request, refusal)
            return redirect("matches:detail", match_id=match.pk)
    else:
        match = None
        club, membership = access.club_access(request, club_id)
        if not access.is_manager(membership):
            raise PermissionDenied
    form = MatchForm(request.POST or None, club=club, match=match)
    if request.method == "POST" and form.is_valid():
        try:
            if match is None:
                match = services.match_create(club=club, by=request.user, **form.match_fields())
                messages.success(request, _("Match created."))
            else:
                services.match_update(match=match, by=request.user, **form.match_fields())
                messages.success(request, _("Match saved."))
        except ValidationError as exc:
            form.add_service_errors(exc)
        else:
            return redirect("matches:detail", match_id=match.pk)
    return render(request, "matches/form.html", {"club": club, "membership": membership, "form": form,
                                                 "match": match})


# --- register / withdraw / check in ----------------------------------------------------------


@login_required
@require_POST
def entry_action(request: HttpRequest, match_id: int, action: str) -> HttpResponse:
    match, membership = _match_access(request, match_id)
    if membership is None:
        raise PermissionDenied  # staff may look, not play
    try:
        if action == "register":
            entry = services.register(match=match, user=request.user)
            if entry.status == EntrantStatus.WAITLISTED:
                messages.success(request, _("The match is full: you are on the waitlist."))
            else:
                messages.success(request, _("You are registered."))
        elif action == "withdraw":
            entry = services.withdraw(match=match, user=request.user)
            if entry.refunded:
                messages.success(request, _("You withdrew; your entry fee was refunded."))
            else:
                messages.success(request, _("You withdrew from the match."))
        elif action == "check_in":
            services.check_in(match=match, user=request.user)
            messages.success(request, _("Checked in. Stay on this page: your table appears here at the start."))
    except ValidationError as exc:
        _flash(request, exc)
    return redirect("matches:detail", match_id=match.pk)


# --- console (owner / admins) ----------------------------------------------------------------


@login_required
def console(request: HttpRequest, match_id: int) -> HttpResponse:
    match, membership = _manager_access(request, match_id)
    members = list(Membership.objects.filter(club=match.club).select_related("user").order_by("user__username"))
    context = {
        "club": match.club,
        "match": match,
        "membership": membership,
        "not_checked_in": selectors.not_checked_in(match=match),
        "seatings": selectors.round_seatings(match=match),
        "pairs": selectors.never_together(club=match.club),
        "members": members,
        "cancel_form": CancelForm(),
        "standings": live.standings_payload(match=match, user=request.user, can_watch=True),
        "apart": selectors.kept_together(match=match, seatings=None, names=True),
    }
    return render(request, "matches/console.html", context)


def _club_user(club: Club, raw) -> object:
    """A member of this club by id, or 404 (forged ids and other clubs' users are unknown)."""
    try:
        user_id = int(raw)
    except (TypeError, ValueError):
        raise Http404 from None
    membership = get_object_or_404(Membership.objects.select_related("user"), club=club, user_id=user_id)
    return membership.user


@login_required
@require_POST
def console_action(request: HttpRequest, match_id: int, action: str, pair_id: int | None = None) -> HttpResponse:
    match, _membership = _manager_access(request, match_id)
    club = match.club
    back = redirect("matches:console", match_id=match.pk)
    try:
        if action == "pause":
            services.pause(match=match, by=request.user)
            messages.success(request, _("Paused: no new hand starts until you resume."))
        elif action == "resume":
            services.resume(match=match, by=request.user)
            messages.success(request, _("Resumed."))
        elif action == "reseat":
            user = _club_user(club, request.POST.get("user"))
            try:
                number = int(request.POST.get("table_number", ""))
            except ValueError:
                raise ValidationError(_("Give a table number.")) from None
            with_raw = request.POST.get("with_user")
            with_user = _club_user(club, with_raw) if with_raw else None
            services.reseat(match=match, by=request.user, user=user, table_number=number, with_user=with_user)
            messages.success(request, _("%(name)s moved to table %(n)s.") % {"name": user.name, "n": number})
        elif action == "cancel":
            form = CancelForm(request.POST)
            if not form.is_valid():
                raise ValidationError(_("Say why the match is cancelled."))
            services.match_cancel(match=match, by=request.user, reason=form.cleaned_data["reason"])
            messages.success(request, _("The match was cancelled and every entry fee refunded."))
            return redirect("matches:detail", match_id=match.pk)
        elif action == "never_add":
            a, b = _club_user(club, request.POST.get("user_a")), _club_user(club, request.POST.get("user_b"))
            services.never_together_add(club=club, by=request.user, user_a=a, user_b=b)
            messages.success(request, _("%(a)s and %(b)s will not be seated together.") % {"a": a.name, "b": b.name})
        elif action == "never_remove":
            pair = get_object_or_404(NeverTogether, club=club, pk=pair_id)
            users = get_user_model().objects.in_bulk([pair.user_a_id, pair.user_b_id])
            services.never_together_remove(club=club, by=request.user, user_a=users[pair.user_a_id],
                                           user_b=users[pair.user_b_id])
            messages.success(request, _("Removed from the list."))
    except ValidationError as exc:
        _flash(request, exc)
    return back
