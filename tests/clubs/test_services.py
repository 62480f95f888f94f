"""Services: the flows and the rules they enforce, including the audit trail."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from apps.clubs import selectors, services
from apps.clubs.models import AuditAction, AuditLog, Ban, Club, JoinStatus, Membership, Role, RuleTemplate
from tests.clubs.helpers import TEMPLATE_FIELDS


def actions(club):
    return list(AuditLog.objects.filter(club=club).order_by("id").values_list("action", flat=True))


def test_club_create_makes_owner_membership_and_audit(make_user):
    owner = make_user()
    club = services.club_create(name=" 麻将馆 ", owner=owner)
    assert club.name == "麻将馆" and club.owner == owner
    assert selectors.membership_for(user=owner, club=club).role == Role.OWNER
    assert actions(club) == [AuditAction.CLUB_CREATE]
    assert list(selectors.clubs_for_user(user=owner)) == [club]


def test_club_create_needs_a_name(make_user):
    with pytest.raises(ValidationError):
        services.club_create(name="  ", owner=make_user())
    assert not Club.objects.exists()


def test_invite_flow(make_club, make_user):
    owner, newcomer = make_user(), make_user()
    club = make_club(owner=owner)
    invite = services.invite_create(club=club, by=owner, valid_hours=1, max_uses=1)
    assert invite.is_usable() and len(invite.code) == 8
    request = services.join_request_create(invite=invite, user=newcomer)
    assert request.status == JoinStatus.PENDING
    invite.refresh_from_db()
    assert invite.uses == 1 and not invite.is_usable() and invite.status == "used_up"
    with pytest.raises(ValidationError):
        services.join_request_create(invite=invite, user=make_user())
    services.join_request_approve(join_request=request, by=owner)
    request.refresh_from_db()
    assert request.status == JoinStatus.APPROVED and request.decided_by == owner
    assert selectors.membership_for(user=newcomer, club=club).role == Role.MEMBER
    with pytest.raises(ValidationError):
        services.join_request_approve(join_request=request, by=owner)  # already answered
    assert actions(club)[-2:] == [AuditAction.INVITE_CREATE, AuditAction.JOIN_APPROVE]
    entry = AuditLog.objects.filter(club=club).latest("id")
    assert entry.actor == owner and entry.target_user == newcomer


def test_expired_and_revoked_invites_cannot_be_used(make_club, make_user):
    owner = make_user()
    club = make_club(owner=owner)
    invite = services.invite_create(club=club, by=owner)
    invite.expires_at = timezone.now() - timedelta(seconds=1)
    invite.save()
    with pytest.raises(ValidationError):
        services.join_request_create(invite=invite, user=make_user())
    revoked = services.invite_revoke(invite=services.invite_create(club=club, by=owner), by=owner)
    assert revoked.status == "revoked"
    with pytest.raises(ValidationError):
        services.join_request_create(invite=revoked, user=make_user())


def test_member_cannot_create_invites(make_club, make_user):
    member = make_user()
    club = make_club(members=[member])
    with pytest.raises(PermissionDenied):
        services.invite_create(club=club, by=member)
    with pytest.raises(PermissionDenied):
        services.invite_create(club=club, by=make_user())


def test_reject_then_ask_again(make_club, make_user):
    owner, user = make_user(), make_user()
    club = make_club(owner=owner)
    invite = services.invite_create(club=club, by=owner)
    services.join_request_reject(
        join_request=services.join_request_create(invite=invite, user=user), by=owner
    )
    assert services.join_request_create(invite=invite, user=user).status == JoinStatus.PENDING
    with pytest.raises(ValidationError):
        services.join_request_create(invite=invite, user=user)  # one pending at a time


def test_members_cannot_ask_to_join_again(make_club, make_user):
    owner, member = make_user(), make_user()
    club = make_club(owner=owner, members=[member])
    with pytest.raises(ValidationError):
        services.join_request_create(invite=services.invite_create(club=club, by=owner), user=member)


def test_banned_user_cannot_request_again(make_club, make_user):
    owner, member = make_user(), make_user()
    club = make_club(owner=owner, members=[member])
    services.member_ban(membership=Membership.objects.get(club=club, user=member), by=owner)
    assert not Membership.objects.filter(club=club, user=member).exists()
    assert Ban.objects.filter(club=club, user=member).exists()
    invite = services.invite_create(club=club, by=owner)
    with pytest.raises(ValidationError):
        services.join_request_create(invite=invite, user=member)
    services.member_unban(ban=Ban.objects.get(club=club, user=member), by=owner)
    assert services.join_request_create(invite=invite, user=member)


@pytest.mark.parametrize(
    ("actor", "target", "allowed"),
    [
        ("owner", "member", True),
        ("owner", "admin", True),
        ("admin", "member", True),
        ("admin", "admin2", False),
        ("admin", "owner", False),
        ("member", "member2", False),
        ("owner", "owner", False),
    ],
)
def test_remove_matrix(make_club, make_user, actor, target, allowed):
    users = {name: make_user(name) for name in ("owner", "admin", "admin2", "member", "member2")}
    club = make_club(
        owner=users["owner"],
        admins=[users["admin"], users["admin2"]],
        members=[users["member"], users["member2"]],
    )
    membership = Membership.objects.get(club=club, user=users[target])
    if allowed:
        services.member_remove(membership=membership, by=users[actor])
        assert not Membership.objects.filter(pk=membership.pk).exists()
        assert actions(club)[-1] == AuditAction.MEMBER_REMOVE
    else:
        with pytest.raises(PermissionDenied):
            services.member_remove(membership=membership, by=users[actor])
        assert Membership.objects.filter(pk=membership.pk).exists()


def test_roles_and_transfer(make_club, make_user):
    owner, admin, member = make_user(), make_user(), make_user()
    club = make_club(owner=owner, admins=[admin], members=[member])
    m = Membership.objects.get(club=club, user=member)
    with pytest.raises(PermissionDenied):
        services.member_set_role(membership=m, role=Role.ADMIN, by=admin)
    services.member_set_role(membership=m, role=Role.ADMIN, by=owner)
    assert Membership.objects.get(pk=m.pk).role == Role.ADMIN
    with pytest.raises(ValidationError):
        services.member_set_role(membership=m, role=Role.OWNER, by=owner)
    with pytest.raises(PermissionDenied):
        services.ownership_transfer(club=club, to=m, by=admin)
    services.ownership_transfer(club=club, to=m, by=owner)
    club.refresh_from_db()
    assert club.owner == member
    assert Membership.objects.get(club=club, user=owner).role == Role.ADMIN
    assert Membership.objects.filter(club=club, role=Role.OWNER).count() == 1
    assert actions(club)[-2:] == [AuditAction.MEMBER_PROMOTE, AuditAction.OWNER_TRANSFER]


def test_leave(make_club, make_user):
    owner, member = make_user(), make_user()
    club = make_club(owner=owner, members=[member])
    with pytest.raises(ValidationError):
        services.member_leave(club=club, user=owner)
    services.member_leave(club=club, user=member)
    assert selectors.membership_for(user=member, club=club) is None
    with pytest.raises(PermissionDenied):
        services.member_leave(club=club, user=member)


def test_template_crud_and_ruleset(make_club, make_user):
    owner = make_user()
    club = make_club(owner=owner)
    fields = {**TEMPLATE_FIELDS, "preset": "chenzhou", "options": {"min_huxi": 6}, "piao_choices": [1, 2]}
    template = services.template_create(club=club, by=owner, **fields)
    rs = template.resolve_ruleset()
    assert rs.preset == "chenzhou" and rs.min_huxi == 6 and rs.players == 3
    services.template_update(template=template, by=owner, name="改名", base_score=5)
    template.refresh_from_db()
    assert (template.name, template.base_score) == ("改名", 5)
    services.template_update(template=template, by=owner, hands_per_session=4)  # a partial update
    template.refresh_from_db()
    assert (template.name, template.hands_per_session) == ("改名", 4)
    with pytest.raises(ValidationError):
        services.template_update(template=template, by=owner, name="  ")
    with pytest.raises(ValidationError):
        services.template_create(club=club, by=owner, **{**fields, "name": "改名"})  # duplicate name
    services.template_delete(template=template, by=owner)
    assert not RuleTemplate.objects.exists()
    assert actions(club)[-4:] == [
        AuditAction.TEMPLATE_CREATE,
        AuditAction.TEMPLATE_UPDATE,
        AuditAction.TEMPLATE_UPDATE,
        AuditAction.TEMPLATE_DELETE,
    ]


@pytest.mark.parametrize(
    ("changes", "field", "needle"),
    [
        ({"options": {"min_huxi": "x"}}, "options", "min_huxi"),
        ({"options": {"no_such_option": 1}}, "options", "no_such_option"),
        ({"preset": "nonsense"}, "preset", "preset"),
        ({"players": 4}, "players", "players"),  # full is a 3-player preset
        ({"players": 7}, "players", ""),
        ({"base_score": 0}, "base_score", ""),
        ({"hands_per_session": 0}, "hands_per_session", ""),
        ({"turn_seconds": 3}, "turn_seconds", ""),
        ({"piao_choices": [1, "a"]}, "piao_choices", ""),
        ({"piao_choices": [1, 2]}, "piao_choices", "piao"),  # full has no piao
        ({"fee": -1}, "fee", ""),  # the message itself: tests/clubs/test_pages.py
        ({"fee": "2"}, "fee", ""),
        ({"fee": True}, "fee", ""),
        ({"fee": 10**10}, "fee", ""),
        ({"fee_payer": "loser"}, "fee_payer", ""),
    ],
)
def test_template_validation_names_the_problem(make_club, make_user, changes, field, needle):
    owner = make_user()
    club = make_club(owner=owner)
    with pytest.raises(ValidationError) as info:
        services.template_create(club=club, by=owner, **{**TEMPLATE_FIELDS, **changes})
    assert field in info.value.message_dict
    assert needle in " ".join(info.value.message_dict[field])
    assert not RuleTemplate.objects.exists()


def test_member_cannot_manage_templates(make_club, make_user):
    member = make_user()
    club = make_club(members=[member])
    with pytest.raises(PermissionDenied):
        services.template_create(club=club, by=member, **TEMPLATE_FIELDS)


def test_template_fee_defaults_to_none_and_is_audited(make_club, make_user):
    owner = make_user()
    club = make_club(owner=owner)
    template = services.template_create(club=club, by=owner, **TEMPLATE_FIELDS)
    assert (template.fee, template.fee_payer) == (0, "each")  # older callers: no fee
    services.template_update(template=template, by=owner, name=template.name, fee=2, fee_payer="winner")
    template.refresh_from_db()
    assert (template.fee, template.fee_payer) == (2, "winner")
    log = AuditLog.objects.filter(club=club, action=AuditAction.TEMPLATE_UPDATE).get()
    assert (log.detail["fee"], log.detail["fee_payer"]) == (2, "winner")


def test_template_update_with_a_negative_fee_changes_nothing(make_club, make_user):
    owner = make_user()
    club = make_club(owner=owner)
    template = services.template_create(club=club, by=owner, **{**TEMPLATE_FIELDS, "fee": 1})
    with pytest.raises(ValidationError) as info:
        services.template_update(template=template, by=owner, name=template.name, fee=-5, base_score=3)
    assert "fee" in info.value.message_dict
    template.refresh_from_db()
    assert (template.fee, template.base_score) == (1, 1)
    assert not AuditLog.objects.filter(club=club, action=AuditAction.TEMPLATE_UPDATE).exists()
