"""Issue #41: nobody can stall a table, or lose a tap (apps/tables/live/consumers.py, limits.py).

- Access is decided before a socket costs anything: an anonymous one costs no query, a refused
  one a single SELECT, and neither takes a row lock or joins a group; each is accepted and then
  closed with a code the page tells apart (4401, 4403, 4404, 4429, 4503).
- Every message type is rate-limited per socket; a flood changes nothing and other tables play on.
- A user has at most ``MAX_SOCKETS_PER_USER`` sockets at a table; two tabs keep the seat online
  until the last one closes.
- A message with an ``id`` is acknowledged after its update reached the socket; a refusal's error
  carries the id; a move resent after a reconnect is acknowledged as a duplicate.
"""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import OperationalError

from apps.tables.live import consumers, hub, limits
from apps.tables.models import Seat, Table, TableEvent
from apps.tables.storage import rows
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import services
from config.asgi import application
from tests.tables.helpers import current
from tests.tables.sockets import MEMORY, connect, drain, send, start_hand, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def _fresh_acks():
    limits.acked.clear()  # (table and user ids come back in the next test's database)
    yield
    limits.acked.clear()


@pytest.fixture
def spent(monkeypatch):
    """What sockets cost, from every thread: Django's SQL statements, table row locks
    (``rows.lock_key``: a ``FOR UPDATE``, sent by rows.py's own cursor on PostgreSQL), hub joins and
    channel-layer ``group_add``s."""
    from django.db.backends import utils

    out = {"sql": [], "locks": 0, "joins": 0, "group_adds": 0}
    execute = utils.CursorWrapper._execute

    def counting_execute(self, sql, *args, **kwargs):
        out["sql"].append(sql)
        return execute(self, sql, *args, **kwargs)

    lock_key = rows.lock_key

    def counting_lock(table_id):
        out["locks"] += 1
        return lock_key(table_id)

    join = hub.join

    async def counting_join(consumer):
        out["joins"] += 1
        return await join(consumer)

    layer = get_channel_layer()
    group_add = layer.group_add

    async def counting_add(group, channel):
        out["group_adds"] += 1
        return await group_add(group, channel)

    monkeypatch.setattr(utils.CursorWrapper, "_execute", counting_execute)
    monkeypatch.setattr(rows, "lock_key", counting_lock)
    monkeypatch.setattr(hub, "join", counting_join)
    monkeypatch.setattr(layer, "group_add", counting_add)
    out["for_update"] = lambda: out["locks"] + sum("FOR UPDATE" in s.upper() for s in out["sql"])
    out["reset"] = lambda: out["sql"].clear()
    return out


async def open_socket(user, table_id) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=[(b"origin", b"http://testserver")])
    comm.scope["user"] = user
    return comm


async def refused_with(user, table_id) -> int:
    """Connect; the socket must be accepted (a close before the accept is a 1006 in a browser)
    and then closed: its close code."""
    comm = await open_socket(user, table_id)
    connected, _ = await comm.connect(timeout=5)
    assert connected, "a refused socket is accepted first, then closed"
    closing = await comm.receive_output(timeout=5)
    assert closing["type"] == "websocket.close", closing
    await comm.disconnect()  # (the browser's answer to the close)
    return closing["code"]


async def test_an_anonymous_socket_costs_no_query_and_is_closed_4401(full_table, spent):
    assert await refused_with(AnonymousUser(), full_table.pk) == consumers.CLOSE_SIGN_IN == 4401
    assert spent["sql"] == [] and spent["locks"] == 0
    assert (spent["joins"], spent["group_adds"]) == (0, 0)
    assert full_table.pk not in hub.tables()


async def test_a_non_member_costs_one_select_no_lock_no_group_and_is_closed_4403(full_table, spent, make_user):
    outsider = await sync_to_async(make_user)()
    spent["reset"]()
    assert await refused_with(outsider, full_table.pk) == consumers.CLOSE_FORBIDDEN == 4403
    assert len(spent["sql"]) == 1 and spent["sql"][0].lstrip().upper().startswith("SELECT")
    assert spent["for_update"]() == 0
    assert (spent["joins"], spent["group_adds"]) == (0, 0)
    assert full_table.pk not in hub.tables()


