"""This server process's table sockets, and how their tables' updates reach them.

A process joins a table's group (``table.<id>``) once, with one channel of its own, however many of
its sockets show that table: each update is received and decoded once by the process, then handed
to each of its sockets at that table, in order (``TableConsumer.deliver``). A channel per socket
would decode every update once per socket and wake a task per socket to forward it.

The group is joined before a socket's first state is read (so no later update can pass it by), and
only for a socket whose access was decided (consumers.py): a refused one costs no subscription. It
is left once the process has no socket at the table left: ``LINGER_SECONDS`` after the last one
went (a page reloading comes straight back), or at the watch's next round (``sweep``), whichever
comes first. Joins and leaves of one table run one after the other, in the order they were asked for.

Updates reach the group in the order they were published, which is not always the order their
transactions committed in: each is published after its commit by whichever database thread (of
whichever process) made it, and a later one can get to Redis first. So each update carries the
span of the table's event numbers it holds (``tseq``: the number before its first event, and its
last one; one row lock orders them), and the hub hands a table's updates over in that order: one
that arrives before an earlier one waits for it (``Sequencer``), at most ``HOLD_SECONDS``; an
update that really was lost (at-most-once delivery, a Redis restart) is then given up on, the
later ones go on, and the watch (watch.py) resyncs the sockets that missed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from channels.layers import get_channel_layer

from apps.tables import stages
from apps.tables.models import table_group

log = logging.getLogger(__name__)

LINGER_SECONDS = 2.0  # a table's group is left this long after its last socket here went
HOLD_SECONDS = 1.5  # how long an update waits for an earlier one of its table still on its way
REPORT_SECONDS = 60.0  # how often the hub logs how many updates arrived out of order

_sockets: dict[int, set[Any]] = {}  # table id -> its consumers in this process


def sockets(table_id: int) -> set[Any]:
    return _sockets.get(table_id, set())


def tables() -> dict[int, set[Any]]:
    """Table id -> this process's consumers there (the registry itself: do not change it)."""
    return _sockets


