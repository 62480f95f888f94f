"""Getting people to a table and back to it: the 桌号 a player types or pastes, and 继续牌桌.

A 桌号 (``Table.code``) names one table among those not yet ended. A lookup is counted against the
user's rate limit before anything is read, so guessing costs the same whether a number exists or
not, and an unknown number, an ended table and a table of a club the user is not in all get the
same answer: a guess learns nothing about other clubs' tables.
"""

from __future__ import annotations

import re
import unicodedata

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.accounts import ratelimit
from apps.tables.models import OPEN_TABLE_STATUSES, TABLE_CODE_LENGTH, Table
from apps.tables.read.selectors import access_for

# Lookups per user and window (seconds); settings.TABLE_CODE_RATE overrides either.
DEFAULT_RATE = {"user": 20, "window": 60}

_DIGITS = re.compile(r"\d+")


class TableCodeRefused(Exception):
    """A refused lookup: ``code`` for programs, ``message`` for people, ``retry_after`` (seconds)
    when the rate limit said no. Nothing was changed."""

    def __init__(self, code: str, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.code, self.message, self.retry_after = code, message, retry_after


def normalise(raw: str) -> str:
    """The 桌号 in what the player typed or pasted: full-width digits and spaces allowed, words
    around it too ("桌号 123 456"); "" unless exactly one six-digit number is found.

    >>> normalise(" 123 456 "), normalise("桌号：６５４３２１"), normalise("12345"), normalise("1234567")
    ('123456', '654321', '', '')
    """
    text = unicodedata.normalize("NFKC", raw or "")[:60]
    digits = "".join(_DIGITS.findall(text))
    return digits if len(digits) == TABLE_CODE_LENGTH else ""


def _rate() -> dict:
    return {**DEFAULT_RATE, **(getattr(settings, "TABLE_CODE_RATE", None) or {})}


def table_by_code(*, user, raw: str) -> Table:
    """The open table whose 桌号 the user typed, if he may enter its page (a member of its club: he
    sits or watches there as the page allows). Refusals (``TableCodeRefused``) change nothing:
    ``rate`` (too many tries), ``bad_code`` (not six digits), ``no_table`` (unknown, ended, or
    another club's), ``in_play`` (a member who may not watch a hand in play)."""
    rate = _rate()
    retry = ratelimit.hit("tables:code", window=int(rate["window"]), limits=[("user", user.pk, rate["user"])])
    if retry is not None:
        raise TableCodeRefused("rate", str(_("Too many table numbers tried. Please wait a minute and try again.")),
                               retry_after=retry)
    code = normalise(raw)
    if not code:
        raise TableCodeRefused("bad_code", str(_("A table number has six digits.")))
    table = (Table.objects.select_related("club").filter(code=code, status__in=OPEN_TABLE_STATUSES)
             .order_by().first())
    access = access_for(user=user, table=table) if table is not None else None
    if access is None:
        if table is not None and table.club.memberships.filter(user=user).exists():
            raise TableCodeRefused("in_play", str(_(
                "This table is in the middle of its hands: only its players and the club's admins may go in.")))
        raise TableCodeRefused("no_table", str(_(
            "No table with this number: check the number; the table may have ended, or it belongs to a "
            "club you are not in.")))
    return table


def table_in_play(*, user, club_id: int | None = None) -> Table | None:
    """继续牌桌: the newest table not yet ended where ``user`` holds a seat (of one club, or of any).
    One query (the club joined in); None for an anonymous user without any."""
    if user is None or not user.is_authenticated:
        return None
    tables = Table.objects.filter(seats__user=user, status__in=OPEN_TABLE_STATUSES)
    if club_id is not None:
        tables = tables.filter(club_id=club_id)
    return tables.select_related("club").order_by("-created_at", "-id").first()
