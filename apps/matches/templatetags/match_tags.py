"""``{% club_matches_now club as matches %}``: the club page's announcement of its running and
coming matches (templates/clubs/_matches_now.html), each with its start, its state in words (as
the clock has made it due: 报名中, 签到中, 进行中 ...), the round being played and the viewer's own
entry (轮空 or 等待下一轮 between his tables). A fixed number of queries (selectors.club_announced),
whatever the club's history."""

from __future__ import annotations

from django import template
from django.utils import timezone

from apps.matches import selectors
from apps.matches.models import MatchState
from apps.matches.services import clock
from apps.matches.status import entrant_status

register = template.Library()


@register.simple_tag(takes_context=True)
def club_matches_now(context, club) -> list:
    request = context.get("request")
    user = getattr(request, "user", None)
    matches, entries = selectors.club_announced(club=club, user=user)
    now = timezone.now()
    labels = dict(MatchState.choices)
    for m in matches:
        m.shown_state = clock.due_state(m, now)
        m.shown_state_label = labels[m.shown_state]
        entry = entries.get(m.pk)
        m.my_entry = entrant_status(entry, m, byes=getattr(m, "round_byes", None)) if entry else None
    return matches
