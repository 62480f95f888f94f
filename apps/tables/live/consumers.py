"""The table socket: authenticate, join the table here (hub.py), dispatch to services, forward updates.

Client -> server: ``act`` (with the last ``seq`` seen), ``resync``, ``ready``, ``piao``, ``dissolve``,
``tuoguan``, ``phrase`` (a 快捷语: verbs/phrases.py), ``ping`` (the page's heartbeat). Server -> client:
``state`` (the whole view), ``update`` (events + view), ``phrase`` (a seat's 快捷语, outside the
numbering), ``error``, ``ack``, ``pong``; every message carries ``seq``, the viewer's own update number (``outbox.view_seq``). A
group message holds one redacted copy per viewer that saw something; the process's hub hands it to
each of its sockets at the table (``deliver``), which forwards only its own viewer's copy.

Access is decided before the socket costs anything (issue #41): an anonymous user costs no query,
anyone else one SELECT (``selectors.access_of``), and only an allowed socket joins the table's
group and takes its row lock (``services.socket_open``, which decides again under the lock). A
refused socket is accepted, then closed with a code the page tells apart (a close before the
accept reaches the browser as 1006):

====  =====================================================================  ===============
code  meaning                                                                the page
====  =====================================================================  ===============
4401  not signed in                                                          stops
4403  not allowed at this table                                              stops
4404  no such table                                                          stops
4429  too many sockets of this user at this table (``MAX_SOCKETS_PER_USER``)  stops
4503  the database is unavailable or full right now                          retries, backoff
1013  the channel layer (Redis) is unreachable                                retries, backoff
====  =====================================================================  ===============

Every client message is rate-limited per socket and type (limits.py): over the limit it is
answered ``{"type": "error", "code": "rate_limited", "message", "retry_after"}`` and nothing else
happens. A message may carry ``"id"`` (a positive integer, unique per page load): it is answered
``{"type": "ack", "id", "seq"}`` once handled, after the updates it caused were sent on this
socket (``_ack``); a refusal's ``error`` carries the ``id``. An ``act`` is applied at most once
whatever the resends (its ``seq`` goes stale once applied: ``stale_seq``); the resend of one applied
here (same id, seq and action: the page resent it after a reconnect) is answered ``{"type": "ack",
"id", "seq", "dup": true}`` instead (limits.py, ``Acked``: this process's memory; nginx sends every
socket of a table to one process, and where that fails the answer is ``stale_seq``).

A socket has no channel of its own (``channel_layer_alias = None``): nothing is ever sent to one
socket through the channel layer, and a channel per socket costs a subscription and a task.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, close_old_connections, connections

from apps.tables import stages
from apps.tables.live import hub, limits, watch
from apps.tables.read.selectors import access_of
from apps.tables.transaction.context import TableError
from apps.tables.transaction.outbox import deferred_sends, publish, viewer_key
from apps.tables.transaction.snapshot import viewer_snapshot
from apps.tables.verbs import dissolve, phrases, play, services

log = logging.getLogger(__name__)

try:  # what Daphne (autobahn) raises for a send on a socket whose close it has begun or finished
    from autobahn.exception import Disconnected as _Disconnected
except ImportError:  # pragma: no cover - another server
    class _Disconnected(Exception):  # noqa: N818
        pass

# A send to a socket that has gone: Daphne's Disconnected, or the OSError of an ASGI server that
# follows the spec's advice (uvicorn's ClientDisconnected).
CLOSED_ERRORS = (_Disconnected, OSError)

# The sockets' database calls run in this pool, on every backend: the loop's default executor also
# serves asyncio internals (getaddrinfo, ...), and Channels' single shared sync thread would queue
# every table behind one another. settings.TABLES_DB_THREADS is 1 on SQLite (one writer).
DB_EXECUTOR = ThreadPoolExecutor(max_workers=settings.TABLES_DB_THREADS, thread_name_prefix="tables-db")
# The watch's rounds (catch-up check, presence touch: watch.py) have their own thread where the
# database takes several writers: a presence touch held one of the two move threads for tens of
# milliseconds every 10 s, and the moves queued behind it were the slowest 1% (README #29).
WATCH_EXECUTOR = DB_EXECUTOR if settings.TABLES_DB_THREADS == 1 else ThreadPoolExecutor(
    max_workers=1, thread_name_prefix="tables-watch")


# A client message is a few hundred bytes; anything far larger is refused before it is parsed.
MAX_MESSAGE_CHARS = 8192
RESYNC_BURST = limits.LIMITS["resync"][0]  # resyncs a socket may ask at once ...
RESYNC_EVERY = 1 / limits.LIMITS["resync"][1]  # ... and then one per this many seconds
MAX_SOCKETS_PER_USER = limits.MAX_SOCKETS_PER_USER
MAX_ID = 2**53 - 1  # a message's id: a positive integer a browser counts exactly
# How long an ack waits for the updates its message caused to come back through the channel layer
# (past the hub's wait for an update still on its way); then the socket is sent a fresh state first.
ACK_WAIT_SECONDS = 2.0

CLOSE_SIGN_IN = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429
CLOSE_DB_BUSY = 4503
CLOSE_TRY_AGAIN = 1013  # the channel layer (Redis) cannot be reached: the page reconnects later
# The database cannot be reached or takes no more connections (a restart, max_connections).
DB_DOWN = (OperationalError, InterfaceError)


def db_call(func, *, recv: float | None = None, executor: ThreadPoolExecutor = DB_EXECUTOR):
    """``func`` run in a ``DB_EXECUTOR`` thread (or ``executor``'s) with its own DB connection;
    ``recv``: when the client's frame that asked for it came (its updates carry their stages:
    stages.py).

    A plain executor call: asgiref's SyncToAsync machinery (context copies, thread-sensitivity
    bookkeeping) costs more than these calls need, and DB connections are per thread anyway.
    """
    async def call(**kwargs):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, functools.partial(_in_db_thread, func, kwargs, recv))

    return call


def watch_call(func):
    """``func`` run in the watch's database thread (``WATCH_EXECUTOR``)."""
    return db_call(func, executor=WATCH_EXECUTOR)


