"""The player card of the table page (issue #47): a seat's player and his record in the table's
club this month, as JSON for static/js/table/player_card.js.

Only members of the table's club may read it (anyone else: 404, the table's existence not
revealed). The record is the month's leaderboard line, which every member may see anyway; a card
says nothing of a hand in play. A seated player's card of another seated player adds the table's
同一网络 / 距离 warning about the two of them (read/nearby.py ``pair_lines``), which the seated
players see on the table page anyway; a spectator's card never has it.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from apps.clubs.models import Membership
from apps.tables.models import Seat, Table
from apps.tables.read.nearby import pair_lines

from . import selectors


@login_required
@require_GET
def seat_card(request: HttpRequest, table_id: int, seat: str) -> JsonResponse:
    """``seat``: the seat's index, or ``me`` (the viewer's own seat at the table). Four queries, and
    two more when a seated viewer opens another seated player's card (``nearby``)."""
    table = Table.objects.select_related("club").filter(pk=table_id).first()
    if table is None or not Membership.objects.filter(club_id=table.club_id, user=request.user).exists():
        raise Http404
    seats = list(Seat.objects.select_related("user").filter(table=table))
    if seat == "me":
        row = next((s for s in seats if s.user_id == request.user.pk), None)
    elif seat.isdigit() and len(seat) <= 2:
        row = next((s for s in seats if s.index == int(seat)), None)
    else:
        row = None
    if row is None:
        raise Http404
    card: dict = {"seat": row.index, "close": _("Close")}
    if row.user is None:
        card.update(name=_("Bot") if row.bot else _("Empty seat"), bot=bool(row.bot), record=None)
        return JsonResponse(card)
    stats = selectors.member_period_stats(club=table.club, user_id=row.user_id)
    card.update(
        name=row.user.name, bot=False,
        title=_("This month in %(club)s") % {"club": table.club.name},
        record={"hands": stats.hands, "wins": stats.wins, "points": stats.points},
        lines=[[_("Hands"), stats.hands], [_("Wins"), stats.wins], [_("Points"), stats.points]],
        # 同一网络 / 距离 between the viewer and this player: the table warning's own lines, for a
        # seated viewer only (as the table page's ``nearby``), never a spectator's.
        nearby=pair_lines(table.pk, seats, request.user.pk, row.user_id),
    )
    return JsonResponse(card)
