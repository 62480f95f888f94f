"""邀请 (issue #47): a seated player at a waiting table with a free seat invites club members who
are online (their per-user socket is open: accounts.notices presence). The invitee gets a notice
whose 加入 POSTs the table's join form, so he is seated by ``services.table_join`` like anyone who
taps 加入 on the club page (and told plainly when the seat went meanwhile).

Neither verb locks the table row: an invitation changes nothing of the table. Invitations are
rate-limited per inviter (``INVITE_RATE``, the project's one counter: accounts.ratelimit), and one
member is invited to one table once (the notice's key).
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from apps.accounts import notices, ratelimit
from apps.clubs.models import Membership

from ..models import Seat, Table, TableStatus
from ..transaction.context import TableError

INVITE_RATE = {"user": 10, "window": 60}  # invitations one player may send a minute


def _inviting(*, user, table_id) -> tuple[Table, list[Seat]]:
    """The table and its seats, if ``user`` may invite to it now (else a TableError)."""
    table = Table.objects.select_related("club").filter(pk=table_id).first()
    if table is None:
        raise TableError("no_table", _("This table does not exist."))
    seats = list(Seat.objects.filter(table=table))
    if not any(s.user_id == user.pk for s in seats):
        raise TableError("not_seated", _("Only a player seated at this table can invite."))
    if table.arranged or table.status != TableStatus.WAITING:
        raise TableError("not_waiting", _("Invitations are for a table that has not started."))
    if all(s.taken for s in seats):
        raise TableError("table_full", _("This table has no free seat."))
    return table, seats


def invite_candidates(*, user, table_id: int) -> list[dict]:
    """The club's members online now and not at the table, by name: ``[{"id", "name"}]``. Four
    queries whatever the club's size (table, seats, members, presence)."""
    table, seats = _inviting(user=user, table_id=table_id)
    seated = {s.user_id for s in seats if s.user_id}
    members = Membership.objects.filter(club_id=table.club_id).exclude(user_id__in=seated)
    online = notices.online_user_ids(user_ids=members.values("user_id"))
    names = members.filter(user_id__in=online).select_related("user")
    return sorted(({"id": m.user_id, "name": m.user.name} for m in names), key=lambda m: m["name"])


def table_invite(*, user, table_id: int, invitee_id) -> str:
    """Invite ``invitee_id`` (a member of the table's club, not at the table) to the table; his
    name. Refused with a TableError (nothing sent): bad or forged ids, non-members, a started or
    full table, an inviter who is not seated, too many invitations, the same member twice."""
    if isinstance(invitee_id, bool) or not isinstance(invitee_id, int):
        raise TableError("bad_invitee", _("Choose a member to invite."))
    retry = ratelimit.hit("tables:invite", window=INVITE_RATE["window"],
                          limits=[("user", user.pk, INVITE_RATE["user"])])
    if retry:
        raise TableError("rate_limited", _("Too many invitations. Please wait a minute."))
    table, seats = _inviting(user=user, table_id=table_id)
    member = Membership.objects.filter(club_id=table.club_id, user_id=invitee_id).select_related("user").first()
    if member is None:
        raise TableError("not_member", _("Only members of this club can be invited."))
    if any(s.user_id == invitee_id for s in seats):
        raise TableError("already_seated", _("%(name)s is already at this table.") % {"name": member.user.name})
    notice = notices.notify(
        recipient_id=invitee_id, kind="table_invite", key=f"invite:{table.pk}:{invitee_id}",
        params={"inviter": user.name, "table": table.code or table.name, "club": table.club.name},
        url=reverse("tables:join", args=[table.pk]),
    )
    if notice is None:
        raise TableError("already_invited", _("%(name)s has been invited to this table already.")
                         % {"name": member.user.name})
    return member.user.name
