"""The player card of the table page (issue #47): a seat's player and his record in the table's
club this month, as JSON for static/js/table/player_card.js.

Only members of the table's club may read it (anyone else: 404, the table's existence not
revealed). The record is the month's leaderboard line, which every member may see anyway; a card
says nothing of a hand in play.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from apps.clubs.models import Membership
from apps.tables.models import Seat, Table

from . import selectors


@login_required
@require_GET
def seat_card(request: HttpRequest, table_id: int, seat: str) -> JsonResponse:
    """``seat``: the seat's index, or ``me`` (the viewer's own seat at the table). Four queries."""
    table = Table.objects.select_related("club").filter(pk=table_id).first()
    if table is None or not Membership.objects.filter(club_id=table.club_id, user=request.user).exists():
        raise Http404
    seats = Seat.objects.select_related("user").filter(table=table)
    if seat == "me":
        row = seats.filter(user=request.user).first()
    elif seat.isdigit() and len(seat) <= 2:
        row = seats.filter(index=int(seat)).first()
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
    )
    return JsonResponse(card)