# A connection idle this long is health-checked (a round trip) before its next call: a PostgreSQL
# restart meanwhile would have broken it. One in steady use is not: a call that fails on it marks
# the connection (``errors_occurred``), and it is checked and dropped right after that call.
IDLE_CHECK_SECONDS = 1.0
_idle = threading.local()


def _in_db_thread(func, kwargs, recv=None):
    """What ``database_sync_to_async`` does around a call (drop unusable or too old connections),
    without a health-check round trip before every call of a busy connection."""
    stages.begin(recv)
    now = time.monotonic()
    if now - getattr(_idle, "used_at", 0.0) > IDLE_CHECK_SECONDS:
        close_old_connections()  # (marks the connection for a health check at its next query)
    try:
        return func(**kwargs)
    finally:
        stages.end()
        conn = connections[DEFAULT_DB_ALIAS]
        if conn.connection is not None and (conn.errors_occurred or (
                conn.close_at is not None and time.monotonic() >= conn.close_at)
                or conn.get_autocommit() != conn.settings_dict["AUTOCOMMIT"]):
            close_old_connections()
        _idle.used_at = time.monotonic()


def collecting(verb):
    """``verb`` with its group sends collected: returns ``(sends, result, exception or None)``.

    An error may come after committed work (a move, then a failing bot step): what was committed
    is still announced before the error is raised again.
    """
    def run(**kwargs):
        with deferred_sends() as box:
            try:
                result = verb(**kwargs)
            except Exception as exc:  # noqa: BLE001 - re-raised by the caller after publishing
                return box, None, exc
            return box, result, None

    return run


