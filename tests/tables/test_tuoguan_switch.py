"""Issue 24: a player switches 托管 on (and off) for himself over the socket; everyone sees the
public 托管 flag, and his turns are played for him. Only his own seat, only while the table plays.
Issue 24 too: a watcher who takes a seat is online at once (not offline until the presence touch)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from apps.tables.models import Seat, Table, TableEvent
from apps.tables.verbs import services
from tests.tables.sockets import MEMORY, connect, drain, send, start_hand, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _counts(table_id):
    return (Table.objects.get(pk=table_id).seq, TableEvent.objects.filter(table_id=table_id).count(),
            list(Seat.objects.filter(table_id=table_id).order_by("index").values_list("tuoguan", flat=True)))


def _tuoguan_of(msg, index):
    return msg.get("type") in ("state", "update") and msg["state"]["seats"][index]["tuoguan"]


@MEMORY
async def test_a_player_switches_tuoguan_on_and_everyone_sees_it(full_table, players):
    socks = [await connect(u, full_table.pk) for u in players]
    await start_hand(socks)
    table = await sync_to_async(Table.objects.get)(pk=full_table.pk)
    turn = table.dealer  # the dealer discards first: his turn now
    await send(socks[turn], {"type": "tuoguan", "on": True})
    for s in socks:  # the public flag reaches every seat
        await wait_for(s, lambda m: _tuoguan_of(m, turn))
    # ... and his turn is played for him, at once (TABLES_BOT_DELAY is 0 in tests)
    played = await sync_to_async(lambda: list(TableEvent.objects.filter(
        table=full_table, type="action").values_list("payload", flat=True)))()
    assert any(p["seat"] == turn and p["by"] == "tuoguan" for p in played)
    seat = await sync_to_async(Seat.objects.get)(table=full_table, index=turn)
    assert seat.tuoguan and seat.timeouts == 0
    # He takes it back himself.
    await drain(socks[turn])
    await send(socks[turn], {"type": "tuoguan", "on": False})
    for s in socks:
        await wait_for(s, lambda m: m.get("type") in ("state", "update") and not m["state"]["seats"][turn]["tuoguan"])
    assert not (await sync_to_async(Seat.objects.get)(table=full_table, index=turn)).tuoguan
    for s in socks:
        await s.disconnect()


@MEMORY
async def test_tuoguan_refusals_change_nothing(full_table, players, club):
    socks = [await connect(u, full_table.pk) for u in players]
    # A waiting table: nothing to play yet.
    before = await sync_to_async(_counts)(full_table.pk)
    await send(socks[1], {"type": "tuoguan", "on": True})
    reply = await wait_for(socks[1], lambda m: m["type"] == "error")
    assert reply["code"] == "not_playing"
    assert await sync_to_async(_counts)(full_table.pk) == before
    await start_hand(socks)
    watcher = await connect(club.admin_user, full_table.pk)  # an admin watching: no seat
    before = await sync_to_async(_counts)(full_table.pk)
    cases = [
        (watcher, {"type": "tuoguan", "on": True}, "not_seated"),
        (socks[1], {"type": "tuoguan", "on": True, "seat": 2}, "not_your_seat"),
        (socks[1], {"type": "tuoguan", "on": True, "seat": True}, "not_your_seat"),
        (socks[1], {"type": "tuoguan", "on": "true"}, "bad_message"),
        (socks[1], {"type": "tuoguan"}, "bad_message"),
    ]
    for sock, message, code in cases:
        await drain(sock)
        await send(sock, message)
        reply = await wait_for(sock, lambda m: m["type"] == "error")
        assert reply["code"] == code, (message, reply)
    assert await sync_to_async(_counts)(full_table.pk) == before
    for s in [*socks, watcher]:
        await s.disconnect()


@MEMORY
async def test_a_watcher_who_takes_a_seat_is_online_at_once(players, template, settings):
    """The page watched the waiting table, then 入座 (an HTTP join): his socket is there, so his
    seat is online in the same moment for him and for the others, not seconds later when the
    process's presence touch (TABLES_PRESENCE_SECONDS) would notice it."""
    settings.TABLES_PRESENCE_SECONDS = 3600  # no presence touch during the test
    table = await sync_to_async(services.table_open)(user=players[0], template=template)
    host = await connect(players[0], table.pk)
    watcher = await connect(players[1], table.pk)
    assert watcher.first["state"]["me"] is None
    await sync_to_async(services.table_join)(user=players[1], table_id=table.pk)
    mine = await wait_for(watcher, lambda m: m.get("type") == "state" and m["state"]["me"] == 1)
    assert mine["state"]["seats"][1]["online"]  # he sees himself online in his first seated state
    await wait_for(host, lambda m: m.get("type") in ("state", "update") and m["state"]["seats"][1]["online"],
                   timeout=3)
    assert (await sync_to_async(Seat.objects.get)(table=table, index=1)).online
    for s in (host, watcher):
        await s.disconnect()
