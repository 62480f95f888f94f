"""Listen to tables' hand_finished signal (tables never imports ledgers)."""

from __future__ import annotations

from config.celery import send_on_commit


def on_hand_finished(sender, hand, **kwargs) -> None:
    """Runs inside the tables transaction: enqueue only once it commits (``send_on_commit``).

    Robust: if enqueueing (or, with the eager in-process Celery of the default setup, settling)
    fails, the error is logged instead of breaking the player's already-committed action;
    ``sweep_unsettled`` settles the hand later.
    """
    from .tasks import settle_hand

    send_on_commit(settle_hand, hand.pk)


def connect() -> None:
    from apps.tables.signals import hand_finished

    hand_finished.connect(on_hand_finished, dispatch_uid="ledgers.settle_on_hand_finished")
