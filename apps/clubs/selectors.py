"""Read-side queries of a club. Who may do what: access.py."""

from __future__ import annotations

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

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


MEMBER_PAGE = 30  # members per (keyset) page of the club page's list
MEMBER_ORDER = [("role_rank", False), ("id", False)]  # owner, admins, members; then who joined first


def club_member_search(*, club: Club, query: str = "") -> QuerySet[Membership]:
    """The club's members whose username or display name contains ``query`` (any case), with
    their users, ready for ``paging.keyset_page(keys=MEMBER_ORDER)``: one query a page."""
    members = Membership.objects.filter(club=club).select_related("user").annotate(
        role_rank=Case(When(role=Role.OWNER, then=Value(0)), When(role=Role.ADMIN, then=Value(1)),
                       default=Value(2), output_field=IntegerField()))
    query = query.strip()
    if query:
        members = members.filter(Q(user__username__icontains=query) | Q(user__display_name__icontains=query))
    return members


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
