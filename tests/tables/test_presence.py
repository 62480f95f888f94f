"""Issue 12: no seat is left online without a socket. A process killed with SIGKILL never runs its
sockets' disconnect; their seats are put offline by the presence sweep (apps/tables/verbs/presence.py),
while seats whose sockets live elsewhere are kept online by their process's touch (watch.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from apps.tables import tasks
from apps.tables.models import Seat, Table, TableEvent
from apps.tables.verbs import presence, services
from tests.tables.sockets import MEMORY, connect, drain, wait_for


def _seat(table, index) -> Seat:
    return Seat.objects.get(table=table, index=index)


@pytest.mark.django_db
def test_a_seat_online_but_unseen_is_put_offline_with_an_event(full_table, players):
    old = timezone.now() - timedelta(minutes=5)
    Seat.objects.filter(table=full_table).update(online=True, seen_at=timezone.now())
    Seat.objects.filter(table=full_table, index=1).update(seen_at=old)  # its process died
    Seat.objects.filter(table=full_table, index=2).update(seen_at=None)  # never seen by a process
    assert tasks.sweep_presence() == 2
    assert [_seat(full_table, i).online for i in range(3)] == [True, False, False]
    events = TableEvent.objects.filter(table=full_table, type="seat.online").order_by("seq")
    assert [(e.payload["seat"], e.payload["online"], e.payload["reason"]) for e in events][-2:] == [
        (1, False, "unseen"), (2, False, "unseen")]
    assert tasks.sweep_presence() == 0  # once


@pytest.mark.django_db
def test_the_sweep_leaves_closed_tables_and_fresh_seats_alone(full_table, players):
    Seat.objects.filter(table=full_table).update(online=True, seen_at=timezone.now() - timedelta(minutes=5))
    Table.objects.filter(pk=full_table.pk).update(status="finished")
    assert presence.sweep() == []
    Table.objects.filter(pk=full_table.pk).update(status="waiting")
    assert presence.sweep(now=timezone.now() - timedelta(minutes=5)) == []  # seen "just now" then


@pytest.mark.django_db
def test_a_live_socket_whose_seat_was_swept_comes_back_online_when_seen(full_table, players):
    Seat.objects.filter(table=full_table, index=1).update(online=True, seen_at=None)
    presence.sweep()
    assert not _seat(full_table, 1).online
    assert presence.seen(players={full_table.pk: {players[1].pk}}) == 1
    seat = _seat(full_table, 1)
    assert seat.online and seat.seen_at is not None
    assert TableEvent.objects.filter(table=full_table, type="seat.online").last().payload["reason"] == "seen"


@pytest.mark.django_db
def test_a_socket_that_closed_meanwhile_is_not_put_back_online(full_table, players):
    """The touch read the sockets, then one closed and put its seat offline: not undone."""
    Seat.objects.filter(table=full_table, index=1).update(online=False)
    presence.seen(players={full_table.pk: {players[1].pk}}, still_here=lambda table_id, user_id: False)
    assert not _seat(full_table, 1).online
    presence.seen(players={full_table.pk: {players[1].pk}}, still_here=lambda table_id, user_id: True)
    assert _seat(full_table, 1).online


@pytest.mark.django_db
def test_a_table_transaction_does_not_write_back_an_older_seen_at(full_table, players):
    services.seat_set_online(user=players[1], table_id=full_table.pk, online=True)  # seen now, cached
    later = timezone.now() + timedelta(minutes=1)
    Seat.objects.filter(table=full_table, index=1).update(seen_at=later)  # its process touched it
    services.seat_ready(user=players[1], table_id=full_table.pk)  # saves the (cached) seat
    assert _seat(full_table, 1).seen_at == later


@MEMORY
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_process_marks_its_sockets_seats_seen_and_the_sweep_tells_the_others(
        full_table, players, settings):
    settings.TABLES_WATCH_SECONDS = 0.1
    settings.TABLES_PRESENCE_SECONDS = 0.1
    sock = await connect(players[0], full_table.pk)
    await drain(sock)
    old = timezone.now() - timedelta(minutes=5)
    await sync_to_async(lambda: Seat.objects.filter(table=full_table, index=0).update(seen_at=old))()
    # seat 1's player was connected to a process that was killed: online (as that process put it,
    # through a table transaction), and nobody sees it
    await sync_to_async(services.seat_set_online)(user=players[1], table_id=full_table.pk, online=True)
    await sync_to_async(lambda: Seat.objects.filter(table=full_table, index=1).update(seen_at=old))()
    for _ in range(50):
        if await sync_to_async(lambda: _seat(full_table, 0).seen_at)() > old:
            break
        await drain(sock, 0.1)
    assert await sync_to_async(lambda: _seat(full_table, 0).seen_at)() > old  # touched by the watch
    assert await sync_to_async(tasks.sweep_presence)() == 1
    update = await wait_for(sock, lambda m: m["type"] == "update" and not m["state"]["seats"][1]["online"])
    assert update["state"]["seats"][0]["online"] is True
    await sock.disconnect()


@MEMORY
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_consumer_that_crashes_leaves_the_watch(full_table, players, monkeypatch):
    """Found by the fault run: a consumer whose connect failed (PostgreSQL restarting) stayed in the
    watch, kept its seat "seen" and put it back online after its socket had closed."""
    from channels.testing import WebsocketCommunicator

    from apps.tables.live import watch
    from config.asgi import application

    def down(**kwargs):
        raise RuntimeError("the database system is shutting down")

    monkeypatch.setattr(services, "socket_open", down)
    comm = WebsocketCommunicator(application, f"/ws/tables/{full_table.pk}/",
                                 headers=[(b"origin", b"http://testserver")])
    comm.scope["user"] = players[0]
    with pytest.raises(RuntimeError):
        await comm.connect()
        await comm.receive_from(timeout=2)
    assert full_table.pk not in watch._sockets


@pytest.mark.django_db
def test_a_touch_marks_exactly_the_seats_with_a_socket_here(players, template, full_table):
    """A player seated at two tables, with a socket at one of them only: the other seat is not seen
    (on PostgreSQL the touch joins the exact pairs; on SQLite it reads every seat of those tables
    and users, then keeps the exact pairs)."""
    other = services.table_open(user=players[1], template=template)  # players[1] sits there too
    Seat.objects.filter(table__in=[full_table, other]).update(seen_at=None, online=False)
    assert presence.seen(players={full_table.pk: {players[1].pk}, other.pk: {players[0].pk}}) == 1
    assert _seat(full_table, 1).seen_at is not None and _seat(full_table, 1).online
    assert _seat(other, 0).user_id == players[1].pk  # his seat at the other table: no socket here
    assert _seat(other, 0).seen_at is None and not _seat(other, 0).online
    assert [_seat(full_table, i).seen_at for i in (0, 2)] == [None, None]
    assert presence.seen(players={}) == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_watch_never_holds_a_thread_of_the_moves(full_table, players, monkeypatch, settings):
    """Found by #29's traces: a presence touch (tens of ms at 300 tables) held one of the move
    threads, and the moves queued behind it were the slowest 1%. Where the database takes several
    writers the watch has a thread of its own; SQLite (one writer) has one thread for everything."""
    import threading

    from apps.tables.live import consumers, watch

    ran_in = []
    monkeypatch.setattr(presence, "seen", lambda **kw: ran_in.append(threading.current_thread().name) or 0)
    monkeypatch.setattr(watch, "seated_players", lambda: {full_table.pk: {players[0].pk}})
    await watch.touch_presence(consumers.watch_call)
    moves = await consumers.db_call(lambda: threading.current_thread().name)()
    if settings.TABLES_DB_THREADS > 1:
        assert ran_in[0].startswith("tables-watch") and moves.startswith("tables-db")
    else:
        assert ran_in[0].startswith("tables-db") and consumers.WATCH_EXECUTOR is consumers.DB_EXECUTOR


@pytest.mark.django_db
@pytest.mark.parametrize("status", ["finished", "dissolved"])
def test_an_ended_table_records_no_presence(full_table, players, status):
    """Its log ends with its session: players opening or leaving the result page add no event, no
    update and no seat write (at a busy server's table ends these were three transactions and
    updates at once per table, which other tables' moves queued behind: README #29)."""
    services.seat_set_online(user=players[1], table_id=full_table.pk, online=True)
    Table.objects.filter(pk=full_table.pk).update(status=status)
    before = Table.objects.get(pk=full_table.pk)
    services.seat_set_online(user=players[1], table_id=full_table.pk, online=False)
    opened = services.socket_open(user=players[2], table_id=full_table.pk)
    after = Table.objects.get(pk=full_table.pk)
    assert (after.seq, after.rev, after.last_hash) == (before.seq, before.rev, before.last_hash)
    assert presence.seen(players={full_table.pk: {players[2].pk}}) == 1  # his socket, seen here
    after = Table.objects.get(pk=full_table.pk)
    assert (after.seq, after.rev, after.last_hash) == (before.seq, before.rev, before.last_hash)
    assert [_seat(full_table, i).online for i in (1, 2)] == [True, False]
    assert opened["state"]["seats"][2]["online"] is False and opened["viewer"] == 2


@pytest.mark.django_db
@pytest.mark.parametrize("ending", ["complete", "dissolved"])
def test_a_session_that_ends_takes_its_seats_offline(players, make_template, club, ending):
    """Presence is kept for open tables only, so the session's end takes every player's seat
    offline in its own transaction: none stays online once its players have left (the fault run's
    'no seat online without a socket')."""

    from apps.tables.verbs import dissolve
    from tests.tables.helpers import play_hand_via_services, ready_all

    table = services.table_open(user=players[0], template=make_template(hands=1))
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    for user in players:
        services.seat_set_online(user=user, table_id=table.pk, online=True)
    assert [_seat(table, i).online for i in range(3)] == [True, True, True]
    if ending == "complete":
        ready_all(table.pk, players)
        play_hand_via_services(table.pk, players)
    else:
        dissolve.table_force_dissolve(user=club.owner, table_id=table.pk)
    table.refresh_from_db()
    assert table.stage == "over" and table.status == ("finished" if ending == "complete" else "dissolved")
    assert [_seat(table, i).online for i in range(3)] == [False, False, False]
    assert TableEvent.objects.filter(table=table).order_by("seq").last().type == "table.end"
