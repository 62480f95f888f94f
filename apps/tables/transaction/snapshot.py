"""The table as a viewer sees it now, read under the table's row lock: what a socket gets first.

The lock (``context.lock``) makes the table, its seats and its hand one consistent read and lets the
rows read be cached (``hand_cache``) once the read commits.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.tables.read.nearby import table_nearby
from apps.tables.read.presenters import table_state
from apps.tables.read.selectors import access_for
from apps.tables.transaction.context import lock
from apps.tables.transaction.outbox import view_seq


def table_snapshot(*, table_id: int, viewer: int | None) -> dict[str, Any]:
    """``{"seq", "viewer", "state"}``: the table as ``viewer`` sees it now (one consistent read);
    ``seq`` is the viewer's own update number (``outbox.view_seq``)."""
    with transaction.atomic():
        # The row lock makes (table, seats, hand) one consistent read and lets them be cached.
        return _snapshot(lock(table_id), viewer)


def _snapshot(ctx, viewer: int | None) -> dict[str, Any]:
    """The locked table's state for ``viewer``; the rows read are cached once the read commits."""
    ctx.keep_read()
    return snapshot_of(ctx, viewer)


def snapshot_of(ctx, viewer: int | None) -> dict[str, Any]:
    """``{"seq", "viewer", "state", "tseq"}`` of a table context as it stands (locked, or just saved);
    ``tseq``: the table's last event number, what the state covers (hub.py orders updates by it)."""
    near = None if viewer is None else table_nearby(ctx.table.pk, ctx.seats)  # (seated players only)
    return {"seq": view_seq(ctx.table, viewer), "viewer": viewer, "tseq": ctx.table.seq,
            "state": table_state(ctx.table, ctx.seats, ctx.hand, ctx.engine_hand, viewer, nearby=near)}


def viewer_snapshot(*, user, table_id: int) -> dict[str, Any] | None:
    """``table_snapshot`` for ``user`` with his access decided in the same locked read, or None.

    Checking access first and reading the snapshot after leaves a gap in which the table can change
    (a member allowed to look at a waiting table would get the state of the hand just dealt).
    """
    with transaction.atomic():
        ctx = lock(table_id)
        access = access_for(user=user, table=ctx.table, seats=ctx.seats)
        return None if access is None else _snapshot(ctx, access.seat)