async def test_a_member_may_not_look_at_a_table_in_play(full_table, players, make_user, club, spent):
    from apps.clubs.models import Membership

    member = await sync_to_async(make_user)()
    await sync_to_async(Membership.objects.create)(club=club, user=member)
    await sync_to_async(Table.objects.filter(pk=full_table.pk).update)(status="playing")
    spent["reset"]()
    assert await refused_with(member, full_table.pk) == 4403
    assert (len(spent["sql"]), spent["for_update"](), spent["group_adds"]) == (1, 0, 0)


async def test_a_forged_table_id_is_closed_4404(full_table, players, spent):
    assert await refused_with(players[0], 987654321) == consumers.CLOSE_NOT_FOUND == 4404
    assert (len(spent["sql"]), spent["for_update"](), spent["joins"], spent["group_adds"]) == (1, 0, 0, 0)
    assert 987654321 not in hub.tables()
    assert await refused_with(players[0], 10**20) == 4404  # (past the database's integers)


async def test_an_allowed_socket_decides_in_one_select_then_locks_once(full_table, players, spent):
    sock = await connect(players[0], full_table.pk)
    assert spent["sql"][0].lstrip().upper().startswith("SELECT") and spent["locks"] == 1
    assert spent["joins"] == 1
    await sock.disconnect()


async def test_the_first_state_is_built_inside_the_table_transaction(full_table, players, monkeypatch):
    from django.db import connection

    inside = []
    snapshot_of = services.snapshot_of

    def recording(ctx, viewer):
        inside.append(connection.in_atomic_block)
        return snapshot_of(ctx, viewer)

    monkeypatch.setattr(services, "snapshot_of", recording)
    sock = await connect(players[1], full_table.pk)
    assert inside == [True]
    assert sock.first["state"]["seats"][1]["online"] is True
    await sock.disconnect()


async def test_a_database_down_at_connect_closes_4503_with_one_log_line(full_table, players, monkeypatch, caplog):
    def down(**kwargs):
        raise OperationalError("connection to server at \"127.0.0.1\", port 5432 failed: Connection refused")

    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(consumers, "access_of", down)
    assert await refused_with(players[0], full_table.pk) == consumers.CLOSE_DB_BUSY == 4503
    monkeypatch.undo()
    monkeypatch.setattr(services, "socket_open", down)  # (past the access check: under the lock)
    assert await refused_with(players[0], full_table.pk) == 4503
    assert full_table.pk not in hub.tables()
    records = [r for r in caplog.records if r.name == consumers.__name__]
    assert len(records) == 2 and all(r.exc_info is None for r in records), [r.getMessage() for r in records]
    assert "database is unavailable" in records[0].getMessage()


async def test_a_database_down_during_a_move_closes_4503(full_table, players, monkeypatch, caplog):
    from apps.tables.verbs import play

    sock = await connect(players[0], full_table.pk)
    await drain(sock)

    def down(**kwargs):
        raise OperationalError("sorry, too many clients already")

    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(play, "hand_act", down)
    await send(sock, {"type": "act", "seq": 1, "action": {"type": "pass"}, "id": 3})
    closing = await sock.receive_output(timeout=5)
    assert (closing["type"], closing["code"]) == ("websocket.close", 4503)
    assert [r.exc_info for r in caplog.records if r.name == consumers.__name__] == [None]
    await sock.disconnect()


async def test_the_fifth_socket_of_a_user_at_a_table_is_closed_4429(full_table, players, spent):
    socks = [await connect(players[0], full_table.pk) for _ in range(consumers.MAX_SOCKETS_PER_USER)]
    joins = spent["joins"]
    assert await refused_with(players[0], full_table.pk) == consumers.CLOSE_TOO_MANY == 4429
    assert spent["joins"] == joins  # the refused one joined nothing
    other = await connect(players[1], full_table.pk)  # another user is not counted with him
    await socks[0].disconnect()
    again = await connect(players[0], full_table.pk)  # one closed: room for one more
    for s in [*socks[1:], other, again]:
        await s.disconnect()


