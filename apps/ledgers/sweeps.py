"""Outbox sweeps over finished hands that cost what is new, not the history.

A sweep looks for finished hands whose follow-up (their settlement, their audit statistics) never
happened. Scanning every finished hand each minute would cost the whole history; instead a sweep
keeps a mark (``SweepMark``): the ``finished_at`` before which every hand was found done. Each run
looks at the hands finished since the mark less ``OVERLAP`` (a transaction that set
``finished_at`` but committed later than that is still seen) up to the grace cutoff, through the
partial index ``tables_hand_finished_at``; the mark then moves to the oldest hand still not done,
or to the cutoff when none is. A hand that can never be done holds the mark back (and
``ledger_audit``/``verify_hands`` name it). The first run of a sweep (no mark yet) scans everything,
hands without ``finished_at`` included, once.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Exists, Q
from django.utils import timezone

from .models import SweepMark

OVERLAP = timedelta(minutes=10)


def pending_hand_ids(*, name: str, done: Exists, limit: int, grace_seconds: int, where: Q | None = None) -> list[int]:
    """Finished hands not ``done`` (an ``Exists`` on OuterRef("pk")), oldest first, at most
    ``limit``; advances the sweep's mark."""
    from apps.tables.models import Hand

    now = timezone.now()
    cutoff = now - timedelta(seconds=grace_seconds)
    mark = SweepMark.objects.filter(name=name).values_list("mark", flat=True).first()
    qs = Hand.objects.filter(status="finished")
    if where is not None:
        qs = qs.filter(where)
    if mark is None:
        qs = qs.filter(Q(finished_at__lte=cutoff) | Q(finished_at__isnull=True))
    else:
        qs = qs.filter(finished_at__gte=mark - OVERLAP, finished_at__lte=cutoff)
    rows = list(qs.exclude(done).order_by("finished_at", "pk").values_list("pk", "finished_at")[:limit])
    oldest = rows[0][1] if rows else cutoff
    if oldest is not None:  # (None: a hand without finished_at is still pending: keep scanning all)
        SweepMark.objects.update_or_create(name=name, defaults={"mark": oldest})
    return [pk for pk, _ in rows]
