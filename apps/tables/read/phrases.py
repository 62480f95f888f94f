"""The managers' log of 快捷语 (issue #47): who sent which phrase at which table, the last
``phrasebook.KEEP_DAYS`` days (older rows are purged daily: ``verbs.phrases.purge_old``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from apps.tables.models import TablePhrase
from apps.tables.phrasebook import KEEP_DAYS


def cutoff(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=KEEP_DAYS)


def club_phrases(*, club_id: int, now: datetime | None = None) -> QuerySet[TablePhrase]:
    """The club's phrases of the last ``KEEP_DAYS`` days (newest first by ``id``: page it with
    ``clubs.paging.keyset_page``), with their sender and table."""
    return (TablePhrase.objects.filter(club_id=club_id, sent_at__gte=cutoff(now))
            .select_related("user", "table").order_by("-id"))

