"""The table socket on the real ASGI application (config.asgi) with the in-memory channel layer."""

from __future__ import annotations

import random

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from apps.engine.play.observer import build_view
from apps.tables.models import Table, TableEvent
from apps.tables.transaction.outbox import view_seq
from config.asgi import application
from tests.tables.helpers import current
from tests.tables.sockets import (
    MEMORY,
    connect,
    drain,
    in_hand,
    latest_state,
    play_by_clients,
    send,
    start_hand,
    wait_for,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

@MEMORY
async def test_whole_hand_over_three_sockets(full_table, players):
    socks = [await connect(u, full_table.pk) for u in players]
    for s in socks:
        await send(s, {"type": "ready"})
    for s in socks:
        s.first = await wait_for(s, in_hand)
    last = await play_by_clients(socks, random.Random(5))
    _, hand, _ = await sync_to_async(current)(full_table.pk)
    assert hand.status == "finished"
    for i, m in enumerate(last):
        assert m["state"]["hand"]["seed"] == hand.seed
        assert m["state"]["hand"]["totals"] == hand.totals
        assert m["state"]["me"] == i
    for s in socks:
        await s.disconnect()


@MEMORY
async def test_refusals_change_nothing(full_table, players, make_user):
    socks = [await connect(u, full_table.pk) for u in players]
    await start_hand(socks)
    table, hand, eh = await sync_to_async(current)(full_table.pk)
    turn = eh.to_act()[0]
    other = (turn + 1) % 3
    before = await sync_to_async(lambda: (Table.objects.get(pk=full_table.pk).seq,
                                          TableEvent.objects.filter(table=full_table).count()))()
    legal = [a.to_wire() for a in eh.legal_actions(turn)]
    cases = [
        (socks[turn], "not json", "bad_json"),
        (socks[turn], {"type": "fly"}, "unknown_type"),
        (socks[turn], {"type": "act", "seq": view_seq(table, turn) - 1, "action": legal[0]}, "stale_seq"),
        (socks[other], {"type": "act", "seq": view_seq(table, other), "action": legal[0]}, "not_your_turn"),
        (socks[turn], {"type": "act", "seq": view_seq(table, turn), "seat": other, "action": legal[0]}, "not_your_seat"),
        (socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": {"type": "discard", "card": "s99"}}, "bad_card"),
        (socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": {"type": "peng"}}, "illegal_action"),
        (socks[turn], {"type": "act", "seq": "x", "action": legal[0]}, "bad_message"),
        (socks[turn], [1, 2], "bad_message"),
        # issue 12: nesting too deep for the parser, a huge message, a string where a boolean goes
        (socks[turn], "[" * 5000, "bad_json"),
        (socks[turn], "[" * 100000, "too_large"),
        (socks[turn], {"type": "tuoguan", "on": "false"}, "bad_message"),
        (socks[turn], {"type": "tuoguan", "on": 1}, "bad_message"),
    ]
    mine = set(build_view(eh, turn)["hands"][turn] or [])
    foreign = next(c for c in [f"s{i}" for i in range(1, 11)] + [f"b{i}" for i in range(1, 11)] if c not in mine)
    cases.append((socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": {"type": "discard", "card": foreign}},
                  "not_your_card"))
    for sock, message, code in cases:
        if isinstance(message, str):
            await sock.send_to(text_data=message)
        else:
            await send(sock, message)
        reply = await sock.receive_json_from(timeout=5)
        assert reply["type"] == "error" and reply["code"] == code, (message, reply)
        assert "seq" in reply and reply["message"]
    after = await sync_to_async(lambda: (Table.objects.get(pk=full_table.pk).seq,
                                         TableEvent.objects.filter(table=full_table).count()))()
    assert after == before
    # the connection stays open: a good action still works, a double click is refused as stale
    await send(socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": legal[0]})
    await send(socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": legal[0]})
    msgs = [await wait_for(socks[turn], lambda m: m["type"] == "update")]
    msgs += await drain(socks[turn], 0.5)
    errors = [m for m in msgs if m["type"] == "error"]
    assert [e["code"] for e in errors] in (["stale_seq"], ["not_your_turn"])
    for s in socks:
        await s.disconnect()


@MEMORY
async def test_reconnect_gets_exact_state(full_table, players):
    socks = [await connect(u, full_table.pk) for u in players]
    await start_hand(socks)
    table, hand, eh = await sync_to_async(current)(full_table.pk)
    turn = eh.to_act()[0]
    await send(socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": [a.to_wire() for a in eh.legal_actions(turn)][0]})
    last = await wait_for(socks[1], lambda m: m["type"] == "update" and m["seq"] > view_seq(table, 1))
    last = (await latest_state(socks[1])) or last
    await socks[1].disconnect()
    offline = await wait_for(socks[0], lambda m: m["type"] == "update" and not m["state"]["seats"][1]["online"])
    assert offline["events"][-1]["type"] == "seat.online"
    again = await connect(players[1], full_table.pk)
    state = again.first["state"]
    assert state["me"] == 1 and state["seats"][1]["online"] is True
    assert state["hand"] == last["state"]["hand"]
    assert again.first["seq"] >= last["seq"]
    for s in (socks[0], socks[2], again):
        await s.disconnect()


@MEMORY
async def test_anonymous_and_outsiders_are_closed(full_table, make_user):
    from django.contrib.auth.models import AnonymousUser

    for user in (AnonymousUser(), await sync_to_async(make_user)()):
        comm = WebsocketCommunicator(application, f"/ws/tables/{full_table.pk}/",
                                     headers=[(b"origin", b"http://testserver")])
        comm.scope["user"] = user
        connected, code = await comm.connect()
        assert not connected or (await comm.receive_output(timeout=1))["type"] == "websocket.close"


@MEMORY
async def test_embedded_runner_delivers_time_outs_to_open_sockets(full_table, players):
    """`manage.py serve` runs the periodic runner inside the server's event loop: a turn deadline that
    passes is fired by it, and the time-out move reaches the sockets of the in-memory channel layer."""
    import asyncio
    from datetime import timedelta

    from django.utils import timezone

    from apps.embedded.runner import PeriodicRunner

    socks = [await connect(u, full_table.pk) for u in players]
    await start_hand(socks)
    table, _, eh = await sync_to_async(current)(full_table.pk)
    turn = eh.to_act()[0]
    expected = eh.default_action(turn).to_wire()
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(deadline=timezone.now() - timedelta(seconds=1))
    runner = PeriodicRunner({"deadlines": {"task": "apps.tables.tasks.fire_deadlines", "schedule": 0.05}},
                            tick=0.02)  # tasks looked up by name, as under `serve`
    task = asyncio.create_task(runner.run_async())
    try:
        for i, s in enumerate(socks):
            msg = await wait_for(s, lambda m: m["type"] == "update"
                                 and any(e["type"] == "seat.timeout" for e in m["events"]), timeout=15)
            if i == turn:  # the seat's own copy carries its action
                assert {"type": "action", "seat": turn, "action": expected, "by": "timeout"}.items() <= {
                    **next(e for e in msg["events"] if e["type"] == "action")}.items()
    finally:
        runner.stop()
        await asyncio.wait_for(task, 5)
    assert runner.runs.get("deadlines", 0) >= 1
    for s in socks:
        await s.disconnect()


@MEMORY
async def test_resyncs_are_rate_limited(full_table, players):
    """Issue 12, item 6: a socket asking for resync in a loop is refused after a burst, and stays open."""
    from apps.tables.live import consumers

    sock = await connect(players[0], full_table.pk)
    await drain(sock)  # the update marking the seat online
    replies = []
    for _ in range(consumers.RESYNC_BURST + 3):
        await send(sock, {"type": "resync"})
        replies.append(await wait_for(sock, lambda m: m["type"] in ("state", "error")))
    kinds = [r["type"] if r["type"] == "state" else r["code"] for r in replies]
    assert kinds[: consumers.RESYNC_BURST] == ["state"] * consumers.RESYNC_BURST
    assert set(kinds[consumers.RESYNC_BURST:]) == {"rate_limited"}
    await send(sock, {"type": "ready"})  # other messages still work
    assert (await wait_for(sock, lambda m: m["type"] == "update"))["type"] == "update"
    await sock.disconnect()


@MEMORY
async def test_a_lost_update_is_caught_up_by_the_watch(full_table, players, settings, monkeypatch):
    """Issue 12, item 2: an update dropped by the channel layer reaches the socket as a fresh state
    within two watch rounds, without the client asking."""
    from apps.tables.transaction import outbox
    from apps.tables.verbs import services

    settings.TABLES_WATCH_SECONDS = 0.2
    sock = await connect(players[0], full_table.pk)
    await drain(sock)
    monkeypatch.setattr(outbox, "send_group", lambda group, message: None)  # the update is lost
    await sync_to_async(services.seat_ready)(user=players[1], table_id=full_table.pk)
    seq = await sync_to_async(lambda: view_seq(Table.objects.get(pk=full_table.pk), 0))()
    state = await wait_for(sock, lambda m: m["type"] == "state", timeout=5)
    assert state["seq"] == seq
    assert state["state"]["seats"][1]["ready"] is True
    assert await sock.receive_nothing(timeout=0.6)  # caught up: no further resyncs
    await sock.disconnect()


@MEMORY
async def test_a_ping_is_answered_pong_without_touching_the_table(full_table, players):
    """Issue #46: the page's heartbeat. A ``ping`` is answered ``pong`` with the socket's seq; nothing
    is logged, no update goes to anyone; over its limit it is refused like any other message."""
    from apps.tables.live import limits

    sock = await connect(players[0], full_table.pk)
    other = await connect(players[1], full_table.pk)
    await drain(sock)
    await drain(other)
    before = await sync_to_async(TableEvent.objects.filter(table_id=full_table.pk).count)()
    await send(sock, {"type": "ping"})
    pong = await wait_for(sock, lambda m: m["type"] in ("pong", "error"))
    assert pong["type"] == "pong" and isinstance(pong["seq"], int), pong
    assert await drain(other) == []
    assert await sync_to_async(TableEvent.objects.filter(table_id=full_table.pk).count)() == before
    replies = []
    for _ in range(limits.LIMITS["ping"][0] + 2):
        await send(sock, {"type": "ping"})
        replies.append(await wait_for(sock, lambda m: m["type"] in ("pong", "error")))
    assert replies[-1]["type"] == "error" and replies[-1]["code"] == "rate_limited"
    await sock.disconnect()
    await other.disconnect()
