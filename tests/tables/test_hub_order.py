"""Updates of one table reach every socket in the order their transactions committed, whatever
order they were published in (apps/tables/live/hub.py, ``Sequencer``): two database threads, or two
processes, may publish a table's updates the other way round."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async

from apps.tables.live import hub
from apps.tables.live.hub import Sequencer
from apps.tables.transaction import outbox
from apps.tables.transaction.outbox import deferred_sends
from apps.tables.verbs import services
from tests.tables.sockets import connect, drain, wait_for


def _two_committed_updates(table_id, users) -> list:
    """Two committed table transactions (two players say ready), their group sends collected."""
    with deferred_sends() as box:
        services.seat_ready(user=users[0], table_id=table_id)
        services.seat_ready(user=users[1], table_id=table_id)
    return list(box)


def _ready_seats(msg) -> list[int]:
    return [e["seat"] for e in msg["events"] if e["type"] == "seat.ready"]


def _last_seq(sock, msgs) -> int:
    return ([sock.first] + [m for m in msgs if m["type"] in ("state", "update")])[-1]["seq"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_updates_published_out_of_order_reach_each_socket_in_order(full_table, players):
    socks = [await connect(u, full_table.pk) for u in players]
    base = {}
    for s in socks:
        base[s] = _last_seq(s, await drain(s))
    sends = await sync_to_async(_two_committed_updates)(full_table.pk, players)
    assert len(sends) == 2 and sends[0][1]["tseq"][1] == sends[1][1]["tseq"][0]
    await outbox.publish(list(reversed(sends)))  # the later one reaches the layer first
    for s in socks:
        first = await wait_for(s, lambda m: m["type"] == "update")
        second = await wait_for(s, lambda m: m["type"] == "update")
        assert (_ready_seats(first), _ready_seats(second)) == ([0], [1])
        assert second["from_seq"] == first["seq"] + 1 == base[s] + 2  # no gap, nothing dropped
        assert await s.receive_nothing(timeout=0.1)
    for s in socks:
        await s.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_lost_update_holds_the_later_ones_only_a_while(full_table, players, monkeypatch):
    """The update the hub waits for never comes (lost on the way): the later one goes on after
    ``HOLD_SECONDS``, and the socket, behind, is resynced by the watch as before."""
    monkeypatch.setattr(hub, "HOLD_SECONDS", 0.2)
    sock = await connect(players[2], full_table.pk)
    base = _last_seq(sock, await drain(sock))
    sends = await sync_to_async(_two_committed_updates)(full_table.pk, players)
    await outbox.publish(sends[1:])  # the first one is lost
    assert await sock.receive_nothing(timeout=0.1)  # it waits for the earlier one ...
    late = await wait_for(sock, lambda m: m["type"] == "update", timeout=2)
    assert _ready_seats(late) == [1] and late["from_seq"] == base + 2  # ... then goes on
    await sock.disconnect()
    await asyncio.sleep(0)


def test_sequencer_orders_by_span_and_gives_up_after_the_hold():
    seq = Sequencer(hold=1.0, last=10)
    assert seq.arrive({"tseq": [12, 13], "n": 2}, now=0.0) == []
    assert seq.arrive({"tseq": [13, 15], "n": 3}, now=0.1) == []
    assert [m["n"] for m in seq.arrive({"tseq": [10, 12], "n": 1}, now=0.2)] == [1, 2, 3]
    assert seq.last == 15 and seq.due() is None
    assert seq.arrive({"tseq": [16, 17], "n": 5}, now=1.0) == []  # 15..16 is lost
    assert seq.overdue(now=1.5) == [] and seq.due() == 2.0
    assert [m["n"] for m in seq.overdue(now=2.0)] == [5]
    assert [m["n"] for m in seq.arrive({"tseq": [15, 16], "n": 4}, now=2.1)] == [4]  # late: handed over
    assert seq.last == 17
    assert [m["n"] for m in seq.arrive({"tseq": [17, 18], "n": 6}, now=2.2)] == [6]
    assert seq.arrive({"n": 7}, now=2.3) == [{"n": 7}]  # (no span: as it comes)