def _online(table_id, index) -> bool:
    return Seat.objects.get(table_id=table_id, index=index).online


async def test_two_tabs_closing_one_keeps_the_seat_online(full_table, players):
    watcher = await connect(players[0], full_table.pk)
    tabs = [await connect(players[1], full_table.pk) for _ in range(2)]
    await drain(watcher)
    assert await sync_to_async(_online)(full_table.pk, 1)
    await tabs[0].disconnect()
    offline = [m for m in await drain(watcher, 0.5) if m["type"] == "update"
               and any(e["type"] == "seat.online" and e["seat"] == 1 for e in m["events"])]
    assert offline == [] and await sync_to_async(_online)(full_table.pk, 1)
    await send(tabs[1], {"type": "ready", "id": 1})  # the other tab still plays
    assert (await wait_for(tabs[1], lambda m: m["type"] == "ack"))["id"] == 1
    await tabs[1].disconnect()
    update = await wait_for(watcher, lambda m: m["type"] == "update" and not m["state"]["seats"][1]["online"])
    assert update["events"][-1] == {"type": "seat.online", "seat": 1, "online": False}
    assert not await sync_to_async(_online)(full_table.pk, 1)
    await watcher.disconnect()


async def _table_key(table_id):
    def read():
        t = Table.objects.get(pk=table_id)
        return t.seq, t.rev, t.last_hash, t.view_seqs, TableEvent.objects.filter(table_id=table_id).count()
    return await sync_to_async(read)()


@MEMORY
async def test_a_flood_of_moves_is_refused_after_the_limit_and_other_tables_play_on(
        full_table, players, template, capsys):
    # a second table with the same players, in play
    def open_other():
        other = services.table_open(user=players[0], template=template)
        for user in players[1:]:
            services.table_join(user=user, table_id=other.pk)
        return other

    other = await sync_to_async(open_other)()
    socks = [await connect(u, full_table.pk) for u in players]
    others = [await connect(u, other.pk) for u in players]
    await start_hand(socks)
    await start_hand(others)
    table, _, eh = await sync_to_async(current)(full_table.pk)
    turn = eh.to_act()[0]
    stale = {"type": "act", "seq": view_seq(table, turn) - 1, "action": {"type": "discard", "card": "s1"}}
    before = await _table_key(full_table.pk)
    frames = 1000

    async def flood():
        started = time.perf_counter()
        for i in range(frames):
            await send(socks[turn], {**stale, "id": i + 1})
        replies = [await socks[turn].receive_json_from(timeout=10) for _ in range(frames)]
        return replies, time.perf_counter() - started

    async def play_other(moves=4):
        played = 0
        for _ in range(moves):
            t, h, e = await sync_to_async(current)(other.pk)
            if h is None or h.status != "playing":
                break
            seat = e.to_act()[0]
            action = e.default_action(seat).to_wire()
            await send(others[seat], {"type": "act", "seq": view_seq(t, seat), "action": action, "id": 10_000 + played})
            reply = await wait_for(others[seat], lambda m: m["type"] in ("ack", "error"))
            assert reply["type"] == "ack", reply
            played += 1
        return played

    (replies, elapsed), played = await asyncio.gather(flood(), play_other())
    codes = [r.get("code") for r in replies]
    assert all(r["type"] == "error" for r in replies)
    assert [r["id"] for r in replies] == list(range(1, frames + 1))  # every refusal names its message
    limited = codes.count("rate_limited")
    accepted = frames - limited
    assert set(codes) == {"stale_seq", "rate_limited"}
    burst, rate = limits.LIMITS["act"]
    assert burst <= accepted <= burst + rate * elapsed + 1
    assert await _table_key(full_table.pk) == before  # nothing changed at the flooded table
    assert played == 4
    with capsys.disabled():
        print(f"\nflood: {frames} act frames in {elapsed:.3f} s: {accepted} reached the table "
              f"(refused as stale_seq), {limited} refused as rate_limited; the other table played {played} moves")
    for s in [*socks, *others]:
        await s.disconnect()


