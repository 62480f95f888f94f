"""One group membership per process and table (apps/tables/live/hub.py): every socket of the table here
gets each update, once, in order; a state read while updates arrive is never overtaken by them."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import InMemoryChannelLayer, get_channel_layer

from apps.tables.live import consumers, hub, watch
from apps.tables.models import table_group
from tests.tables.sockets import connect, drain, send, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_one_membership_per_table_for_all_its_sockets_and_left_when_the_last_goes(full_table, players,
                                                                                        monkeypatch):
    monkeypatch.setattr(watch, "interval", lambda: 0.05)
    socks = [await connect(u, full_table.pk) for u in players]
    layer = get_channel_layer()
    group = table_group(full_table.pk)
    hub_channel = hub._hub().channel
    if isinstance(layer, InMemoryChannelLayer):  # (its groups can be read)
        assert set(layer.groups[group]) == {hub_channel}
    assert len(hub.sockets(full_table.pk)) == 3
    for s in socks:
        await drain(s)

    await send(socks[0], {"type": "ready"})
    for s in socks:  # every socket of the table gets the update, once
        msg = await wait_for(s, lambda m: m["type"] == "update")
        assert any(e["type"] == "seat.ready" for e in msg["events"])
        assert not [m for m in await drain(s) if m["type"] == "update" and m["seq"] == msg["seq"]]

    for s in socks:
        await s.disconnect()
    assert full_table.pk not in hub.tables()
    for _ in range(100):  # the watch's next round leaves the group
        if not hub._hub().ops.get(full_table.pk, (True,))[0]:
            break
        await asyncio.sleep(0.02)
    assert hub._hub().ops[full_table.pk][0] is False
    if isinstance(layer, InMemoryChannelLayer):
        assert hub_channel not in layer.groups.get(group, {})


async def test_updates_wait_while_a_state_is_read_and_come_after_it(full_table, players, monkeypatch):
    """A resync's state is read in a database thread; an update arriving meanwhile must not be sent
    before that (older) state, or the client would be taken back."""
    sock = await connect(players[0], full_table.pk)
    others = [await connect(u, full_table.pk) for u in players[1:]]
    for s in others:
        await drain(s)
    await drain(sock)

    gate = asyncio.Event()
    real_call, real_snapshot = consumers.db_call, consumers.viewer_snapshot

    def held_call(func, **opts):
        if func is not real_snapshot:
            return real_call(func, **opts)

        async def call(**kwargs):
            snap = await real_call(func)(**kwargs)
            await gate.wait()  # the state is read; an update arrives before it is sent
            return snap

        return call

    monkeypatch.setattr(consumers, "db_call", held_call)
    await send(sock, {"type": "resync"})
    await asyncio.sleep(0.2)
    await send(others[0], {"type": "ready"})  # an update for every viewer, newer than that state
    await wait_for(others[1], lambda m: m["type"] == "update")  # (it has been delivered here)
    assert await sock.receive_nothing(timeout=0.2)  # it waits for the state
    gate.set()
    state = await sock.receive_json_from(timeout=5)
    update = await sock.receive_json_from(timeout=5)
    assert state["type"] == "state" and update["type"] == "update"
    assert update["seq"] == state["seq"] + 1
    assert any(e["type"] == "seat.ready" for e in update["events"])
    for s in [sock, *others]:
        await s.disconnect()


async def test_a_failed_group_join_refuses_that_socket_and_the_next_one_joins(full_table, players, monkeypatch):
    """A channel-layer hiccup (Redis restarting) while a socket joins: that socket is closed and not
    left registered, and the next connect joins the group again."""
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    layer = get_channel_layer()
    real_add = layer.group_add
    calls = []

    async def flaky_add(group, channel):
        calls.append(group)
        if len(calls) == 1:
            raise ConnectionError("redis restarting")
        await real_add(group, channel)

    monkeypatch.setattr(layer, "group_add", flaky_add)
    comm = WebsocketCommunicator(application, f"/ws/tables/{full_table.pk}/", headers=[(b"origin", b"http://testserver")])
    comm.scope["user"] = players[0]
    connected, _ = await comm.connect(timeout=5)
    assert connected  # accepted, then closed with the code the page retries on (a close first is 1006)
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": consumers.CLOSE_TRY_AGAIN}
    assert full_table.pk not in hub.tables()

    sock = await connect(players[0], full_table.pk)  # joins for real this time
    assert len(calls) == 2
    await send(sock, {"type": "ready"})
    msg = await wait_for(sock, lambda m: m["type"] == "update")
    assert any(e["type"] == "seat.ready" for e in msg["events"])
    await sock.disconnect()
