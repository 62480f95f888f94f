"""``{% club_tables club as data %}``: what the club page's tables section needs;
``{% table_in_play club as table %}``: the viewer's table not yet ended (继续牌桌), of a club or any."""

from __future__ import annotations

from django import template

from apps.clubs.access import is_manager
from apps.clubs.models import RuleTemplate
from apps.clubs.selectors import membership_for
from apps.tables.models import BotLevel
from apps.tables.read.codes import table_in_play as select_table_in_play
from apps.tables.read.selectors import club_tables as select_club_tables

register = template.Library()


@register.simple_tag(takes_context=True)
def club_tables(context, club) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    membership = membership_for(user=user, club=club) if user is not None else None
    tables = select_club_tables(club=club)
    for table in tables["open"] + tables["closed"]:
        seats = list(table.seats.all())
        table.seat_list = seats
        table.taken_count = sum(1 for s in seats if s.taken)
        table.mine = any(s.user_id == getattr(user, "pk", None) for s in seats)
    return {
        "open": tables["open"],
        "closed": tables["closed"],
        "templates": list(RuleTemplate.objects.filter(club=club)),
        "can_play": membership is not None,
        "can_manage": is_manager(membership),
        "bot_levels": BotLevel.choices,  # the open form's choice of the practice bots' level
        "bot_level_default": BotLevel.NORMAL.value,
    }


@register.simple_tag(takes_context=True)
def table_in_play(context, club=None):
    """One query: the newest table not yet ended where the viewer sits (in ``club``, or any)."""
    request = context.get("request")
    return select_table_in_play(user=getattr(request, "user", None), club_id=getattr(club, "pk", None))
