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


SMALL, BIG = "一二三四五六七八九十", "壹贰叁肆伍陆柒捌玖拾"


def _glyph(card: str) -> str:
    """A card as the replay shows it (static/js/table/cards.js cardText): s8 -> 八, b10 -> 拾."""
    try:
        rank = int(card[1:])
        return (BIG if card[0] == "b" else SMALL)[rank - 1]
    except (ValueError, IndexError, TypeError):
        return "?"


@register.filter
def action_words(action) -> str:
    """A wire action in the replay's words: {"type": "discard", "card": "s8"} -> "打出 八" (zh-hans)."""
    if not isinstance(action, dict):
        return ""
    from apps.tables.i18n import table_strings

    word = table_strings().get(action.get("type"), action.get("type") or "")
    if action.get("card"):
        return f"{word} {_glyph(action['card'])}"
    groups = action.get("groups") or []
    return " ".join([str(word), *("".join(_glyph(c) for c in g) for g in groups)])


@register.filter
def p_words(p) -> str:
    """A p-value as a chance in words: 0.0005 -> "偶然出现的概率约为 1/2000" (zh-hans)."""
    try:
        p = float(p)
    except (TypeError, ValueError):
        return ""
    if p >= 0.1:
        return gettext("chance alone gives this about %(pct)s%% of the time") % {"pct": round(p * 100)}
    if p < 1e-6:
        return gettext("chance alone gives this less than once in a million")
    n = 1 / p
    n = int(float(f"{n:.1g}")) if n < 100 else int(float(f"{n:.2g}"))
    return gettext("chance alone gives this about 1 time in %(n)s") % {"n": n}


@register.filter
def fp_for(latest, user_id):
    """The latest 信息优势 result of ``user_id`` in the report's dict (None when there is none)."""
    return latest.get(user_id) if isinstance(latest, dict) else None
