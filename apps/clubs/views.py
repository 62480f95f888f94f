"""Club pages for members: list (with the invite-code box), create, join by invite (or sign up
and join in one step), club page (its member list searched and paged), leave, audit log.

Access: anonymous -> login; not a member -> 404 (the club's existence is not revealed);
a role that may not -> 403. Management pages live in views_manage.py.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.views import signup_page

from . import access, audit, selectors, services
from .access import club_access, member_access
from .forms import ClubForm, InviteCodeForm
from .models import ANNOUNCEMENT_MAX, Club, Invite, JoinStatus
from .paging import keyset_page

AUDIT_PAGE = 100  # entries per (keyset) page, newest first


def flash_error(request: HttpRequest, exc: ValidationError) -> None:
    for message in exc.messages:
        messages.error(request, message)


@login_required
def club_list(request: HttpRequest) -> HttpResponse:
    """My clubs, my join requests, and the box to type an invite code a friend told (``?code=``):
    a usable code goes on to its invite page (the same as the link); a wrong or spent one is said
    here, in the box, and changes nothing."""
    form = InviteCodeForm(request.GET if "code" in request.GET else None)
    if form.is_bound and form.is_valid():
        return redirect("clubs:join", code=form.cleaned_data["code"].code)
    return render(
        request,
        "clubs/list.html",
        {
            "memberships": selectors.memberships_for_user(user=request.user),
            "join_requests": selectors.join_requests_for_user(user=request.user)[:20],
            "code_form": form,
        },
    )


@login_required
def club_create(request: HttpRequest) -> HttpResponse:
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            club = services.club_create(name=form.cleaned_data["name"], owner=request.user)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return redirect("clubs:detail", club_id=club.pk)
    return render(request, "clubs/create.html", {"form": form})


@login_required
def club_detail(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_access(request, club_id)
    query = request.GET.get("q", "").strip()[:40]
    found = selectors.club_member_search(club=club, query=query)
    page = keyset_page(found, keys=selectors.MEMBER_ORDER, size=selectors.MEMBER_PAGE, params=request.GET)
    members = page.object_list
    context = {
        "club": club,
        "membership": membership,
        "member_query": query,
        "member_page": page,
        "member_total": club.memberships.count(),
        "member_found": found.count() if query else None,
        "members": [
            {
                "m": m,
                "can_act": access.can_act_on_member(membership, m),
                "can_set_role": access.is_owner(membership) and m.role != "owner",
                "can_reset": access.can_make_reset_link(membership, m, request.user),
            }
            for m in members
        ],
        "templates": selectors.club_templates(club=club),
        "can_manage_members": access.is_manager(membership),
        "can_manage_templates": access.is_manager(membership),
        "can_manage_admins": access.is_owner(membership),
        "can_view_audit": access.can_view_audit(membership, request.user),
        "announcement_max": ANNOUNCEMENT_MAX,
        # 公告 as a toast once per change, on the member's first visit after it (marked shown now).
        "announcement_toast": services.announcement_shown(club=club, membership=membership),
        "pending_count": (
            selectors.club_pending_requests(club=club).count()
            if access.is_manager(membership)
            else 0
        ),
    }
    return render(request, "clubs/detail.html", context)


@login_required
def club_live(request: HttpRequest, club_id: int) -> HttpResponse:
    """What the club page refetches when its club was nudged (clubs/live.py): the open tables'
    list, and for managers the pending join requests' count. A fixed number of queries."""
    club, membership = member_access(request, club_id)
    tables = render_to_string("clubs/_open_tables_live.html", {"club": club}, request=request)
    pending = selectors.club_pending_requests(club=club).count() if access.is_manager(membership) else None
    response = JsonResponse({"tables": tables, "pending": pending})
    add_never_cache_headers(response)
    return response


