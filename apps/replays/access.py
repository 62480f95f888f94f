"""Who may see which replay: the one module every replay route asks (page, JSON, export, share codes,
a table's list of hands).

- A hand is replayable only once it has ended (finished or dissolved, its seed revealed): never
  while it is in play, over any route.
- The players of the hand (``Hand.players``, the seat → user map frozen at the deal) see it; the
  club's owner and admins and staff (``is_staff``) see every replay of the club. Anyone else gets
  404, exactly as for a hand that does not exist.
- A share code (回放码) opens one ended hand, read-only, for any signed-in user (``for_share``);
  such a viewer sees nothing else of the club.
- Views of owners, admins and staff who did not play the hand are written to the club audit log.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from django.utils.translation import gettext_lazy

from apps.clubs.access import MANAGER_ROLES
from apps.clubs.models import Membership
from apps.clubs.services import audit_log
from apps.tables.models import ENDED_HAND_STATUSES, Hand, Seat, Table

ENDED = ENDED_HAND_STATUSES
VIEW_ACTION = "replay.view"
# The audit log's label for VIEW_ACTION (apps/clubs/models.py AuditAction); kept here too so that
# makemessages for this app carries its translation.
VIEW_LABEL = gettext_lazy("viewed a replay")

PLAYER, MANAGER, STAFF, SHARE = "player", "manager", "staff", "share"


@dataclass(frozen=True)
class ReplayAccess:
    hand: Hand
    role: str  # PLAYER | MANAGER | STAFF | SHARE
    seat: int | None  # the viewer's own seat in the hand, if he played it

    @property
    def shows_club(self) -> bool:
        """May the page link into the club (table, club, 大局, disputes)? Not through a share code."""
        return self.role != SHARE

    @property
    def may_share(self) -> bool:
        """Players of the hand and the club's owner/admins make share codes."""
        return self.role in (PLAYER, MANAGER)

    @property
    def audited(self) -> bool:
        """A view that goes to the club audit log: a manager or staff who did not play the hand."""
        return self.role in (MANAGER, STAFF)


def is_replayable(hand: Hand) -> bool:
    return hand.status in ENDED and bool(hand.seed)


def seat_of(hand: Hand, user) -> int | None:
    """The seat ``user`` held in ``hand`` (from the frozen map), or None."""
    if user is None or not user.is_authenticated:
        return None
    for seat, user_id in (hand.players or {}).items():
        if user_id is not None and int(user_id) == user.pk:
            return int(seat)
    return None


def club_role(user, club_id: int) -> str | None:
    """MANAGER for the club's owner/admins, STAFF for staff without that role, else None."""
    if user is None or not user.is_authenticated:
        return None
    if Membership.objects.filter(club_id=club_id, user=user, role__in=MANAGER_ROLES).exists():
        return MANAGER
    if user.is_staff:
        return STAFF
    return None


def access_for(*, user, hand: Hand) -> ReplayAccess | None:
    """How ``user`` may see ``hand``'s replay, or None (not at all; also while it is in play)."""
    if user is None or not user.is_authenticated or not is_replayable(hand):
        return None
    seat = seat_of(hand, user)
    if seat is not None:
        return ReplayAccess(hand=hand, role=PLAYER, seat=seat)
    role = club_role(user, hand.table.club_id)
    return ReplayAccess(hand=hand, role=role, seat=None) if role else None


def hand_or_404(*, user, hand_id: int) -> ReplayAccess:
    """The access of ``user`` to hand ``hand_id``; 404 for a missing, unfinished or forbidden hand."""
    hand = Hand.objects.select_related("table", "table__club").filter(pk=hand_id).first()
    access = access_for(user=user, hand=hand) if hand is not None else None
    if access is None:
        raise Http404
    return access


def for_share(*, user, hand: Hand) -> ReplayAccess:
    """A share code's viewer (any signed-in user); 404 if the hand has not ended."""
    if user is None or not user.is_authenticated or not is_replayable(hand):
        raise Http404
    return ReplayAccess(hand=hand, role=SHARE, seat=seat_of(hand, user))


def record_view(access: ReplayAccess, *, user, route: str = "page") -> None:
    """Write an audited view (manager/staff, not a player of the hand) to the club audit log."""
    if not access.audited:
        return
    hand = access.hand
    audit_log(club=hand.table.club, actor=user, action=VIEW_ACTION,
              detail={"hand": hand.pk, "table": hand.table_id, "table_name": hand.table.name, "number": hand.number,
                      "route": route, "as": access.role})


def record_session_export(table_access: TableAccess, *, user) -> None:
    """A manager's or staff's download of a whole session (every hand in it) goes to the audit log."""
    if table_access.role not in (MANAGER, STAFF):
        return
    table = table_access.table
    audit_log(club=table.club, actor=user, action=VIEW_ACTION,
              detail={"table": table.pk, "table_name": table.name, "route": "session_export", "as": table_access.role})


@dataclass(frozen=True)
class TableAccess:
    table: Table
    role: str  # PLAYER | MANAGER | STAFF
    user_id: int


def table_or_404(*, user, table_id: int) -> TableAccess:
    """The table's 大局 list: its players (seated now or in any hand) and the club's managers/staff."""
    table = Table.objects.select_related("club").filter(pk=table_id).first()
    if table is None or user is None or not user.is_authenticated:
        raise Http404
    role = club_role(user, table.club_id)
    if role is None and (Seat.objects.filter(table=table, user=user).exists() or any(
        seat_of_players(players, user.pk) for players in Hand.objects.filter(table=table).values_list("players", flat=True)
    )):
        role = PLAYER
    if role is None:
        raise Http404
    return TableAccess(table=table, role=role, user_id=user.pk)


def seat_of_players(players: dict | None, user_id: int) -> bool:
    return any(v is not None and int(v) == user_id for v in (players or {}).values())


def may_open_hand(table_access: TableAccess, hand: Hand) -> bool:
    """On the 大局 list: may this viewer open the hand's replay (same rule as ``access_for``)?"""
    if not is_replayable(hand):
        return False
    return table_access.role in (MANAGER, STAFF) or seat_of_players(hand.players, table_access.user_id)
