"""快捷语 and reactions (issue #47): a seated player's phrase, stored and announced to the table.

Not game state, and never in a move's way: no table row lock, no unit of work, nothing in the
hand's hash-chained log. One SELECT decides (the table's status and its ``no_phrases`` option,
the sender's seat), one INSERT keeps the row for the managers' log (read/phrases.py), and the
message goes to the table's group like an update (``table.phrase``), which every socket at the
table forwards, spectators' included (live/consumers.py).

Refusals change nothing and name their reason: an unknown id (``bad_phrase``), no such table
(``no_table``), a spectator (``not_seated``), an ended table (``table_closed``), the option off
(``phrases_off``), the seat's rate limit (``phrase_too_fast``, with ``retry_after``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db.models import Subquery
from django.utils import timezone

from apps.tables.models import ENDED_TABLE_STATUSES, Seat, Table, TablePhrase, table_group
from apps.tables.phrasebook import BY_ID
from apps.tables.read.phrases import cutoff
from apps.tables.transaction.context import TableError

# The seat's limit (live/limits.py ``SeatPhrases.take``): None, or the seconds until it may send.
Limit = Callable[[tuple[int, int]], float | None]


class PhraseTooFast(TableError):
    """The seat's phrase limit: ``extra`` goes into the refusal (``retry_after``)."""

    def __init__(self, wait: float):
        super().__init__("phrase_too_fast", "Too many phrases: wait a moment.")
        self.extra = {"retry_after": wait}


def phrase_send(*, user, table_id: int, phrase, limit: Limit | None = None) -> list[tuple[str, dict]]:
    """Send ``phrase`` (an id of ``phrasebook.BY_ID``) from ``user``'s seat at ``table_id``; returns
    the group send to publish. Raises ``TableError`` with nothing written."""
    if not isinstance(phrase, str) or phrase not in BY_ID:
        raise TableError("bad_phrase", "Unknown phrase.")
    found = (Table.objects.filter(pk=table_id).order_by()
             .annotate(my_seat=Subquery(Seat.objects.filter(table_id=table_id, user_id=user.pk).values("index")[:1]))
             .values_list("status", "club_id", "no_phrases", "my_seat")[:1])
    if not found:
        raise TableError("no_table", "No such table.")
    status, club_id, off, seat = found[0]
    if seat is None:
        raise TableError("not_seated", "Only seated players may send phrases.")
    if status in ENDED_TABLE_STATUSES:
        raise TableError("table_closed", "This table is closed.")
    if off:
        raise TableError("phrases_off", "Quick phrases are turned off at this table.")
    if limit is not None:
        wait = limit((table_id, user.pk))
        if wait is not None:
            raise PhraseTooFast(wait)
    row = TablePhrase.objects.create(table_id=table_id, club_id=club_id, user=user, seat=seat, phrase=phrase,
                                     sent_at=timezone.now())
    return [(table_group(table_id), {"type": "table.phrase", "table": table_id, "seat": seat, "phrase": phrase,
                                     "id": row.pk})]


def purge_old(*, now: datetime | None = None) -> int:
    """Delete the phrases older than ``phrasebook.KEEP_DAYS`` days (one range of the ``sent_at``
    index); how many. The daily retention job (apps/replays/tasks.py) runs it."""
    deleted, _ = TablePhrase.objects.filter(sent_at__lt=cutoff(now)).delete()
    return deleted
