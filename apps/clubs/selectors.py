"""Read-side queries and the permission matrix of a club.

Permission matrix (a non-member gets 404 on every club page; staff without a membership may only
look: the club page and the audit log):

=====================================  ======  =====  =====  =====
action                                 member  admin  owner  staff
=====================================  ======  =====  =====  =====
view club page (members, templates)    yes     yes    yes    yes
play at tables                         yes     yes    yes    no
leave the club                         yes     yes    no*    no
invites, join requests (see, decide)   no      yes    yes    no
remove / ban / unban a *member*        no      yes    yes    no
remove / ban an admin                  no      no     yes    no
promote / demote admins                no      no     yes    no
transfer ownership                     no      no     yes    no
rule templates (create/edit/delete)    no      yes    yes    no
manage tables                          no      yes    yes    no
view the audit log                     no      yes    yes    yes
=====================================  ======  =====  =====  =====

(*) the owner must transfer ownership first.
"""

from __future__ import annotations

from django.db.models import QuerySet

from .models import AuditLog, Ban, Club, Invite, JoinRequest, JoinStatus, Membership, Role, RuleTemplate


def membership_for(*, user, club: Club) -> Membership | None:
    if user is None or not user.is_authenticated:
        return None
    return Membership.objects.filter(club=club, user=user).select_related("user", "club").first()


def is_member(*, user, club_id: int) -> bool:
    """``membership_for(...) is not None`` in one small query, for a club known by its id."""
    if user is None or not user.is_authenticated:
        return False
    return Membership.objects.filter(club_id=club_id, user=user).exists()


def clubs_for_user(*, user) -> QuerySet[Club]:
    return Club.objects.filter(memberships__user=user).select_related("owner").order_by("name", "id")


def memberships_for_user(*, user) -> QuerySet[Membership]:
    return Membership.objects.filter(user=user).select_related("club", "club__owner").order_by("club__name")


def join_requests_for_user(*, user) -> QuerySet[JoinRequest]:
    return JoinRequest.objects.filter(user=user).select_related("club", "decided_by")


def club_members(*, club: Club) -> list[Membership]:
    order = {Role.OWNER: 0, Role.ADMIN: 1, Role.MEMBER: 2}
    members = list(Membership.objects.filter(club=club).select_related("user"))
    return sorted(members, key=lambda m: (order.get(m.role, 9), m.joined_at, m.id))


def club_templates(*, club: Club) -> QuerySet[RuleTemplate]:
    return RuleTemplate.objects.filter(club=club)


def club_invites(*, club: Club) -> QuerySet[Invite]:
    return Invite.objects.filter(club=club).select_related("created_by")


def club_pending_requests(*, club: Club) -> QuerySet[JoinRequest]:
    return JoinRequest.objects.filter(club=club, status=JoinStatus.PENDING).select_related("user", "invite")


def club_bans(*, club: Club) -> QuerySet[Ban]:
    return Ban.objects.filter(club=club).select_related("user", "by")


def club_audit_log(*, club: Club) -> QuerySet[AuditLog]:
    return AuditLog.objects.filter(club=club).select_related("actor", "target_user")


def is_banned(*, user, club: Club) -> bool:
    return Ban.objects.filter(club=club, user=user).exists()


# --- permission helpers (membership may be None) ---------------------------------------------


def can_view_club(membership: Membership | None, user=None) -> bool:
    return membership is not None or bool(user is not None and user.is_staff)


def can_play(membership: Membership | None) -> bool:
    return membership is not None


def can_manage_members(membership: Membership | None) -> bool:
    return membership is not None and membership.role in (Role.OWNER, Role.ADMIN)


def can_manage_invites(membership: Membership | None) -> bool:
    return can_manage_members(membership)


def can_manage_templates(membership: Membership | None) -> bool:
    return can_manage_members(membership)


def can_manage_tables(membership: Membership | None) -> bool:
    return can_manage_members(membership)


def can_manage_admins(membership: Membership | None) -> bool:
    return membership is not None and membership.role == Role.OWNER


def can_transfer_ownership(membership: Membership | None) -> bool:
    return can_manage_admins(membership)


def can_view_audit(membership: Membership | None, user=None) -> bool:
    return can_manage_members(membership) or bool(user is not None and user.is_staff)


def can_act_on_member(actor: Membership | None, target: Membership) -> bool:
    """Remove/ban: the owner may act on anyone but himself; admins only on plain members."""
    if actor is None or actor.pk == target.pk or target.role == Role.OWNER:
        return False
    if actor.role == Role.OWNER:
        return True
    return actor.role == Role.ADMIN and target.role == Role.MEMBER
