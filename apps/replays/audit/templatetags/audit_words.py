"""The collusion report's statistics in words (issue #46): a player reads "well above usual", the
z value itself stays in the report's technical fold."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

register = template.Library()

# z from which a signal reads as above usual, and as well above usual (about 1 in 40, 1 in 700
# pairs by chance alone).
ABOVE, WELL_ABOVE = 2.0, 3.0


@register.filter
def z_words(z) -> str:
    """``2.4`` -> "above usual"; under ``ABOVE`` -> "usual".

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     z_words(3.5), z_words(2.0), z_words(0.4)
    ('well above usual', 'above usual', 'usual')
    """
    try:
        z = float(z)
    except (TypeError, ValueError):
        return ""
    if z >= WELL_ABOVE:
        return gettext("well above usual")
    if z >= ABOVE:
        return gettext("above usual")
    return gettext("usual")
