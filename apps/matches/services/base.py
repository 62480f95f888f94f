"""What every match verb shares: the clock and the match row lock."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Match


def now_or(now=None):
    return now or timezone.now()


def lock(match_id: int) -> Match:
    """The match row, locked for this transaction (every state move holds it)."""
    try:
        return Match.objects.select_for_update().select_related("club").get(pk=match_id)
    except Match.DoesNotExist:
        raise ValidationError(_("This match does not exist.")) from None


def is_int(value) -> bool:
    """A whole number that is not a bool (JSON and form input give both)."""
    return isinstance(value, int) and not isinstance(value, bool)
