"""A small world for authorization tests: club A with every role, club B next door."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.clubs import services
from apps.clubs.models import Ban, Club, Invite, JoinRequest, RuleTemplate
from tests.clubs.helpers import TEMPLATE_FIELDS


@dataclass
class World:
    club: Club
    owner: object
    admin: object
    member: object
    target: object  # a plain member to act on
    outsider: object
    staff: object
    applicant: object
    banned: object
    invite: Invite
    join_request: JoinRequest
    template: RuleTemplate
    ban: Ban
    other_club: Club
    other_owner: object
    other_member: object
    other_invite: Invite
    other_request: JoinRequest
    other_template: RuleTemplate

    def user_for(self, role: str):
        return None if role == "anonymous" else getattr(self, role)


@pytest.fixture
def world(make_user, make_club) -> World:
    owner, admin, member, target = (make_user(n) for n in ("owner", "admin", "member", "target"))
    outsider, applicant, banned = make_user("outsider"), make_user("applicant"), make_user("banned")
    staff = make_user("staff", is_staff=True)
    club = make_club("A", owner=owner, admins=[admin], members=[member, target])
    invite = services.invite_create(club=club, by=owner)
    join_request = services.join_request_create(invite=invite, user=applicant)
    template = services.template_create(club=club, by=owner, **TEMPLATE_FIELDS)
    ban = Ban.objects.create(club=club, user=banned, by=owner)

    other_owner, other_member, other_applicant = make_user("o2"), make_user("m2"), make_user("a2")
    other = make_club("别家俱乐部", owner=other_owner, members=[other_member])
    other_invite = services.invite_create(club=other, by=other_owner)
    other_request = services.join_request_create(invite=other_invite, user=other_applicant)
    other_template = services.template_create(club=other, by=other_owner, **TEMPLATE_FIELDS)
    return World(
        club=club,
        owner=owner,
        admin=admin,
        member=member,
        target=target,
        outsider=outsider,
        staff=staff,
        applicant=applicant,
        banned=banned,
        invite=invite,
        join_request=join_request,
        template=template,
        ban=ban,
        other_club=other,
        other_owner=other_owner,
        other_member=other_member,
        other_invite=other_invite,
        other_request=other_request,
        other_template=other_template,
    )


@pytest.fixture
def expired_invite(world) -> Invite:
    return Invite.objects.create(
        club=world.club,
        code="EXPIRED1",
        created_by=world.owner,
        expires_at=timezone.now() - timedelta(hours=1),
    )
