"""Regressions of the load test (2 Daphne processes): a late cache store after a rolled-back move,
and an action decided on the view of a hand that has ended meanwhile."""

from __future__ import annotations

import pytest

from apps.engine.bots.choose import bot_choose
from apps.engine.play.hand import Hand as EngineHand
from apps.tables.models import Table
from apps.tables.storage import hand_cache
from apps.tables.storage.verify import verify_table_hands
from apps.tables.transaction import transitions
from apps.tables.transaction.context import TableError
from apps.tables.transaction.outbox import view_seq
from apps.tables.transaction.snapshot import table_snapshot
from apps.tables.verbs import play
from tests.tables.helpers import cached, current, play_hand_via_services, ready_all


def _move(eh):
    seat = eh.to_act()[0]
    return seat, bot_choose(eh, seat, kind="random").to_wire()


def _play_one_move(table_id: int, players) -> None:
    table, _, eh = current(table_id)
    seat, action = _move(eh)
    play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action=action)


def _older_entry_copy(table_id: int):
    """This process's cache entry of the table, with its own copy of the engine hand."""
    key, table, hand, engine_hand, seats = hand_cache._entries[table_id]
    return key, table, hand, EngineHand.from_json(engine_hand.to_json()), seats


@pytest.mark.django_db(transaction=True)
def test_late_store_after_a_rolled_back_move_never_serves_a_mutated_hand(full_table, players, monkeypatch):
    hand_cache.clear()
    ready_all(full_table.pk, players)
    _play_one_move(full_table.pk, players)
    table, _, eh = current(full_table.pk)
    assert cached(table) is not None

    # Thread S reads a snapshot; its on_commit store is delayed (a busy server thread).
    late = []
    real_store = hand_cache.store
    monkeypatch.setattr(hand_cache, "store", lambda *a, **kw: late.append((a, kw)))
    table_snapshot(table_id=table.pk, viewer=0)
    monkeypatch.setattr(hand_cache, "store", real_store)
    assert late

    # Thread B takes the cached hand, applies a move and rolls back (an error after the apply).
    def boom(ctx):
        raise RuntimeError("db error after the engine applied the move")

    monkeypatch.setattr(transitions, "after_engine", boom)
    seat, action = _move(eh)
    with pytest.raises(RuntimeError):
        play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action=action)
    monkeypatch.undo()

    for args, kwargs in late:  # S's store finally runs
        hand_cache.store(*args, **kwargs)

    table, _, eh = current(full_table.pk)
    entry = cached(Table.objects.get(pk=table.pk))
    assert entry is None or entry[1].to_json() == eh.to_json(), "the cache serves a half-applied hand"
    play_hand_via_services(full_table.pk, players)
    assert verify_table_hands(full_table.pk)[0] is None


@pytest.mark.django_db(transaction=True)
def test_act_on_the_view_of_an_ended_hand_is_stale_seq_not_no_hand(full_table, players):
    ready_all(full_table.pk, players)
    table, _, eh = current(full_table.pk)
    seat = eh.to_act()[0]
    seen_seq = view_seq(table, seat)
    play_hand_via_services(full_table.pk, players)  # the others finish the hand meanwhile
    table = Table.objects.get(pk=full_table.pk)
    assert table.stage == "settle"
    with pytest.raises(TableError) as err:
        play.hand_act(user=players[seat], table_id=table.pk, seq=seen_seq, action={"type": "pass"})
    assert err.value.code == "stale_seq"
    with pytest.raises(TableError) as err:  # with the current seq there is really no hand
        play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action={"type": "pass"})
    assert err.value.code == "no_hand"


def _pretend_this_process_last_saw(table_id: int, entry) -> None:
    """Put back an older cache entry, as if the moves since had been made by another server process."""
    hand_cache._entries[table_id] = entry


@pytest.mark.django_db(transaction=True)
def test_moves_made_by_another_process_are_caught_up_not_rebuilt(full_table, players, fixed_deals):
    fixed_deals("caught-up")  # a deal that lasts more than five moves
    hand_cache.clear()
    ready_all(full_table.pk, players)
    for _ in range(2):
        _play_one_move(full_table.pk, players)
    older = _older_entry_copy(full_table.pk)
    for _ in range(3):  # "another process" moves on
        assert current(full_table.pk)[1].status == "playing"
        _play_one_move(full_table.pk, players)
    _pretend_this_process_last_saw(full_table.pk, older)
    caught = hand_cache.stats["caught_up"]
    table, hand, eh = current(full_table.pk)  # rebuilt from the rows only
    snap = table_snapshot(table_id=table.pk, viewer=0)
    assert hand_cache.stats["caught_up"] == caught + 1
    assert cached(Table.objects.get(pk=table.pk))[1].to_json() == eh.to_json()
    assert snap["seq"] == view_seq(table, 0)
    play_hand_via_services(full_table.pk, players)
    assert verify_table_hands(full_table.pk)[0] is None


@pytest.mark.django_db(transaction=True)
def test_an_older_entry_of_an_ended_hand_is_not_caught_up(full_table, players):
    hand_cache.clear()
    ready_all(full_table.pk, players)
    _play_one_move(full_table.pk, players)
    older = _older_entry_copy(full_table.pk)
    play_hand_via_services(full_table.pk, players)  # the hand ends (and the next is not dealt yet)
    _pretend_this_process_last_saw(full_table.pk, older)
    caught = hand_cache.stats["caught_up"]
    table, hand, eh = current(full_table.pk)
    table_snapshot(table_id=table.pk, viewer=0)
    assert hand_cache.stats["caught_up"] == caught
    assert cached(Table.objects.get(pk=table.pk))[1].to_json() == eh.to_json()
    assert verify_table_hands(full_table.pk)[0] is None
