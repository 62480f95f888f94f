"""Invariants enforced by the database itself (not just by the services)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from apps.clubs.models import Ban, JoinRequest, Membership, Role, RuleTemplate


def test_second_owner_is_refused(make_club, make_user):
    club = make_club()
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(club=club, user=make_user(), role=Role.OWNER)


def test_owner_of_another_club_is_fine(make_club):
    make_club("A")
    make_club("B")
    assert Membership.objects.filter(role=Role.OWNER).count() == 2


def test_duplicate_membership_is_refused(make_club, make_user):
    user = make_user()
    club = make_club(members=[user])
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(club=club, user=user, role=Role.ADMIN)


def test_invalid_role_is_refused(make_club, make_user):
    club = make_club()
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(club=club, user=make_user(), role="king")


def test_one_pending_request_per_user(make_club, make_user):
    club, user = make_club(), make_user()
    JoinRequest.objects.create(club=club, user=user)
    with pytest.raises(IntegrityError), transaction.atomic():
        JoinRequest.objects.create(club=club, user=user)
    JoinRequest.objects.filter(club=club, user=user).update(status="rejected")
    JoinRequest.objects.create(club=club, user=user)  # a new request after a rejection is allowed


def test_duplicate_ban_is_refused(make_club, make_user):
    club, user = make_club(), make_user()
    Ban.objects.create(club=club, user=user)
    with pytest.raises(IntegrityError), transaction.atomic():
        Ban.objects.create(club=club, user=user)


GOOD = {
    "name": "t",
    "preset": "basic",
    "players": 3,
    "base_score": 1,
    "hands_per_session": 1,
    "turn_seconds": 5,
    "fee": 0,
}


@pytest.mark.parametrize(
    "bad",
    [
        {"base_score": 0},
        {"hands_per_session": 0},
        {"turn_seconds": 4},
        {"players": 1},
        {"players": 5},
        {"fee": -1},
        {"fee_payer": "loser"},
        {"fee_payer": ""},
    ],
)
def test_template_check_constraints(make_club, bad):
    club = make_club()
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleTemplate.objects.create(club=club, **{**GOOD, **bad})
    RuleTemplate.objects.create(club=club, **GOOD)  # the boundary values themselves are fine


def test_template_name_unique_per_club(make_club):
    club = make_club()
    RuleTemplate.objects.create(club=club, **GOOD)
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleTemplate.objects.create(club=club, **GOOD)
    RuleTemplate.objects.create(club=make_club("other"), **GOOD)
