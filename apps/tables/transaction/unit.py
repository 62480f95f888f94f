"""The table unit of work: every change to a table is one ``with table_action(table_id) as ctx:``.

Entering locks the table row and loads the table, its seats and its hand (``context.lock``); the
body checks (checks.py) and changes ``ctx`` (transitions.py, session.py); leaving saves what
changed and appends the hash-chained events (``Ctx.save``), whose updates the outbox publishes
once the transaction commits. Then, if a bot or 托管 seat must decide, ``autoplay`` plays it, each
move its own unit of work. An exception in the body rolls it all back: a refusal changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction

from apps.tables.transaction.context import Ctx, lock
from apps.tables.transaction.session import bots_paced
from apps.tables.transaction.transitions import autoplay_step

MAX_AUTOPLAY_STEPS = 1000


@contextmanager
def table_action(table_id: int, *, play: bool = True) -> Iterator[Ctx]:
    """Lock, run the body, save and publish on commit; then let due bots and 托管 seats play
    (``play=False``: the caller plays them, or must not, e.g. inside another table's autoplay)."""
    with transaction.atomic():
        ctx = lock(table_id)
        yield ctx
        if ctx.unchanged:
            return
        ctx.save()
        due = ctx.autoplay_due
    if play and due:
        autoplay(table_id=table_id)


def autoplay(*, table_id: int, max_steps: int = MAX_AUTOPLAY_STEPS) -> int:
    """Let bots and 托管 seats play until a human must decide; one unit of work per action.

    With paced bots (settings.TABLES_BOT_DELAY > 0) this does nothing: each bot move is a short
    ``bot`` deadline that ``fire_deadlines`` plays, so people can follow the table.
    """
    if bots_paced():
        return 0
    steps = 0
    while steps < max_steps:
        with table_action(table_id, play=False) as ctx:
            if not autoplay_step(ctx):
                ctx.nothing_changed()
                return steps
        steps += 1
    return steps
