"""Who may do what in a club: the one module every app asks (the README's matrix).

Permission matrix (a non-member gets 404 on every club page; staff without a membership may only
look: the club page, the audit pages, replays):

=====================================  ======  =====  =====  =====
action                                 member  admin  owner  staff
=====================================  ======  =====  =====  =====
view club page (members, templates)    yes     yes    yes    yes
play at tables                         yes     yes    yes    no
open a table from a rule template      yes     yes    yes    no
leave the club                         yes     yes    no*    no
invites, join requests (see, decide)   no      yes    yes    no
remove / ban / unban a *member*        no      yes    yes    no
remove / ban an admin                  no      no     yes    no
one-time password link for a member    no      yes**  yes    yes***
promote / demote admins                no      no     yes    no
transfer ownership                     no      no     yes    no
rule templates, ledger, matches        no      yes    yes    no
force-dissolve any open table          no      yes    yes    no
view the audit pages                   no      yes    yes    yes
=====================================  ======  =====  =====  =====

(*) the owner must transfer ownership first.
(**) admins for plain members only; the owner for admins and members. (***) staff for anyone, the
owner too. Never for a staff or superuser account (only a superuser may), never for oneself.

Three layers, each built on the one below:

- predicates on a membership (``None`` for a non-member): ``is_manager``, ``can_act_on_member``…;
- service guards that raise ``PermissionDenied`` with the user's-language reason:
  ``require_member``, ``require_manager``;
- request guards for views: ``club_access`` (404 for outsiders), ``member_access`` (403 for staff
  who are not members), ``manager_access`` (403 below admin).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from .models import Club, Membership, Role
from .selectors import membership_for

MANAGER_ROLES = (Role.OWNER, Role.ADMIN)


# --- predicates (membership may be None) ------------------------------------------------------


def is_manager(membership: Membership | None) -> bool:
    """Owner or admin: members, invites, templates, tables, ledger, matches, disputes."""
    return membership is not None and membership.role in MANAGER_ROLES


def is_owner(membership: Membership | None) -> bool:
    """Admins' roles and the club's ownership."""
    return membership is not None and membership.role == Role.OWNER


def can_view_club(membership: Membership | None, user=None) -> bool:
    return membership is not None or bool(user is not None and user.is_staff)


def can_view_audit(membership: Membership | None, user=None) -> bool:
    """The audit log, the collusion report and the dispute queue (read)."""
    return is_manager(membership) or bool(user is not None and user.is_staff)


def can_act_on_member(actor: Membership | None, target: Membership) -> bool:
    """Remove/ban: the owner may act on anyone but himself; admins only on plain members."""
    if actor is None or actor.pk == target.pk or target.role == Role.OWNER:
        return False
    if actor.role == Role.OWNER:
        return True
    return actor.role == Role.ADMIN and target.role == Role.MEMBER


def can_make_reset_link(actor: Membership | None, target: Membership, user=None) -> bool:
    """A one-time password link for a member (apps.accounts.reset_links): his club's owner for an
    admin or a member, an admin for a plain member (as ``can_act_on_member``), site staff for any
    member, the owner too (who else could help an owner without an e-mail); never for himself, and
    for a staff or superuser account only by a superuser (a club role must not reach a site account
    above it)."""
    if user is not None and actor is not None and actor.user_id == target.user_id:
        return False
    target_user = target.user
    if (target_user.is_staff or target_user.is_superuser) and not (user is not None and user.is_superuser):
        return False
    if can_act_on_member(actor, target):
        return True
    return bool(user is not None and user.is_staff and target.user_id != user.pk)


# --- service guards ---------------------------------------------------------------------------


def require_member(*, club: Club, user) -> Membership:
    membership = membership_for(user=user, club=club)
    if membership is None:
        raise PermissionDenied(_("You are not a member of this club."))
    return membership


def require_manager(*, club: Club, user) -> Membership:
    membership = require_member(club=club, user=user)
    if not is_manager(membership):
        raise PermissionDenied(_("Your role in this club does not allow this."))
    return membership


# --- request guards (views) -------------------------------------------------------------------


def club_access(request: HttpRequest, club_id: int) -> tuple[Club, Membership | None]:
    """The club and the viewer's membership; 404 for anyone who may not see it (its existence
    is not revealed)."""
    club = Club.objects.filter(pk=club_id).first()
    if club is None:
        raise Http404
    return club, viewer_membership(request, club)


def viewer_membership(request: HttpRequest, club: Club) -> Membership | None:
    """The viewer's membership of a club he reached through one of its objects; 404 if he may
    not see the club."""
    membership = membership_for(user=request.user, club=club)
    if not can_view_club(membership, request.user):
        raise Http404
    return membership


def member_access(request: HttpRequest, club_id: int) -> tuple[Club, Membership]:
    """Like club_access, but staff without a membership get 403 (they may only look)."""
    club, membership = club_access(request, club_id)
    if membership is None:
        raise PermissionDenied
    return club, membership


def manager_access(request: HttpRequest, club_id: int) -> tuple[Club, Membership]:
    """Owner/admin pages: 404 for outsiders, 403 below admin."""
    club, membership = club_access(request, club_id)
    if not is_manager(membership):
        raise PermissionDenied
    return club, membership