def club_join(request: HttpRequest, code: str) -> HttpResponse:
    """The invite link: show the club (and who invites) to anyone holding a valid code.

    Anonymous visitors are offered sign-up or sign-in, both of which come back here (``next``);
    a signed-in user asks to join (an owner or admin approves). The invite's checks (revoked,
    expired, used up, banned, already a member or waiting) hold whoever comes.
    """
    invite = Invite.objects.select_related("club", "created_by").filter(code=code.upper()).first()
    if invite is None:
        return render(request, "clubs/join.html", {"state": "invalid"}, status=404)
    club = invite.club
    context = {"club": club, "invite": invite, "inviter": invite.created_by}
    if not request.user.is_authenticated:
        if not invite.is_usable():
            return render(request, "clubs/join.html", {**context, "state": "expired"}, status=410)
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        return render(request, "clubs/join.html", {**context, "state": "anonymous",
                                                         "next": reverse("clubs:join", args=[invite.code])})
    if selectors.membership_for(user=request.user, club=club):
        return redirect("clubs:detail", club_id=club.pk)
    pending = club.join_requests.filter(user=request.user, status=JoinStatus.PENDING).exists()
    if selectors.is_banned(user=request.user, club=club):
        state = "banned"
    elif pending:
        state = "pending"
    elif not invite.is_usable():
        state = "expired"
    else:
        state = "open"
    if request.method == "POST" and state == "open":
        try:
            services.join_request_create(invite=invite, user=request.user)
        except ValidationError as exc:
            flash_error(request, exc)
            return redirect("clubs:join", code=invite.code)
        messages.success(request, _("Your request was sent. The club admins will answer it."))
        return redirect("clubs:list")
    status = 200 if state in ("open", "pending") else 410 if state == "expired" else 403
    return render(request, "clubs/join.html", {**context, "state": state}, status=status)


def club_join_signup(request: HttpRequest, code: str) -> HttpResponse:
    """注册并加入 of an invite, in one step: the sign-up form, and with the new account the join
    request (every join is approved by an owner or admin), in one transaction; then the new
    member's clubs page, where the request waits. A signed-in visitor is sent to the invite."""
    invite = Invite.objects.select_related("club", "created_by").filter(code=code.upper()).first()
    if invite is None:
        return render(request, "clubs/join.html", {"state": "invalid"}, status=404)
    if request.user.is_authenticated:
        return redirect("clubs:join", code=invite.code)
    context = {"club": invite.club, "invite": invite, "inviter": invite.created_by}
    if not invite.is_usable():
        return render(request, "clubs/join.html", {**context, "state": "expired"}, status=410)

    def created(user) -> str:
        services.join_request_create(invite=invite, user=user)
        messages.success(request, _("Your request to join %(club)s was sent. The club admins will answer it.")
                         % {"club": invite.club.name})
        return reverse("clubs:list")

    return signup_page(request, template_name="clubs/join_signup.html",
                       context={**context, "join_url": reverse("clubs:join", args=[invite.code])}, created=created)


@login_required
@require_POST
def club_leave(request: HttpRequest, club_id: int) -> HttpResponse:
    club, _membership = member_access(request, club_id)
    try:
        services.member_leave(club=club, user=request.user)
    except ValidationError as exc:
        flash_error(request, exc)
        return redirect("clubs:detail", club_id=club.pk)
    messages.success(request, _("You left %(club)s.") % {"club": club.name})
    return redirect("clubs:list")


@login_required
def audit_log(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = club_access(request, club_id)
    if not access.can_view_audit(membership, request.user):
        raise PermissionDenied
    chosen, errors = audit.parse_filter(request.GET)
    page = keyset_page(audit.filtered(selectors.club_audit_log(club=club), chosen), keys=[("id", True)],
                       size=AUDIT_PAGE, params=request.GET)
    rows = audit.rows(club, page)
    return render(request, "clubs/audit.html", {
        "club": club, "membership": membership, "rows": rows, "filter": chosen, "errors": errors,
        "actions": audit.action_choices(club), "members": selectors.club_members(club=club), "page": page,
    })


def get_in_club(model, club: Club, **lookup):
    """Fetch an object of this club or 404: ids from other clubs are treated as unknown."""
    return get_object_or_404(model, club=club, **lookup)
