"""This server process's table sockets, and how their tables' updates reach them.

A process joins a table's group (``table.<id>``) once, with one channel of its own, however many of
its sockets show that table: each update is received and decoded once by the process, then handed
to each of its sockets at that table, in order (``TableConsumer.deliver``). A channel per socket
would decode every update once per socket and wake a task per socket to forward it.

The group is joined before a socket's first state is read (so no later update can pass it by) and
left by the watch (``sweep``) once the process has no socket at the table left. Joins and leaves
of one table run one after the other, in the order they were asked for.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels.layers import get_channel_layer

from .models import table_group

log = logging.getLogger(__name__)

_sockets: dict[int, set[Any]] = {}  # table id -> its consumers in this process


def sockets(table_id: int) -> set[Any]:
    return _sockets.get(table_id, set())


def tables() -> dict[int, set[Any]]:
    """Table id -> this process's consumers there (the registry itself: do not change it)."""
    return _sockets


class _Hub:
    """One event loop's channel and its group memberships (tests run a loop each)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.started: asyncio.Task | None = None
        self.reader: asyncio.Task | None = None  # (held here: the loop keeps only a weak reference)
        # table id -> (joined?, the task of the last join or leave asked for)
        self.ops: dict[int, tuple[bool, asyncio.Task]] = {}

    async def _start(self) -> None:
        self.channel = await self.layer.new_channel("tables.")
        self.reader = self.loop.create_task(self._read())

    async def ensure_started(self) -> None:
        for old in [hub for loop, hub in list(_hubs.items()) if loop.is_closed()]:
            await old.forget()
        if self.started is None or _failed(self.started):
            self.started = self.loop.create_task(self._start())
        await asyncio.shield(self.started)

    async def _read(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a channel-layer hiccup (Redis restarting): go on
                log.exception("table hub receive failed")
                await asyncio.sleep(0.5)
                continue
            for consumer in list(_sockets.get(message.get("table"), ())):
                try:
                    await consumer.deliver(message)
                except Exception:  # noqa: BLE001 - one socket's failure never stops the others
                    log.exception("delivering a table update failed")

    def _chain(self, table_id: int, join: bool) -> asyncio.Task:
        previous = self.ops.get(table_id)
        group = table_group(table_id)

        async def run():
            if previous is not None:
                await asyncio.gather(previous[1], return_exceptions=True)
            if join:
                await self.layer.group_add(group, self.channel)
            else:
                await self.layer.group_discard(group, self.channel)

        task = self.loop.create_task(run())
        self.ops[table_id] = (join, task)
        return task

    async def join(self, table_id: int) -> None:
        await self.ensure_started()
        op = self.ops.get(table_id)
        if op is None or not op[0] or _failed(op[1]):
            op = (True, self._chain(table_id, True))
        await asyncio.shield(op[1])

    async def forget(self) -> None:
        """A hub of an event loop that has closed (tests run one each): its channel leaves the
        groups, or a layer shared between loops would keep sending to it."""
        _hubs.pop(self.loop, None)
        for table_id, (joined, _) in list(self.ops.items()):
            if joined and self.channel is not None:
                try:
                    await self.layer.group_discard(table_group(table_id), self.channel)
                except Exception:  # noqa: BLE001,S110 - a per-loop layer never knew it: nothing to leave
                    pass
        self.ops.clear()

    def leave_idle(self) -> list[asyncio.Task]:
        """Leave the groups of the tables with no socket here any more."""
        out = []
        for table_id, (joined, _) in list(self.ops.items()):
            if joined and not _sockets.get(table_id):
                out.append(self._chain(table_id, False))
        return out


def _failed(task: asyncio.Task) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


_hubs: dict[asyncio.AbstractEventLoop, _Hub] = {}


def _hub() -> _Hub:
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = _Hub(loop)
    return hub


async def join(consumer) -> None:
    """Register ``consumer`` at its table here and have the process in the table's group; returns
    once updates of the table reach this process. Raises (and leaves nothing registered) on a
    channel-layer failure."""
    _sockets.setdefault(consumer.table_id, set()).add(consumer)
    try:
        await _hub().join(consumer.table_id)
    except BaseException:
        leave(consumer)
        raise


def leave(consumer) -> None:
    group = _sockets.get(getattr(consumer, "table_id", None))
    if group is not None:
        group.discard(consumer)
        if not group:
            del _sockets[consumer.table_id]


async def sweep() -> int:
    """Leave the groups of tables this process has no socket at any more; returns how many."""
    tasks = _hub().leave_idle()
    if tasks:
        await asyncio.gather(*tasks, return_exceptions=True)
    return len(tasks)


async def publish(sends: list[tuple[str, dict]]) -> None:
    """Hand a service's collected updates to the channel layer, in order (at-most-once, as
    ``outbox.send_group``: a lost one shows as a gap and the socket resyncs)."""
    layer = get_channel_layer()
    for group, message in sends:
        try:
            await layer.group_send(group, message)
        except Exception:  # noqa: BLE001
            log.exception("group_send to %s failed", group)