class TableConsumer(AsyncJsonWebsocketConsumer):
    channel_layer_alias = None  # updates come through the hub; sends go through outbox.publish

    async def __call__(self, scope, receive, send) -> None:
        """The consumer's whole life; it leaves the hub (and so the watch) however it ends. A
        consumer that ended without ``disconnect`` and stayed registered would keep its seat
        "seen" and put it back online after the socket closed.

        Every message to the client goes through ``_send_or_drop``: once the socket is closed (its
        close sent or received, or the server refusing a send because it is closing) nothing more
        is sent to it."""
        self.closed = False

        async def send_or_drop(message: dict) -> None:
            await self._send_or_drop(send, message)

        try:
            await super().__call__(scope, receive, send_or_drop)
        finally:
            self.closed = True
            hub.leave(self)

    async def _send_or_drop(self, send, message: dict) -> None:
        """``send(message)`` unless the socket is closed. The server may have begun closing it
        before its disconnect reached this consumer (updates and the watch send at any time): that
        send is dropped, quietly, and so is every later one."""
        if self.closed:
            return
        try:
            await send(message)
        except CLOSED_ERRORS:
            self.closed = True
            return
        if message.get("type") == "websocket.close":
            self.closed = True

    async def websocket_disconnect(self, message: dict) -> None:
        self.closed = True
        await super().websocket_disconnect(message)

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch minus its per-message ``aclose_old_connections`` hop.

        That hop runs ``close_old_connections`` on the one shared sync thread for every message
        (each table update, each frame), so under load every socket queues behind it. Here every
        database access already goes through ``db_call``, which closes stale connections in its own
        thread before and after the call.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        """Access first, in at most one query and before anything is subscribed or locked; then
        one database call: the viewer's access again under the table's lock, his seat online, his
        first state (``services.socket_open``). The socket joins the table here before that call,
        so no update made after that state can pass it by; until that state is sent, updates wait
        (``_backlog``), and one it already covers is skipped (``table_update``)."""
        self.user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.seq = 0  # the last update number this socket's viewer was sent (outbox.view_seq)
        self.view_key = None
        self.behind_since = None
        # Updates handed over while a delivery needs the database (or before the first state):
        # they wait here, in order, and ``_drain`` forwards them; None: deliver at once.
        self._backlog: list | None = []
        self._holds = 0
        self._limits = limits.socket_buckets()
        self._progress: asyncio.Event | None = None  # set when this socket's seq moves (an ack waits)
        if self.user is None or not self.user.is_authenticated:
            await self._refuse(CLOSE_SIGN_IN)
            return
        # The hub's updates name their viewers by ``str(user pk)``: worked out once, not through
        # the scope's lazy user on every delivery.
        self.user_key = str(self.user.pk)
        try:
            access = await db_call(access_of)(user=self.user, table_id=self.table_id)
        except DB_DOWN as exc:
            await self._database_down(exc)
            return
        if access is False or access is None:
            await self._refuse(CLOSE_NOT_FOUND if access is False else CLOSE_FORBIDDEN)
            return
        # (counted and registered with no await in between: ``hub.join`` registers at once)
        if hub.user_sockets(self.table_id, self.user_key) >= MAX_SOCKETS_PER_USER:
            await self._refuse(CLOSE_TOO_MANY)
            return
        try:
            await hub.join(self)
        except Exception as exc:  # noqa: BLE001 - the channel layer is down (a Redis restart)
            # Without the layer this socket would get no update: refuse it cleanly, the page
            # reconnects with its backoff once Redis is back.
            log.warning("table %s: socket refused, the channel layer is unavailable (%s: %s)",
                        self.table_id, type(exc).__name__, exc)
            await self._refuse(CLOSE_TRY_AGAIN)
            return
        sends, snap, error = await db_call(collecting(services.socket_open))(user=self.user, table_id=self.table_id)
        if error is not None or snap is None:
            hub.leave(self)
            await publish(sends)
            if isinstance(error, TableError) and error.code == "no_table":
                await self._refuse(CLOSE_NOT_FOUND)
            elif isinstance(error, DB_DOWN):
                await self._database_down(error)
            elif error is not None:
                raise error
            else:  # (allowed a moment ago: the table started meanwhile, or he was removed)
                await self._refuse(CLOSE_FORBIDDEN)
            return
        self.joined = True
        await self.accept()
        watch.start(watch_call)
        await self._send_snapshot(snap)
        await self._drain()
        await publish(sends)

    async def accept(self, subprotocol=None, headers=None) -> None:
        self.accepted = True
        await super().accept(subprotocol, headers)

    async def _refuse(self, code: int) -> None:
        """Close with ``code``, accepting first if need be: a close before the accept reaches
        the page as 1006 (Daphne answers the handshake with HTTP 403)."""
        if not getattr(self, "accepted", False):
            await self.accept()
        await self.close(code=code)

    async def _database_down(self, exc: BaseException) -> None:
        log.warning("table %s: socket closed, the database is unavailable (%s: %s)",
                    self.table_id, type(exc).__name__, str(exc).strip().splitlines()[0] if str(exc).strip() else "")
        await self._refuse(CLOSE_DB_BUSY)

    async def disconnect(self, code: int) -> None:
        """His seat goes offline with his last socket at the table in this process (two tabs:
        closing one leaves it online). Sockets of his in another process (nginx sends a table's
        sockets to one process; after a Daphne died, to the next one) put it back online at their
        next presence touch (watch.py), within ``TABLES_PRESENCE_SECONDS``."""
        hub.leave(self)
        if not getattr(self, "joined", False):
            return
        self.joined = False
        user_id = self.user.pk
        if watch.has_socket(self.table_id, user_id):
            return
        try:
            # (asked again under the lock: another tab may have connected meanwhile)
            await self._call(services.seat_set_online, online=False,
                             only_if=functools.partial(_no_socket, self.table_id, user_id))
        except DB_DOWN as exc:  # the presence sweep puts it offline later
            log.warning("table %s: seat not put offline, the database is unavailable (%s)",
                        self.table_id, type(exc).__name__)
        except Exception:  # noqa: BLE001 - the socket is gone either way
            log.exception("marking seat offline failed")

    # ---- client -> server ---------------------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs) -> None:
        self.recv_at = time.time()  # (the first stamp of the action's stages)
        raw = text_data if text_data is not None else (bytes_data or b"")
        if len(raw) > MAX_MESSAGE_CHARS:
            await self._refused_frame("too_large", "The message is too large.")
            return
        try:
            content = json.loads(raw if isinstance(raw, str) else raw.decode())
        except (ValueError, UnicodeDecodeError, RecursionError):  # "["*100000 nests too deep to parse
            await self._refused_frame("bad_json", "The message is not valid JSON.")
            return
        if not isinstance(content, dict):
            await self._refused_frame("bad_message", "A message is a JSON object with a type.")
            return
        await self.receive_json(content)

    async def receive_json(self, content: dict, **kwargs) -> None:
        kind = content.get("type")
        recv = self.__dict__.pop("recv_at", None)  # (when the frame came: the action's first stage)
        msg_id = content.get("id")
        if msg_id is not None and (isinstance(msg_id, bool) or not isinstance(msg_id, int)
                                   or not 0 < msg_id <= MAX_ID):
            await self._refused_frame("bad_message", "A message's id is a positive integer.")
            return
        empty = self._limits.take(kind if isinstance(kind, str) else "other")
        if empty is not None:
            await self._error("rate_limited", limits.RATE_LIMITED_MESSAGE, msg_id=msg_id,
                              retry_after=round(empty.wait(), 2))
            return
        move = (content.get("seq"), content.get("action")) if kind == "act" and msg_id is not None else None
        if move is not None and limits.acked.holds((self.table_id, self.user.pk, msg_id), move):
            await self._send_ack(msg_id, dup=True)  # a resend of a move applied already (by any socket here)
            return
        sends: list = []
        try:
            if kind == "ping":  # the page's heartbeat: no database, no lock, just a sign of life
                await self.send_json({"type": "pong", "seq": self.seq, **({"id": msg_id} if msg_id is not None else {})})
                return
            if kind == "resync":
                await self._send_state()
            elif kind == "act":
                sends = await self._call(play.hand_act, recv=recv, seq=content.get("seq"),
                                         action=content.get("action"), seat=content.get("seat"))
            elif kind == "ready":
                sends = await self._call(services.seat_ready, recv=recv)
            elif kind == "piao":
                sends = await self._call(services.piao_choose, recv=recv, value=content.get("value"))
            elif kind == "dissolve":
                sends = await self._call(dissolve.dissolve_vote, recv=recv, vote=content.get("vote"))
            elif kind == "tuoguan":
                sends = await self._call(services.seat_set_tuoguan, recv=recv, on=content.get("on"),
                                         seat=content.get("seat"))
            elif kind == "phrase":  # no lock, not game state: its own verb and its own message
                # In the watch's thread, where the database takes several writers: a phrase never
                # queues in front of a move in the move threads (SQLite has one thread for all).
                sends = await db_call(phrases.phrase_send, executor=WATCH_EXECUTOR)(
                    user=self.user, table_id=self.table_id, phrase=content.get("phrase"), limit=limits.phrases.take)
                await publish(sends)
            else:
                await self._error("unknown_type", f"Unknown message type {kind!r}.", msg_id=msg_id)
                return
        except TableError as exc:
            await self._error(exc.code, exc.message, msg_id=msg_id, **getattr(exc, "extra", {}))
            return
        except DB_DOWN as exc:  # the page reconnects with its backoff and resends what had no ack
            await self._database_down(exc)
            return
        if msg_id is not None:
            if move is not None:
                limits.acked.add((self.table_id, self.user.pk, msg_id), move)
            await self._ack(msg_id, sends)

    # ---- server -> client ---------------------------------------------------------------------
    async def deliver(self, message: dict) -> None:
        """The hub hands over a table update (in order): forwarded at once, unless earlier ones
        wait or this one needs the database (a spectator's access, a viewer who took or left a
        seat): then it waits its turn and a task forwards the waiting ones (``_drain``). A 快捷语 is
        no update: forwarded at once, to every viewer (``table_phrase``)."""
        if message.get("type") == "table.phrase":
            await self.table_phrase(message)
            return
        if self._backlog is not None:
            self._backlog.append(message)
            return
        key = viewer_key(message["users"].get(self.user_key))
        if key in message["views"] and (key == "spectator" or key != self.view_key):
            self._backlog = [message]
            asyncio.get_running_loop().create_task(self._drain())
            return
        await self.table_update(message)

    async def _drain(self) -> None:
        """Forward the updates that waited, in order, then deliver at once again."""
        try:
            while self._backlog and self._holds == 0:
                await self.table_update(self._backlog.pop(0))
        except Exception:  # noqa: BLE001 - the socket went away meanwhile; the watch resyncs others
            log.exception("forwarding waiting table updates failed")
        finally:
            if self._holds == 0:
                self._backlog = None

    async def table_update(self, message: dict) -> None:
        key = viewer_key(message["users"].get(self.user_key))
        view = message["views"].get(key)
        if view is None:  # nothing this viewer may see happened
            return
        if key == "spectator" and not await self._may_watch():
            return
        if key != self.view_key:  # he took or left a seat: another viewer's numbering starts here
            await self._send_state(arrived=key != "spectator")
            return
        if message["seqs"][key] <= self.seq:  # the state he was sent already holds it
            return
        self.seq = message["seqs"][key]
        view = stages.forwarding(message, view)
        sent = time.perf_counter()
        await self.send(text_data=view)  # the viewer's ``update``, encoded once by the outbox
        stages.record("send", (time.perf_counter() - sent) * 1000)
        if self._progress is not None:
            self._progress.set()

    async def table_phrase(self, message: dict) -> None:
        """A seat's 快捷语 (verbs/phrases.py): the same for every viewer, outside the update numbering."""
        await self.send_json({"type": "phrase", "seat": message["seat"], "phrase": message["phrase"], "seq": self.seq})

    async def _send_state(self, *, arrived: bool = False) -> None:
        """The whole view, with the viewer's access decided in the same locked read as the state.
        Updates wait meanwhile (one sent first would be taken back by an older state).

        ``arrived``: this socket's user has just taken a seat (a join made over HTTP while the
        page watched): his seat is put online in the same transaction as the state is read
        (``services.socket_open``, as on connect), so nobody sees him offline until the
        presence touch, seconds later, would have."""
        self._holds += 1
        if self._backlog is None:
            self._backlog = []
        sends = []
        try:
            if arrived:
                sends, snap, error = await db_call(collecting(services.socket_open))(
                    user=self.user, table_id=self.table_id)
                if error is not None:
                    await publish(sends)
                    raise error
            else:
                snap = await db_call(viewer_snapshot)(user=self.user, table_id=self.table_id)
            if snap is None:
                await self.close(code=CLOSE_FORBIDDEN)
                return
            await self._send_snapshot(snap)
        finally:
            self._holds -= 1
        await self._drain()
        await publish(sends)

    async def _send_snapshot(self, snap: dict) -> None:
        self.seq, self.view_key = snap["seq"], viewer_key(snap["viewer"])
        hub.seen_state(self.table_id, snap.get("tseq"))
        await self.send_json({"type": "state", "seq": snap["seq"], "state": snap["state"]})
        if self._progress is not None:
            self._progress.set()

    async def push_state(self) -> None:
        """A fresh ``state`` the client did not ask for: the watch saw this socket miss an update."""
        await self._send_state()

    async def _error(self, code: str, message: str, *, msg_id: int | None = None, **extra: Any) -> None:
        reply = {"type": "error", "code": code, "message": message, "seq": self.seq, **extra}
        if msg_id is not None:
            reply["id"] = msg_id
        await self.send_json(reply)

    async def _refused_frame(self, code: str, message: str) -> None:
        """A frame that is not a message (too large, not JSON, a bad id): counted as ``other``."""
        empty = self._limits.take("other")
        if empty is not None:
            await self._error("rate_limited", limits.RATE_LIMITED_MESSAGE, retry_after=round(empty.wait(), 2))
            return
        await self._error(code, message)

    async def _ack(self, msg_id: int, sends: list) -> None:
        """Acknowledge message ``msg_id`` once every update it caused for this viewer was sent on
        this socket: the update comes back through the channel layer and the hub (``deliver``),
        and the ack waits for this socket's seq to reach its number, so the page always reads the
        update before the ack (in the same order on the wire). An update that does not come
        within ``ACK_WAIT_SECONDS`` (lost by the layer, or held by the hub for an earlier one) is
        replaced by a fresh ``state``, sent before the ack. The ack's ``seq`` is the viewer's
        number after all that."""
        target = None
        for _, message in sends:
            if message.get("type") != "table.update":
                continue
            key = viewer_key(message["users"].get(self.user_key))
            if key in message.get("seqs", {}):
                target = (key, message["seqs"][key])
        if target is not None and not await self._caught_up(*target):
            await self._send_state()
        await self._send_ack(msg_id)

    async def _caught_up(self, key: str, seq: int) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ACK_WAIT_SECONDS
        while not (self.view_key == key and self.seq >= seq):
            remaining = deadline - loop.time()
            if remaining <= 0 or self.closed:
                return False
            self._progress = asyncio.Event()
            try:
                await asyncio.wait_for(self._progress.wait(), remaining)
            except TimeoutError:
                pass
            finally:
                self._progress = None
        return True

    async def _send_ack(self, msg_id: int, *, dup: bool = False) -> None:
        ack = {"type": "ack", "id": msg_id, "seq": self.seq}
        if dup:
            ack["dup"] = True
        await self.send_json(ack)

    # ---- helpers ------------------------------------------------------------------------------
    async def _call(self, verb, *, recv: float | None = None, **kwargs: Any) -> list:
        """Run a service verb in a DB thread, then publish the updates it made (in order); returns
        them. ``recv``: when the client's frame asking for it came (its update's stages: stages.py)."""
        sends, _, error = await db_call(collecting(verb), recv=recv)(
            user=self.user, table_id=self.table_id, **kwargs)
        await publish(sends, back=time.time())
        if error is not None:
            raise error
        return sends

    async def _may_watch(self) -> bool:
        """May this spectator still watch (one SELECT: ``selectors.access_of``)?"""
        access = await db_call(access_of)(user=self.user, table_id=self.table_id)
        return bool(access) and access.seat is None


def _no_socket(table_id: int, user_id: int) -> bool:
    return not watch.has_socket(table_id, user_id)