class Sequencer:
    """One table's updates in the order of their ``tseq`` spans: ``arrive`` returns those that may
    be handed over now, in order; ``overdue`` those whose wait for an earlier one ran out.

    >>> seq = Sequencer(0.0)
    >>> [m["n"] for m in seq.arrive({"tseq": [3, 5], "n": 1}, now=0.0)]
    [1]
    >>> seq.arrive({"tseq": [7, 8], "n": 3}, now=0.1)
    []
    >>> [m["n"] for m in seq.arrive({"tseq": [5, 7], "n": 2}, now=0.2)]
    [2, 3]
    """

    __slots__ = ("last", "held", "since", "hold")

    def __init__(self, hold: float | None = None, last: int | None = None):
        self.hold = HOLD_SECONDS if hold is None else hold
        self.last = last  # the table seq up to which updates were handed over (None: none yet)
        self.held: dict[int, dict] = {}  # first seq - 1 -> an update waiting for an earlier one
        self.since: float | None = None  # when the oldest waiting update arrived

    def arrive(self, message: dict, *, now: float) -> list[dict]:
        span = message.get("tseq")
        if span is None:
            return [message]
        before, last = span
        if self.last is None or before == self.last:
            self.last = last
            return [message, *self._ready()]
        if before > self.last:  # an earlier update is still on its way
            self.held[before] = message
            if self.since is None:
                self.since = now
            return []
        return [message]  # late: its wait was given up on (the sockets skip what they have)

    def _ready(self) -> list[dict]:
        out = []
        while self.last in self.held:
            message = self.held.pop(self.last)
            self.last = message["tseq"][1]
            out.append(message)
        if not self.held:
            self.since = None
        return out

    def due(self) -> float | None:
        """When the oldest waiting update stops waiting (None: none waits)."""
        return None if self.since is None else self.since + self.hold

    def overdue(self, *, now: float) -> list[dict]:
        """The waiting updates, in order, once the oldest has waited ``hold``: the update they
        waited for is taken as lost."""
        if self.since is None or now < self.since + self.hold:
            return []
        out = []
        for before in sorted(self.held):
            message = self.held.pop(before)
            if self.last is None or message["tseq"][1] > self.last:
                self.last = message["tseq"][1]
            out.append(message)
        self.since = None
        return out


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
        self.order: dict[int, Sequencer] = {}  # table id -> its updates' order here
        self.waiting: set[int] = set()  # the tables whose Sequencer holds an update (rarely any)
        self.reordered = self.given_up = 0  # updates that waited for an earlier one; waits run out
        self.lingering: set[int] = set()  # tables whose group is left soon unless a socket comes
        self.reported_at = loop.time()

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
        receiving: asyncio.Task | None = None
        try:
            while True:
                if receiving is None:
                    receiving = self.loop.create_task(self.layer.receive(self.channel))
                due = [d for t in self.waiting if (q := self.order.get(t)) is not None and (d := q.due()) is not None]
                if due:  # an update waits for an earlier one: wake when its wait runs out
                    await asyncio.wait({receiving}, timeout=max(0.0, min(due) - self.loop.time()))
                else:  # (the common case: no timer, no waiter set, per update)
                    with contextlib.suppress(Exception):  # (logged below, from the task)
                        await receiving
                if receiving.done():
                    task, receiving = receiving, None
                    try:
                        message = task.result()
                    except Exception:  # noqa: BLE001 - a channel-layer hiccup (Redis restarting): go on
                        log.exception("table hub receive failed")
                        await asyncio.sleep(0.5)
                        continue
                    await self._arrive(message)
                await self._overdue()
        finally:
            if receiving is not None:
                receiving.cancel()

    async def _arrive(self, message: dict) -> None:
        stages.arrived(message)
        table_id = message.get("table")
        seq = self.order.get(table_id)
        if seq is None:
            seq = self.order[table_id] = Sequencer()
        ready = seq.arrive(message, now=self.loop.time())
        if not ready:
            self.reordered += 1
        if seq.since is None:
            self.waiting.discard(table_id)
        else:
            self.waiting.add(table_id)
        for m in ready:
            await _deliver(m)

    async def _overdue(self) -> None:
        now = self.loop.time()
        for table_id in list(self.waiting):
            seq = self.order.get(table_id)  # (None: the table was left during a delivery)
            late = [] if seq is None else seq.overdue(now=now)
            if seq is None or seq.since is None:
                self.waiting.discard(table_id)
            if late:
                self.given_up += 1
                for m in late:
                    await _deliver(m)
        if now - self.reported_at >= REPORT_SECONDS:
            if self.reordered or self.given_up:
                log.info("table hub: %d updates arrived before an earlier one of their table and waited "
                         "for it; %d waits ran out (an update lost)", self.reordered, self.given_up)
            if _sockets:
                log.info("table stages (ms, since start): %s", stages.summary())
            self.reordered = self.given_up = 0
            self.reported_at = now

    def seen_state(self, table_id: int, tseq: int) -> None:
        """A socket here was sent the table's state as of event ``tseq``: if no update of the table
        came yet, the next one to hand over is the one after it."""
        if table_id not in self.order:
            self.order[table_id] = Sequencer(last=tseq)

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
        return [task for table_id in list(self.ops) if (task := self._leave_if_idle(table_id)) is not None]

    def _leave_if_idle(self, table_id: int) -> asyncio.Task | None:
        joined = self.ops.get(table_id, (False,))[0]
        if not joined or _sockets.get(table_id):
            return None
        self.order.pop(table_id, None)
        self.waiting.discard(table_id)
        return self._chain(table_id, False)

    def leave_later(self, table_id: int) -> None:
        """The last socket of the table here went: leave its group in ``LINGER_SECONDS`` if none
        came back meanwhile (the watch's round may have done it already)."""
        if table_id in self.lingering or not self.ops.get(table_id, (False,))[0]:
            return

        def fire() -> None:
            self.lingering.discard(table_id)
            task = self._leave_if_idle(table_id)
            if task is not None:  # (its failure is the next join's business: see ``join``)
                task.add_done_callback(lambda t: t.cancelled() or t.exception())

        self.lingering.add(table_id)
        self.loop.call_later(LINGER_SECONDS, fire)


async def _deliver(message: dict) -> None:
    """Hand one update to this process's sockets at its table, in order."""
    for consumer in list(_sockets.get(message.get("table"), ())):
        try:
            await consumer.deliver(message)
        except Exception:  # noqa: BLE001 - one socket's failure never stops the others
            log.exception("delivering a table update failed")


def seen_state(table_id: int, tseq: int | None) -> None:
    """A socket of this loop was sent the state of ``table_id`` as of its event ``tseq``."""
    if tseq is not None:
        _hub().seen_state(table_id, tseq)


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
    """Unregister ``consumer``; the last one of its table here has the process leave the group soon."""
    group = _sockets.get(getattr(consumer, "table_id", None))
    if group is not None:
        group.discard(consumer)
        if not group:
            del _sockets[consumer.table_id]
            try:
                hub = _hubs.get(asyncio.get_running_loop())
            except RuntimeError:  # (no loop: nothing was joined from here)
                hub = None
            if hub is not None:
                hub.leave_later(consumer.table_id)


def user_sockets(table_id: int, user_key: str) -> int:
    """How many open sockets of the user (``str(pk)``) show ``table_id`` in this process."""
    return sum(1 for c in list(_sockets.get(table_id, ()))
               if getattr(c, "user_key", None) == user_key and not getattr(c, "closed", False))


async def sweep() -> int:
    """Leave the groups of tables this process has no socket at any more; returns how many."""
    tasks = _hub().leave_idle()
    if tasks:
        await asyncio.gather(*tasks, return_exceptions=True)
    return len(tasks)
