"""What the club page's member list shows its owner and admins beside each name (issue #46): the
member's balance in this club (the ledger's account) and whether he is online.

It lives here, not in apps.clubs, because apps.clubs may not import the ledger or the tables
(ARCHITECTURE.md's layers) and apps.ledgers is the lowest layer that may read both. The club page
(templates/clubs/detail.html) asks for it through the ``member_facts`` tag
(templatetags/club_roster.py), for the page of members it shows: three queries whatever the size
of the club or of the page.

Online is what the platform already records, nothing new: a seat of an open table whose socket
is connected (``Seat.online``: the table's presence code keeps it true); otherwise the last time
the member was seen: his seat's last presence touch (``Seat.seen_at``), the last sign-in or table
page he opened (``SeenAddress.last_seen``, ``User.last_login``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Case, IntegerField, Max, Value, When

from apps.accounts.models import SeenAddress
from apps.tables.models import OPEN_TABLE_STATUSES, Seat

from .models import Account, AccountKind


@dataclass(frozen=True)
class MemberFacts:
    balance: int = 0
    online: bool = False  # at an open table, connected
    last_seen: datetime | None = None


def member_facts(*, club, members: Iterable) -> dict[int, MemberFacts]:
    """User id -> MemberFacts of these memberships (their ``user`` loaded) of ``club``."""
    members = list(members)
    ids = [m.user_id for m in members]
    if not ids:
        return {}
    balances = dict(Account.objects.filter(club=club, kind=AccountKind.MEMBER, user_id__in=ids)
                    .values_list("user_id", "balance"))
    seats = {row["user_id"]: row for row in Seat.objects.filter(user_id__in=ids).values("user_id").annotate(
        seen=Max("seen_at"),
        at_table=Max(Case(When(online=True, table__status__in=OPEN_TABLE_STATUSES, then=Value(1)),
                          default=Value(0), output_field=IntegerField())))}
    sightings = dict(SeenAddress.objects.filter(user_id__in=ids).values("user_id").annotate(seen=Max("last_seen"))
                     .values_list("user_id", "seen"))
    facts = {}
    for m in members:
        seat = seats.get(m.user_id) or {}
        times = [t for t in (seat.get("seen"), sightings.get(m.user_id), m.user.last_login) if t is not None]
        facts[m.user_id] = MemberFacts(balance=balances.get(m.user_id, 0), online=bool(seat.get("at_table")),
                                       last_seen=max(times) if times else None)
    return facts
