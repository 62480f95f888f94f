"""Catch lost updates: each server process checks, every ``TABLES_WATCH_SECONDS``, the update
numbers (``Table.view_seqs``, per viewer) of the tables its sockets show, in one query, and sends a
fresh ``state`` to a socket that is behind its viewer's number. Every ``TABLES_PRESENCE_SECONDS``
it also marks its sockets' seats as seen (presence.py sweeps the seats nobody sees any more).

Group sends are at-most-once (a channel-layer or Redis restart drops them). Without this a socket
whose update was lost would wait for the next move, or the next deadline, to notice. A socket is
resynced only when it is behind on two checks in a row with no message in between, so an update
still on its way is never mistaken for a lost one. Each round also leaves the groups of tables the
process has no socket at any more (hub.py).
"""

from __future__ import annotations

import asyncio
import logging
import time

from django.conf import settings

from apps.tables import stages
from apps.tables.live import hub
from apps.tables.models import Table
from apps.tables.verbs import presence

log = logging.getLogger(__name__)

_sockets = hub.tables()  # table id -> its consumers in this process
_task: asyncio.Task | None = None
_seen_at = 0.0  # loop time of the last presence touch


def interval() -> float:
    return settings.TABLES_WATCH_SECONDS


def start(db_call) -> None:
    """Watch this process's sockets (``hub``'s registry); ``db_call`` runs a function in a database
    thread."""
    global _task
    loop = asyncio.get_running_loop()
    if _task is None or _task.done() or _task.get_loop() is not loop:  # (tests run one loop each)
        _task = loop.create_task(_watch(db_call))
    stages.watch_loop(lambda: bool(_sockets))


def table_seqs(table_ids: list[int]) -> dict[int, dict[str, int]]:
    """Each table's update numbers per viewer (``Table.view_seqs``)."""
    return dict(Table.objects.filter(pk__in=table_ids).values_list("pk", "view_seqs"))


async def check_once(db_call) -> int:
    """One round: resync the sockets behind their table's seq twice running; returns how many."""
    if not _sockets:
        return 0
    seqs = await db_call(table_seqs)(table_ids=list(_sockets))
    resynced = 0
    for table_id, consumers in list(_sockets.items()):
        view_seqs = seqs.get(table_id)
        for consumer in list(consumers):
            seq = None if view_seqs is None else int(view_seqs.get(consumer.view_key or "", 0))
            if seq is None or consumer.seq >= seq:
                consumer.behind_since = None
                continue
            mark = (seq, consumer.seq)
            if consumer.behind_since != mark:  # first time seen behind: give it a round to arrive
                consumer.behind_since = mark
                continue
            consumer.behind_since = None
            resynced += 1
            try:
                await consumer.push_state()
            except Exception:  # noqa: BLE001 - one socket's failure never stops the watch
                log.exception("resync of a lagging socket failed")
    return resynced


def seated_players() -> dict[int, set[int]]:
    """Table id -> the users seated there with a socket in this process."""
    out: dict[int, set[int]] = {}
    for table_id, consumers in _sockets.items():
        users = {c.user.pk for c in consumers if c.view_key not in (None, "spectator")}
        if users:
            out[table_id] = users
    return out


async def touch_presence(db_call) -> int:
    """Mark this process's seated sockets as seen now; returns how many seats."""
    global _seen_at
    _seen_at = asyncio.get_running_loop().time()
    players = seated_players()
    return await db_call(presence.seen)(players=players, still_here=has_socket) if players else 0


def has_socket(table_id: int, user_id: int) -> bool:
    """Is a socket of ``user_id`` at ``table_id`` open in this process? (Called from a database
    thread: a consumer unregisters before its disconnect puts the seat offline.)"""
    return any(c.user.pk == user_id for c in list(_sockets.get(table_id, ())))


async def _watch(db_call) -> None:
    while True:
        await asyncio.sleep(interval())
        try:
            await hub.sweep()
            stages.dump()
            if not _sockets:
                return
            started = time.perf_counter()
            await check_once(db_call)
            if asyncio.get_running_loop().time() - _seen_at >= settings.TABLES_PRESENCE_SECONDS:
                await touch_presence(db_call)
            stages.record("watch", (time.perf_counter() - started) * 1000)
        except Exception:  # noqa: BLE001 - a database hiccup: try again next round
            log.exception("table watch round failed")
