"""A socket in trouble: no send once it is closed, and no exception when Redis cannot be reached.

- A server that has begun closing a socket refuses sends on it (Daphne: autobahn's
  ``Disconnected``, "Attempt to send on a closed protocol") before the consumer hears of the
  disconnect: updates handed over meanwhile are dropped quietly, and nothing more is sent.
- While Redis restarts (here: a channel layer on a port nobody listens on), a connecting socket is
  refused with a clean close, not an exception out of the application (which the session
  middleware turned into ``'SessionStore' object has no attribute '_session_cache'``).
"""

from __future__ import annotations

import logging
import socket

import pytest
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.test import override_settings

from apps.tables.live import consumers, hub
from config.asgi import application
from tests.tables.sockets import connect, drain, send, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


class ClosingServer:
    """The application behind a server that refuses sends once ``closing`` is set, as Daphne does
    for a socket whose close has begun; counts the sends it refused."""

    def __init__(self, app):
        self.app, self.closing, self.refused = app, False, 0

    async def __call__(self, scope, receive, send):
        async def guarded(message):
            if self.closing and message["type"] == "websocket.send":
                self.refused += 1
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        return await self.app(scope, receive, guarded)


async def test_updates_to_a_socket_the_server_is_closing_are_dropped_quietly(full_table, players, caplog):
    server = ClosingServer(application)
    comm = WebsocketCommunicator(server, f"/ws/tables/{full_table.pk}/", headers=[(b"origin", b"http://testserver")])
    comm.scope["user"] = players[0]
    assert (await comm.connect())[0]
    others = [await connect(u, full_table.pk) for u in players[1:]]
    await drain(comm)
    server.closing = True
    caplog.set_level(logging.INFO)
    await send(others[0], {"type": "ready"})  # an update for every viewer
    await wait_for(others[1], lambda m: m["type"] == "update")
    await send(others[1], {"type": "ready"})  # and another one
    await wait_for(others[0], lambda m: m["type"] == "update" and any(
        e["type"] == "seat.ready" and e["seat"] == 2 for e in m["events"]))
    assert server.refused == 1  # the first send found the socket closing; nothing was tried after it
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    mine = [c for c in hub.sockets(full_table.pk) if c.user.pk == players[0].pk]
    assert mine and mine[0].closed
    await comm.disconnect()
    for s in others:
        await s.disconnect()


def _session_cookie(user) -> bytes:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"sessionid={session.session_key}".encode()


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nobody listens there


async def test_a_connect_while_redis_is_down_is_refused_with_a_clean_close(full_table, players, caplog):
    cookie = await sync_to_async(_session_cookie)(players[0])
    down = {"default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                        "CONFIG": {"hosts": [{"address": f"redis://127.0.0.1:{_unused_port()}/0"}]}}}
    caplog.set_level(logging.WARNING)
    with override_settings(CHANNEL_LAYERS=down):
        channel_layers.backends.clear()
        try:
            comm = WebsocketCommunicator(application, f"/ws/tables/{full_table.pk}/",
                                         headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)])
            connected, _ = await comm.connect(timeout=10)  # (an exception out of the app raises here)
            # accepted, then closed: a close before the accept reaches a browser as 1006
            assert connected
            assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": consumers.CLOSE_TRY_AGAIN}
            await comm.wait(timeout=5)
        finally:
            for loop_hub in list(hub._hubs.values()):
                await loop_hub.forget()
            channel_layers.backends.clear()
    assert hub.sockets(full_table.pk) == set()
    assert any("channel layer is unavailable" in r.getMessage() for r in caplog.records)
