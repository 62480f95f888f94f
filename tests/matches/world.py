"""A small world for the match page tests: club A with every role, a match taking entries, a
draft match, and club B next door with its own admin, template and match.

The ``world`` fixture (tests/matches/conftest.py) builds it for test_views_authz.py, test_views_pages.py and test_forms.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

ROLES = ["anonymous", "outsider", "member", "admin", "owner", "staff", "other_admin"]


@dataclass
class World:
    club: object
    owner: object
    admin: object
    member: object
    member2: object
    outsider: object
    staff: object
    template: object
    match: object  # registration open, entry fee 100
    draft: object  # registration opens tomorrow (editable)
    other_club: object
    other_admin: object
    other_member: object
    other_template: object
    other_match: object

    def user_for(self, role: str):
        return None if role == "anonymous" else getattr(self, role)


def template_for(club, name="比赛三人"):
    from apps.clubs.models import RuleTemplate

    return RuleTemplate.objects.create(club=club, name=name, preset="full", players=3, base_score=1,
                                       piao_choices=[], hands_per_session=8, turn_seconds=15)


def fund(club, by, user, amount):
    from apps.clubs.models import Membership
    from apps.ledgers.services import adjustment_create

    member = Membership.objects.get(club=club, user=user)
    adjustment_create(club=club, member=member, amount=amount, reason="test funds", by=by)


def match_fields(template, **fields):
    now = timezone.now()
    values = {
        "name": "周末积分赛", "description": "每周六晚上", "template": template, "format": "fixed",
        "starts_at": now + timedelta(hours=2), "min_entrants": 3, "max_entrants": 30, "entry_fee": 100,
        "prize_scheme": {"kind": "percent", "percents": [50, 30, 20]}, "hands_per_round": 2, "rounds": 3,
    }
    values.update(fields)
    return values


def build_world(make_user, make_club) -> World:
    from apps.matches import services

    owner, admin = make_user("owner", display_name="东家"), make_user("admin", display_name="管理员")
    member, member2 = make_user("member", display_name="阿明"), make_user("member2", display_name="小芳")
    outsider = make_user("outsider", display_name="路人")
    staff = make_user("staff", is_staff=True, display_name="客服")
    club = make_club("A", owner=owner, admins=[admin], members=[member, member2])
    template = template_for(club)
    for user in (owner, admin, member, member2):
        fund(club, owner, user, 500)
    match = services.match_create(club=club, by=owner, **match_fields(template))
    now = timezone.now()
    draft = services.match_create(
        club=club, by=owner,
        **match_fields(template, name="下周淘汰赛", format="knockout", starts_at=now + timedelta(days=2),
                       registration_opens_at=now + timedelta(days=1), entry_fee=0),
    )
    other_admin, other_member = make_user("o_admin", display_name="别家管理"), make_user("o_member")
    other_owner = make_user("o_owner")
    other = make_club("B", owner=other_owner, admins=[other_admin], members=[other_member])
    other_template = template_for(other, name="别家规则")
    other_match = services.match_create(club=other, by=other_owner,
                                        **match_fields(other_template, name="别家比赛", entry_fee=0))
    return World(
        club=club, owner=owner, admin=admin, member=member, member2=member2, outsider=outsider, staff=staff,
        template=template, match=match, draft=draft, other_club=other, other_admin=other_admin,
        other_member=other_member, other_template=other_template, other_match=other_match,
    )


def form_data(template, **overrides) -> dict:
    """A valid POST of the match form (start in two hours)."""
    start = timezone.localtime(timezone.now() + timedelta(hours=2))
    data = {
        "name": "新比赛", "description": "", "template": str(template.pk), "format": "fixed",
        "starts_at": start.strftime("%Y-%m-%dT%H:%M"), "registration_opens_at": "", "registration_closes_at": "",
        "checkin_minutes": "10", "min_entrants": "3", "max_entrants": "30", "entry_fee": "50",
        "prize_kind": "percent", "prize_values": "50,30,20", "hands_per_round": "2", "rounds": "3",
        "points_by_rank": "", "elim_start_chips": "1000", "elim_line": "900", "elim_rise_every": "1",
        "elim_rise_by": "20", "knockout_top": "1", "final_hands": "4",
    }
    data.update(overrides)
    return data
