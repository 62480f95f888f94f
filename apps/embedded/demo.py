"""Demo data for `manage.py serve --demo`: one club, its owner, a few members, two templates.

Idempotent: running it again finds the same rows (and resets the demo passwords).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from apps.clubs import services
from apps.clubs.models import Club, Membership, Role, RuleTemplate

DEMO_CLUB = "演示俱乐部"
DEMO_PASSWORD = "paohuzi-demo"
DEMO_USERS = [
    ("demo_owner", "老王", Role.OWNER),
    ("demo_admin", "小李", Role.ADMIN),
    ("demo_a", "阿明", Role.MEMBER),
    ("demo_b", "阿芳", Role.MEMBER),
    ("demo_c", "阿强", Role.MEMBER),
]
DEMO_TEMPLATES = [
    {
        "name": "全名堂 三人",
        "preset": "full",
        "options": {},
        "players": 3,
        "base_score": 1,
        "piao_choices": [],
        "hands_per_session": 8,
        "turn_seconds": 15,
    },
    {
        "name": "郴州 飘分",
        "preset": "chenzhou",
        "options": {"min_huxi": 9},
        "players": 3,
        "base_score": 2,
        "piao_choices": [1, 2, 3],
        "hands_per_session": 10,
        "turn_seconds": 20,
        "fee": 1,  # 桌费: the winner pays 1 point to the club each hand
        "fee_payer": "winner",
    },
]


@transaction.atomic
def create_demo_data() -> list[tuple[str, str, str]]:
    """Create (or refresh) the demo club; returns (username, display name, role) rows."""
    User = get_user_model()
    users = {}
    for username, display_name, _role in DEMO_USERS:
        user, _created = User.objects.get_or_create(
            username=username, defaults={"display_name": display_name}
        )
        user.display_name = display_name
        user.set_password(DEMO_PASSWORD)
        user.save()
        users[username] = user
    owner = users["demo_owner"]
    club = Club.objects.filter(name=DEMO_CLUB, owner=owner).first()
    if club is None:
        club = services.club_create(name=DEMO_CLUB, owner=owner)
    for username, _display_name, role in DEMO_USERS:
        if role != Role.OWNER:
            Membership.objects.update_or_create(club=club, user=users[username], defaults={"role": role})
    for fields in DEMO_TEMPLATES:
        if not RuleTemplate.objects.filter(club=club, name=fields["name"]).exists():
            services.template_create(club=club, by=owner, **fields)
    return [(u, d, str(r)) for u, d, r in DEMO_USERS]
