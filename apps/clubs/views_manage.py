"""Management pages of a club: invites, join requests, members, rule templates.

Every view resolves the club through access.club_access (404 for outsiders), then checks the role
(403), then looks objects up *inside that club* (404 for forged or foreign ids). Services repeat
the role check, so a view bug cannot grant a permission.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts import reset_links

from . import access, selectors, services
from .access import member_access
from .forms import InviteForm, RuleTemplateForm
from .models import AuditAction, Ban, Invite, JoinRequest, JoinStatus, Membership, RuleTemplate
from .views import flash_error, get_in_club


def _manager(request: HttpRequest, club_id: int, check=access.is_manager):
    club, membership = member_access(request, club_id)
    if not check(membership):
        raise PermissionDenied
    return club, membership


# --- invites --------------------------------------------------------------------------------


@login_required
def invites(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = _manager(request, club_id, access.is_manager)
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            invite = services.invite_create(
                club=club,
                by=request.user,
                valid_hours=form.cleaned_data["valid_hours"],
                max_uses=form.cleaned_data["max_uses"],
            )
        except ValidationError as exc:
            flash_error(request, exc)
        else:
            messages.success(request, _("Invite %(code)s created.") % {"code": invite.code})
            return redirect("clubs:invites", club_id=club.pk)
    context = {
        "club": club,
        "membership": membership,
        "form": form,
        "invites": selectors.club_invites(club=club)[:50],
    }
    return render(request, "clubs/invites.html", context)


@login_required
@require_POST
def invite_revoke(request: HttpRequest, club_id: int, invite_id: int) -> HttpResponse:
    club, _membership = _manager(request, club_id, access.is_manager)
    invite = get_in_club(Invite, club, pk=invite_id)
    services.invite_revoke(invite=invite, by=request.user)
    messages.success(request, _("Invite %(code)s revoked.") % {"code": invite.code})
    return redirect("clubs:invites", club_id=club.pk)


# --- join requests --------------------------------------------------------------------------


@login_required
def join_requests(request: HttpRequest, club_id: int) -> HttpResponse:
    club, membership = _manager(request, club_id)
    pending = list(selectors.club_pending_requests(club=club))
    context = {
        "club": club,
        "membership": membership,
        "requests": pending,
        "pending_count": len(pending),  # the tab bar's count
        "bans": selectors.club_bans(club=club),
    }
    return render(request, "clubs/requests.html", context)


@login_required
@require_POST
def join_request_decide(request: HttpRequest, club_id: int, request_id: int, decision: str) -> HttpResponse:
    club, _membership = _manager(request, club_id)
    join_request = get_in_club(JoinRequest, club, pk=request_id, status=JoinStatus.PENDING)
    try:
        if decision == "approve":
            services.join_request_approve(join_request=join_request, by=request.user)
            messages.success(request, _("%(name)s joined the club.") % {"name": join_request.user.name})
        else:
            services.join_request_reject(join_request=join_request, by=request.user)
            messages.success(request, _("Request of %(name)s rejected.") % {"name": join_request.user.name})
    except ValidationError as exc:
        flash_error(request, exc)
    return redirect("clubs:requests", club_id=club.pk)


# --- members --------------------------------------------------------------------------------


@login_required
@require_POST
def member_action(request: HttpRequest, club_id: int, user_id: int, action: str) -> HttpResponse:
    """remove / ban (owner or admin, per can_act_on_member), role / transfer (owner only)."""
    club, _membership = _manager(request, club_id)
    target = get_in_club(Membership, club, user_id=user_id)
    name = target.user.name
    try:
        if action == "remove":
            services.member_remove(membership=target, by=request.user)
            messages.success(request, _("%(name)s was removed.") % {"name": name})
        elif action == "ban":
            services.member_ban(membership=target, by=request.user)
            messages.success(request, _("%(name)s was banned.") % {"name": name})
        elif action == "role":
            services.member_set_role(membership=target, role=request.POST.get("role", ""), by=request.user)
            messages.success(request, _("Role of %(name)s updated.") % {"name": name})
        elif action == "transfer":
            services.ownership_transfer(club=club, to=target, by=request.user)
            messages.success(request, _("%(name)s is now the owner.") % {"name": name})
    except ValidationError as exc:
        flash_error(request, exc)
    return redirect("clubs:detail", club_id=club.pk)


@login_required
@require_POST
def member_reset_link(request: HttpRequest, club_id: int, user_id: int) -> HttpResponse:
    """A one-time link for a member to set a new password (apps.accounts.reset_links), shown once
    to its maker, audit-logged. Who may: access.can_make_reset_link (404 for outsiders)."""
    club, membership = access.club_access(request, club_id)
    target = get_in_club(Membership, club, user_id=user_id)
    if not access.can_make_reset_link(membership, target, request.user):
        raise PermissionDenied
    token = reset_links.make(user=target.user, by=request.user)
    services.audit_log(club=club, actor=request.user, action=AuditAction.MEMBER_RESET_LINK, target_user=target.user,
                       detail={"hours": int(settings.MEMBER_RESET_LINK_HOURS)})
    link = request.build_absolute_uri(reverse("accounts:reset_link", args=[token]))
    response = render(request, "clubs/member_reset_link.html", {
        "club": club, "membership": membership, "member": target.user, "link": link,
        "hours": int(settings.MEMBER_RESET_LINK_HOURS)})
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def member_unban(request: HttpRequest, club_id: int, user_id: int) -> HttpResponse:
    club, _membership = _manager(request, club_id)
    ban = get_in_club(Ban, club, user_id=user_id)
    services.member_unban(ban=ban, by=request.user)
    messages.success(request, _("Ban lifted."))
    return redirect("clubs:requests", club_id=club.pk)


# --- rule templates -------------------------------------------------------------------------


@login_required
def template_form(request: HttpRequest, club_id: int, template_id: int | None = None) -> HttpResponse:
    club, membership = _manager(request, club_id, access.is_manager)
    template = get_in_club(RuleTemplate, club, pk=template_id) if template_id else None
    initial = RuleTemplateForm.initial_from(template) if template else None
    form = RuleTemplateForm(request.POST or None, initial=initial,
                            stored_options=template.options if template else None)
    if request.method == "POST" and form.is_valid():
        try:
            if template is None:
                services.template_create(club=club, by=request.user, **form.template_fields())
            else:
                services.template_update(template=template, by=request.user, **form.template_fields())
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                for error in errors:
                    form.add_error(field if field in form.fields else None, error)
        else:
            messages.success(request, _("Rule template saved."))
            return redirect("clubs:detail", club_id=club.pk)
    from apps.engine.rules import PRESET_PLAYERS  # the page's script offers only these counts

    context = {"club": club, "membership": membership, "form": form, "template": template,
               "preset_players": {k: list(v) for k, v in PRESET_PLAYERS.items()}}
    return render(request, "clubs/template_form.html", context)


@login_required
@require_POST
def template_delete(request: HttpRequest, club_id: int, template_id: int) -> HttpResponse:
    club, _membership = _manager(request, club_id, access.is_manager)
    template = get_in_club(RuleTemplate, club, pk=template_id)
    services.template_delete(template=template, by=request.user)
    messages.success(request, _("Rule template deleted."))
    return redirect("clubs:detail", club_id=club.pk)


# --- the announcement (公告) -------------------------------------------------------------------


@login_required
@require_POST
def announcement(request: HttpRequest, club_id: int) -> HttpResponse:
    """The owner or an admin sets (or, empty, clears) the club's 公告 from the club page."""
    club, _membership = _manager(request, club_id, access.is_manager)
    try:
        services.announcement_set(club=club, by=request.user, text=request.POST.get("announcement", ""))
    except ValidationError as exc:
        flash_error(request, exc)
    else:
        messages.success(request, _("The announcement is saved."))
    return redirect(reverse("clubs:detail", args=[club.pk]) + "#announcement")
