"""The outbox sweeps cost what is new: after the first run they only look at hands finished since
their mark (less the overlap), and a hand still not done holds the mark back."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.ledgers import selectors, services, sweeps, tasks
from apps.ledgers.models import SweepMark, Transaction


def finished(hand, ago):
    type(hand).objects.filter(pk=hand.pk).update(finished_at=timezone.now() - ago)


def test_the_mark_follows_the_oldest_pending_hand(make_finished_hand):
    old = make_finished_hand()
    finished(old, timedelta(days=30))
    assert selectors.unsettled_hand_ids() == [old.pk]  # the first run scans everything
    old.refresh_from_db()
    assert SweepMark.objects.get(name="ledgers.unsettled").mark == old.finished_at
    assert selectors.unsettled_hand_ids() == [old.pk]  # still pending: it holds the mark
    services.settle_hand(hand_id=old.pk)
    assert selectors.unsettled_hand_ids() == []  # the mark moves up to the cutoff
    assert SweepMark.objects.get(name="ledgers.unsettled").mark > timezone.now() - timedelta(minutes=1)
    # A hand finished within the overlap before the mark (a late commit) is still found ...
    late = make_finished_hand(table=old.table)
    finished(late, timedelta(minutes=5))
    # ... one finished long before the mark is not looked at again (ledger_audit reports it).
    lost = make_finished_hand(table=old.table)
    finished(lost, timedelta(days=2))
    assert selectors.unsettled_hand_ids() == [late.pk]


def test_a_sweep_reads_only_its_window(make_finished_hand):
    """The query filters on the finish time (the partial index ``tables_hand_finished_at``)."""
    hand = make_finished_hand()
    services.settle_hand(hand_id=hand.pk)
    tasks.sweep_unsettled()
    with CaptureQueriesContext(connection) as ctx:
        assert tasks.sweep_unsettled() == 0
    scan = next(q["sql"] for q in ctx.captured_queries if "tables_hand" in q["sql"] and "finished_at" in q["sql"])
    assert "finished_at\" >=" in scan
    assert Transaction.objects.filter(hand=hand).count() == 1
    assert sweeps.OVERLAP >= timedelta(minutes=1)
