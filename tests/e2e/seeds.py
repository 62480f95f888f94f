"""The usual start of a browser test's database: users, a club, its members and its rooms.

The test's server (tests/e2e/e2e_server.py) runs its seed script in ``manage.py shell``;
``club_script(...)`` is that script: it calls ``seed_club`` with the same arguments, which prints
the club's id (the script's last line, handed back to the test as ``seed``).
"""

from __future__ import annotations

import hashlib

# A deal for a server's E2E_TABLE_SEEDS: sha256("e2e-win-2270"); with the step() policy of
# tests/e2e/browser.py, seat 0 wins by self-draw with two 名堂.
WIN_SEED = hashlib.sha256(b"e2e-win-2270").hexdigest()


def club_script(**spec) -> str:
    """The seed script of ``seed_club(**spec)`` (see there), printing the club's id."""
    return f"from tests.e2e.seeds import seed_club\nprint(seed_club(**{spec!r}))"


def seed_club(*, club: str, users: list, password: str, admins=(), members=(), credit: int = 0,
              credit_reason: str = "e2e", templates=(), other_clubs=()) -> int:
    """Create ``users`` [(username, display name)] in order; the first owns a club named ``club``;
    ``admins`` and ``members`` are indices into ``users``, each member credited ``credit`` (上分,
    when not 0); ``other_clubs`` [(owner index, name)] are clubs of their own; ``templates`` are the
    club's rooms (RuleTemplate fields). Returns the club's id."""
    from apps.accounts.models import User
    from apps.clubs.models import Membership, RuleTemplate
    from apps.clubs.services import club_create
    from apps.ledgers.services import adjustment_create

    made = [User.objects.create_user(username=username, password=password, display_name=name)
            for username, name in users]
    home = club_create(name=club, owner=made[0])
    for owner, name in other_clubs:
        club_create(name=name, owner=made[owner])
    for i in admins:
        Membership.objects.create(club=home, user=made[i], role="admin")
    for i in members:
        member = Membership.objects.create(club=home, user=made[i], role="member")
        if credit:
            adjustment_create(club=home, member=member, amount=credit, reason=credit_reason, by=made[0])
    for fields in templates:
        RuleTemplate.objects.create(club=home, **fields)
    return home.pk


def seed_played_hand(*, club_id: int, usernames: list, template: str, label: str, kind: str = "random") -> int:
    """Open a table of the club's room ``template`` (the first username opens, the others join), deal
    its first hand from the seed ``sha256(f"{label}:0")`` and play it to its end through the table
    services with ``kind`` bots deciding for every seat (``random.Random(label)``): the same finished
    hand every run. Returns the hand's id."""
    import hashlib
    import random

    from apps.accounts.models import User
    from apps.clubs.models import RuleTemplate
    from apps.tables.transaction import session
    from apps.tables.verbs import services
    from tests.tables.helpers import play_hand_via_services, ready_all

    session.new_seed = lambda: hashlib.sha256(f"{label}:0".encode()).digest()
    users = [User.objects.get(username=u) for u in usernames]
    room = RuleTemplate.objects.get(club_id=club_id, name=template)
    table = services.table_open(user=users[0], template=room)
    for user in users[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, users)
    hand = play_hand_via_services(table.pk, users, rng=random.Random(label), kind=kind)
    assert hand.status == "finished", hand.status
    return hand.pk


# A table's actions and seat events from its log, as JSON (run through a test server's ``shell``
# with ``__TABLE__`` replaced by the table's id).
TABLE_LOG = """
import json
from apps.tables.models import TableEvent
rows = TableEvent.objects.filter(table_id=__TABLE__).order_by("seq")
print(json.dumps([[e.type, e.payload] for e in rows if e.type == "action" or e.type.startswith("seat.")]))
"""