async def test_every_message_type_is_rate_limited(full_table, players):
    """A burst of each type at once: the burst goes through (acks or the verb's own refusals, no
    table change; a ping its pong), what follows is ``rate_limited``; unknown types share the ``other``
    bucket."""
    sock = await connect(players[0], full_table.pk)
    await drain(sock)
    for kind, (burst, _) in limits.LIMITS.items():
        message = {"type": kind if kind != "other" else "fly"}
        for i in range(burst + 3):
            await send(sock, {**message, "id": 500 + i})
        codes = []
        for i in range(burst + 3):
            reply = await wait_for(sock, lambda m, i=i: m["type"] in ("ack", "error", "pong") and m.get("id") == 500 + i)
            codes.append(reply.get("code", reply["type"]))  # (a ping is answered pong, with its id)
        assert "rate_limited" not in codes[:burst], (kind, codes)
        assert codes[-1] == "rate_limited", (kind, codes)
        await drain(sock)
    await sock.disconnect()


async def test_the_rate_limited_error_is_readable(full_table, players):
    sock = await connect(players[0], full_table.pk)
    await drain(sock)
    for i in range(limits.LIMITS["tuoguan"][0] + 1):
        await send(sock, {"type": "tuoguan", "on": True, "id": 900 + i})
    replies = [await wait_for(sock, lambda m: m["type"] == "error") for _ in range(limits.LIMITS["tuoguan"][0] + 1)]
    last = replies[-1]
    assert last["code"] == "rate_limited" and last["id"] == 900 + limits.LIMITS["tuoguan"][0]
    assert last["message"] == limits.RATE_LIMITED_MESSAGE and 0 < last["retry_after"] <= 1
    await sock.disconnect()


async def until_ack(sock) -> list[dict]:
    """The messages up to and including the next ack."""
    msgs = []
    while not msgs or msgs[-1]["type"] != "ack":
        msgs.append(await sock.receive_json_from(timeout=5))
    return msgs


async def test_ack_comes_after_the_update_of_ready_act_and_tuoguan(full_table, players):
    socks = [await connect(u, full_table.pk) for u in players]
    for s in socks:
        await drain(s)
    for i, s in enumerate(socks):
        await drain(s)
        await send(s, {"type": "ready", "id": 1})
        msgs = await until_ack(s)
        mine = [m for m in msgs if m["type"] == "update"
                and any(e["type"] == "seat.ready" and e["seat"] == i for e in m["events"])]
        assert mine, msgs  # the update came before the ack
        assert msgs[-1] == {"type": "ack", "id": 1, "seq": msgs[-1]["seq"]} and msgs[-1]["seq"] >= mine[0]["seq"]
    for s in socks:
        await drain(s)
    table, _, eh = await sync_to_async(current)(full_table.pk)
    turn = eh.to_act()[0]
    action = eh.default_action(turn).to_wire()
    await send(socks[turn], {"type": "act", "seq": view_seq(table, turn), "action": action, "id": 2})
    msgs = []
    while not msgs or msgs[-1]["type"] != "ack":
        msgs.append(await socks[turn].receive_json_from(timeout=5))
    updates = [m for m in msgs if m["type"] == "update"]
    assert updates and any(e["type"] == "action" for u in updates for e in u["events"])
    assert msgs[-1]["id"] == 2 and msgs[-1]["seq"] >= updates[0]["seq"]
    await drain(socks[turn])
    other = (turn + 1) % 3
    await drain(socks[other])
    await send(socks[other], {"type": "tuoguan", "on": True, "id": 3})
    msgs = []
    while not msgs or msgs[-1]["type"] != "ack":
        msgs.append(await socks[other].receive_json_from(timeout=5))
    assert any(e["type"] == "seat.tuoguan" for m in msgs if m["type"] == "update" for e in m["events"])
    assert msgs[-1]["id"] == 3
    # a refusal's error carries the id; a message without one is answered as before (no ack)
    await send(socks[other], {"type": "act", "seq": "x", "action": action, "id": 4})
    error = await wait_for(socks[other], lambda m: m["type"] == "error")
    assert (error["code"], error["id"]) == ("bad_message", 4)
    await send(socks[other], {"type": "resync", "id": 5})
    state = await wait_for(socks[other], lambda m: m["type"] in ("state", "ack"))
    ack = await wait_for(socks[other], lambda m: m["type"] == "ack")
    assert state["type"] == "state" and ack == {"type": "ack", "id": 5, "seq": state["seq"]}
    await send(socks[other], {"type": "resync"})
    await wait_for(socks[other], lambda m: m["type"] == "state")
    assert not [m for m in await drain(socks[other], 0.3) if m["type"] == "ack"]
    for bad in (0, -1, True, "7", 1.5):
        await send(socks[other], {"type": "resync", "id": bad})
        error = await wait_for(socks[other], lambda m: m["type"] == "error")
        assert error["code"] == "bad_message" and "id" not in error
    for s in socks:
        await s.disconnect()


