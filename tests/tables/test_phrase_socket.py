"""Issue #47: 快捷语 over the table socket (the real ASGI application, the in-memory layer).

A seated player's phrase reaches every socket at the table, spectators' included, outside the
update numbering (a move right after it goes on at the same seq); a spectator's is refused, and
so is a second one within 3 s from the same seat (whatever the socket), with nothing sent to
anyone else and nothing stored."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from apps.tables.live import limits
from apps.tables.models import Table, TablePhrase
from tests.tables.helpers import current
from tests.tables.sockets import MEMORY, connect, drain, send, start_hand, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def _fresh_limits():
    limits.phrases.clear()
    yield
    limits.phrases.clear()


def phrases_in(msgs):
    return [(m["seat"], m["phrase"]) for m in msgs if m["type"] == "phrase"]


@MEMORY
async def test_phrase_reaches_everyone_spectators_cannot_send(full_table, players, club):
    socks = [await connect(u, full_table.pk) for u in players]
    watcher = await connect(club.admin_user, full_table.pk)  # a manager watching: a spectator
    await start_hand(socks)
    await drain(watcher)
    seq_before = await sync_to_async(lambda: Table.objects.get(pk=full_table.pk).seq)()

    await send(socks[1], {"type": "phrase", "phrase": "hurry", "id": 7})
    for s in [*socks, watcher]:
        got = await wait_for(s, lambda m: m["type"] == "phrase")
        assert (got["seat"], got["phrase"]) == (1, "hurry")
    assert (await wait_for(socks[1], lambda m: m["type"] == "ack"))["id"] == 7

    await send(watcher, {"type": "phrase", "phrase": "bomb", "id": 3})
    reply = await wait_for(watcher, lambda m: m["type"] == "error")
    assert (reply["code"], reply["id"]) == ("not_seated", 3)
    for s in socks:
        assert phrases_in(await drain(s, 0.3)) == []

    assert await sync_to_async(lambda: Table.objects.get(pk=full_table.pk).seq)() == seq_before
    assert await sync_to_async(lambda: list(TablePhrase.objects.values_list("seat", "phrase")))() == [(1, "hurry")]
    # the hand goes on at the same numbers: a move right after is applied
    table, _hand, eh = await sync_to_async(current)(full_table.pk)
    turn = eh.to_act()[0]
    from apps.tables.transaction.outbox import view_seq
    action = eh.legal_actions(turn)[0].to_wire()
    await send(socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": action, "id": 9})
    assert (await wait_for(socks[turn], lambda m: m["type"] in ("ack", "error")))["type"] == "ack"
    for s in [*socks, watcher]:
        await s.disconnect()


@MEMORY
async def test_rate_limit_per_seat_across_sockets(full_table, players):
    socks = [await connect(u, full_table.pk) for u in players]
    second_tab = await connect(players[0], full_table.pk)
    await send(socks[0], {"type": "phrase", "phrase": "like", "id": 1})
    assert (await wait_for(socks[1], lambda m: m["type"] == "phrase"))["phrase"] == "like"
    await drain(second_tab)
    assert phrases_in(await drain(socks[2])) == [(0, "like")]
    await send(second_tab, {"type": "phrase", "phrase": "laugh", "id": 2})  # the same seat, another socket
    reply = await wait_for(second_tab, lambda m: m["type"] == "error")
    assert reply["code"] == "phrase_too_fast" and reply["id"] == 2 and 0 < reply["retry_after"] <= 3
    await send(socks[1], {"type": "phrase", "phrase": "rose", "id": 1})  # another seat is not held back
    assert phrases_in([await wait_for(socks[2], lambda m: m["type"] == "phrase")]) == [(1, "rose")]
    assert phrases_in(await drain(socks[2], 0.3)) == []  # the refused one went to nobody
    assert await sync_to_async(TablePhrase.objects.count)() == 2
    for s in [*socks, second_tab]:
        await s.disconnect()


@MEMORY
async def test_bad_phrase_and_option_off_refused(full_table, players):
    sock = await connect(players[0], full_table.pk)
    await send(sock, {"type": "phrase", "phrase": "<b>hi</b>", "id": 1})
    assert (await wait_for(sock, lambda m: m["type"] == "error"))["code"] == "bad_phrase"
    await sync_to_async(lambda: Table.objects.filter(pk=full_table.pk).update(no_phrases=True))()
    await send(sock, {"type": "phrase", "phrase": "hello", "id": 2})
    assert (await wait_for(sock, lambda m: m["type"] == "error"))["code"] == "phrases_off"
    assert await sync_to_async(TablePhrase.objects.count)() == 0
    await sock.disconnect()
