"""Listen to tables' hand_finished signal (tables never imports the audit)."""

from __future__ import annotations

from functools import partial

from django.db import transaction


def on_hand_finished(sender, hand, **kwargs) -> None:
    """Inside the tables transaction: enqueue the statistics task once it commits.

    ``robust``: a failure to enqueue (or, with the eager in-process Celery, to record) is logged
    and never breaks the player's committed action; the beat sweep records the hand later. The
    task itself skips practice tables.
    """
    from .tasks import record_hand

    transaction.on_commit(partial(record_hand.delay, hand.pk), robust=True)


def connect() -> None:
    from apps.tables.signals import hand_finished

    hand_finished.connect(on_hand_finished, dispatch_uid="audit.record_on_hand_finished")