async def test_an_ack_whose_update_was_lost_comes_after_a_fresh_state(full_table, players, monkeypatch):
    monkeypatch.setattr(consumers, "ACK_WAIT_SECONDS", 0.3)
    sock = await connect(players[0], full_table.pk)
    await drain(sock)

    async def lost(sends, **kwargs):  # the channel layer drops the update
        return None

    monkeypatch.setattr(consumers, "publish", lost)
    await send(sock, {"type": "ready", "id": 7})
    state = await wait_for(sock, lambda m: m["type"] in ("state", "ack", "update"))
    ack = await wait_for(sock, lambda m: m["type"] == "ack")
    assert state["type"] == "state" and state["state"]["seats"][0]["ready"] is True
    assert ack == {"type": "ack", "id": 7, "seq": state["seq"]}
    await sock.disconnect()


async def test_a_move_resent_after_a_reconnect_is_acknowledged_as_a_duplicate(full_table, players):
    socks = [await connect(u, full_table.pk) for u in players]
    await start_hand(socks)
    table, _, eh = await sync_to_async(current)(full_table.pk)
    turn = eh.to_act()[0]
    move = {"type": "act", "seq": view_seq(table, turn), "action": eh.default_action(turn).to_wire(), "id": 41}
    await send(socks[turn], move)
    first = await wait_for(socks[turn], lambda m: m["type"] == "ack")
    assert "dup" not in first
    await socks[turn].disconnect()  # the page never read that ack: it reconnects and resends
    again = await connect(players[turn], full_table.pk)
    before = await _table_key(full_table.pk)
    await send(again, move)
    dup = await wait_for(again, lambda m: m["type"] in ("ack", "error"))
    assert dup["type"] == "ack" and dup["id"] == 41 and dup["dup"] is True
    assert dup["seq"] == again.first["seq"] or dup["seq"] >= again.first["seq"]
    assert await _table_key(full_table.pk) == before  # applied once
    # the same id with another seq (a fresh page counting from 1 again): not a duplicate
    await send(again, {**move, "seq": move["seq"] - 1})
    stale = await wait_for(again, lambda m: m["type"] in ("ack", "error"))
    assert (stale["type"], stale["code"], stale["id"]) == ("error", "stale_seq", 41)
    for s in [again, *[s for i, s in enumerate(socks) if i != turn]]:
        await s.disconnect()


async def test_a_socket_that_leaves_takes_the_group_membership_with_it(full_table, players, monkeypatch):
    from apps.tables.live import watch

    monkeypatch.setattr(watch, "interval", lambda: 3600.0)  # (not the watch's round: the hub itself)
    monkeypatch.setattr(hub, "LINGER_SECONDS", 0.1)
    sock = await connect(players[0], full_table.pk)
    assert hub._hub().ops[full_table.pk][0] is True
    await sock.disconnect()
    for _ in range(100):
        if not hub._hub().ops[full_table.pk][0]:
            break
        await asyncio.sleep(0.02)
    assert hub._hub().ops[full_table.pk][0] is False
    again = await connect(players[0], full_table.pk)  # and a new socket joins again
    assert hub._hub().ops[full_table.pk][0] is True
    await again.disconnect()
