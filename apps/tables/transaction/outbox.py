"""Append a table's events (hash-chained) and tell the channel layer after commit.

Inside a service transaction (the caller holds the Table row lock) events are collected in an
``Outbox``; ``flush`` writes them, advances ``table.seq``/``last_hash`` and registers an
``on_commit`` hook that ``group_send``s one message to ``table.<id>``. That message holds a copy
per viewer (each seat, and the spectator) already redacted by the engine: it stays inside the
server, and each consumer forwards to its socket only its own viewer's copy.

Updates are numbered per viewer (``Table.view_seqs``), not by the table's event ``seq``: a viewer
gets a copy only when the transaction holds an event he may see, numbered one more than his last.
So another seat's pass (which would tell that seat had an option on the card) sends him nothing and
leaves no gap in his numbering, while a lost update still shows as a gap. The events in a copy carry
no table ``seq`` for the same reason.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from apps.engine.records.chain import link_hash
from apps.tables import stages
from apps.tables.models import Hand, Seat, Stage, Table
from apps.tables.read import nearby
from apps.tables.read.presenters import encoded_states
from apps.tables.read.summary import session_summary
from apps.tables.storage import rows
from apps.tables.storage.jsontext import to_json

log = logging.getLogger(__name__)

SPECTATOR = "spectator"


@dataclass
class _Pending:
    row: rows.EventRow
    engine_event: Any = None  # an engine Event, redacted per viewer
    only_seat: int | None = None  # shown to this seat only (a player's own action)


def viewer_key(viewer: int | None) -> str:
    return SPECTATOR if viewer is None else str(viewer)


def view_seq(table: Table, viewer: int | None) -> int:
    """The number of the last update ``viewer`` was sent (what his next action must carry)."""
    return int((table.view_seqs or {}).get(viewer_key(viewer), 0))


class Outbox:
    """Events of one transaction; ``table`` must be locked (select_for_update) by the caller."""

    def __init__(self, table: Table):
        self.table = table
        self.pending: list[_Pending] = []

    def add(self, type_: str, payload: dict, *, hand: Hand | None = None, engine_event: Any = None,
            only_seat: int | None = None) -> None:
        table = self.table
        seq = table.seq + 1
        row = rows.EventRow(
            table_id=table.pk, hand_id=None if hand is None else hand.pk, seq=seq, type=type_, payload=payload,
            prev_hash=table.last_hash, hash=link_hash(table.last_hash, payload), created_at=timezone.now(),
        )
        table.seq, table.last_hash = seq, row.hash
        self.pending.append(_Pending(row, engine_event, only_seat))

    def add_engine(self, events: list, *, hand: Hand) -> None:
        for ev in events:
            self.add("engine", ev.to_wire(), hand=hand, engine_event=ev)

    def flush(self, *, seats: list[Seat], hand: Hand | None, engine_hand: Any, dirty: Sequence[Seat] = ()) -> None:
        """Write the events, the ``dirty`` seats and the table row, then notify after commit."""
        table = self.table
        if not self.pending:
            return
        message = self._message(seats, hand, engine_hand)  # (advances table.view_seqs)
        # The span of the table's event numbers this update holds: the hubs hand a table's updates
        # over in this order, whatever order they were published in (hub.py, ``Sequencer``).
        message["tseq"] = [self.pending[0].row.seq - 1, table.seq]
        rows.write(table, [p.row for p in self.pending], dirty)
        transaction.on_commit(lambda: send_group(table.group_name, message))
        self.pending = []

    def _message(self, seats: list[Seat], hand: Hand | None, engine_hand: Any) -> dict:
        """One group message; each viewer's ``update`` is encoded to JSON text once, here.

        The consumers forward the text as is (no per-socket encoding), and the channel layer
        carries only strings (msgpack refuses the int keys of engine views).
        """
        # The 大局 rows are the same for every viewer: one query for all the copies, not one each.
        summary = session_summary(self.table, seats) if self.table.stage == Stage.OVER else None
        view_seqs = dict(self.table.view_seqs or {})
        events_of = {}
        for viewer in [s.index for s in seats] + [None]:
            events = [e for p in self.pending if (e := self._event_for(p, viewer)) is not None]
            if events:  # else nothing this viewer may see happened: he is sent nothing
                events_of[viewer] = events
        # Who is on one network or close together changes only with the seating: never a query per move.
        near = (nearby.table_nearby(self.table.pk, seats)
                if any(p.row.type in nearby.SEATING_EVENTS for p in self.pending) else None)
        states = encoded_states(self.table, seats, hand, engine_hand, list(events_of), summary, near)
        views, seqs = {}, {}
        for viewer, events in events_of.items():
            key = viewer_key(viewer)
            seqs[key] = view_seqs[key] = int(view_seqs.get(key, 0)) + 1
            views[key] = (f'{{"type":"update","from_seq":{seqs[key]},"seq":{seqs[key]},'
                          f'"events":{to_json(events)},"state":{states[viewer]}}}')
        self.table.view_seqs = view_seqs
        return {
            "type": "table.update",
            "table": self.table.pk,  # (the hub hands it to this process's sockets at that table)
            "seqs": seqs,
            "users": {str(s.user_id): s.index for s in seats if s.user_id},
            "views": views,
        }

    @staticmethod
    def _event_for(p: _Pending, viewer: int | None) -> dict | None:
        row = p.row
        if p.only_seat is not None and viewer != p.only_seat:
            return None
        if p.engine_event is not None:
            # None: the viewer must not even learn that this event happened (another seat's pass
            # would tell that seat had an option on the card).
            event = p.engine_event.for_viewer(viewer)
            return None if event is None else {"type": "engine", "event": event}
        return {"type": row.type, **row.payload}


_deferred = threading.local()


@contextmanager
def deferred_sends():
    """Collect this thread's group sends instead of making them; the caller publishes the list.

    A socket consumer runs a service in a worker thread: rather than block that thread on a hop
    back into the event loop for every update, it publishes the collected updates itself, in
    order, once the service returned.
    """
    box: list[tuple[str, dict]] = []
    _deferred.box = box
    try:
        yield box
    finally:
        _deferred.box = None


def send_group(group: str, message: dict) -> None:
    """Hand the message to the channel layer (after commit; at-most-once, clients resync on a gap).

    In a socket's database thread (``deferred_sends``) the message is collected and the consumer
    publishes it from its event loop. Anywhere else (a page, a Celery task) it is published here:
    ``async_to_sync`` runs ``publish`` on the server's event loop and returns once it is done, so
    the next action of the table (in any process) is only taken after this update was handed to
    the layer — updates keep their order.
    """
    trace = stages.committed()
    if trace is not None:
        message = {**message, "trace": trace}
    box = getattr(_deferred, "box", None)
    if box is not None:
        box.append((group, message))
        return
    try:
        async_to_sync(publish)([(group, message)])
    except Exception:  # noqa: BLE001 - at-most-once, as in publish (e.g. a thread that runs a loop)
        log.exception("group_send to %s failed", group)


async def publish(sends: list[tuple[str, dict]], *, back: float | None = None) -> None:
    """The one way an update reaches the channel layer: each ``(group, message)``, in order
    (at-most-once: a lost one shows as a gap and the socket resyncs). ``back``: when the event loop
    had the result of the call that made them (stages.py)."""
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in sends:
        if back is not None:
            stages.published(message, back)
        try:
            await layer.group_send(group, message)
        except Exception:  # noqa: BLE001 - delivery is at-most-once; clients resync on a seq gap
            log.exception("group_send to %s failed", group)
