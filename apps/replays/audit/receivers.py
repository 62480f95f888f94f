"""Listen to tables' hand_finished signal (tables never imports the audit)."""

from __future__ import annotations

from config.celery import send_on_commit


def on_hand_finished(sender, hand, **kwargs) -> None:
    """Inside the tables transaction: enqueue the statistics task once it commits
    (``send_on_commit``).

    Robust: a failure to enqueue (or, with the eager in-process Celery, to record) is logged
    and never breaks the player's committed action; the beat sweep records the hand later. The
    task itself skips practice tables.
    """
    from .tasks import record_hand

    send_on_commit(record_hand, hand.pk)


def connect() -> None:
    from apps.tables.signals import hand_finished

    hand_finished.connect(on_hand_finished, dispatch_uid="audit.record_on_hand_finished")
