"""``{% member_facts club members as facts %}`` and ``{{ facts|facts_of:user_id }}``: the balance
and online state beside each name of the club page's member list (apps.ledgers.roster), for its
owner and admins. A tag because apps.clubs, whose page it is, may not import the ledger or the
tables (as audit_badges does for the open-dispute badge)."""

from __future__ import annotations

from datetime import timedelta

from django import template
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext as _

from apps.ledgers import roster

register = template.Library()


@register.simple_tag
def member_facts(club, members) -> dict:
    return roster.member_facts(club=club, members=members)


@register.filter
def facts_of(facts: dict, user_id: int):
    return facts.get(user_id) or roster.MemberFacts()


RECENT = timedelta(minutes=2)


@register.filter
def presence_state(facts: roster.MemberFacts) -> str:
    """online (at a table now), recent (seen in the last two minutes), away, or never."""
    if facts.online:
        return "online"
    if facts.last_seen is None:
        return "never"
    return "recent" if timezone.now() - facts.last_seen < RECENT else "away"


@register.filter
def presence_words(facts: roster.MemberFacts) -> str:
    state = presence_state(facts)
    if state == "online":
        return _("Online, at a table")
    if state == "never":
        return _("Not seen yet")
    if state == "recent":
        return _("Online just now")
    return _("Last seen %(ago)s ago") % {"ago": timesince(facts.last_seen, depth=1)}
