"""The next transaction of a busy table takes the row lock the moment the last one commits, often
before that one's thread has stored the table in the cache (``hand_cache.expect``): it waits for
that store instead of rebuilding the table from its rows."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from apps.engine.bots.choose import bot_choose
from apps.tables.storage import hand_cache, rows
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play
from tests.tables.helpers import current, ready_all


def _one_move_store_held_back(table_id: int, players, monkeypatch) -> list:
    """Play one move; its after-commit store is recorded, not run (a thread not yet scheduled)."""
    table, _, eh = current(table_id)
    seat = eh.to_act()[0]
    action = bot_choose(eh, seat, kind="random").to_wire()
    held = []
    monkeypatch.setattr(hand_cache, "store", lambda *a, **kw: held.append((a, kw)))
    play.hand_act(user=players[seat], table_id=table_id, seq=view_seq(table, seat), action=action)
    monkeypatch.undo()
    assert held
    return held


def _get_in_another_thread(table_id: int, out: dict) -> threading.Thread:
    def run():
        try:
            with transaction.atomic():
                out["got"] = hand_cache.get(table_id, rows.lock_key(table_id))
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_the_next_transaction_waits_for_the_committed_store_instead_of_rebuilding(full_table, players,
                                                                                   monkeypatch):
    """A hit, not a miss, for the lock taken right after a commit."""
    hand_cache.clear()
    ready_all(full_table.pk, players)
    held = _one_move_store_held_back(full_table.pk, players, monkeypatch)
    monkeypatch.setattr(hand_cache, "EXPECT_WAIT", 30.0)
    before = dict(hand_cache.stats)

    out: dict = {}
    thread = _get_in_another_thread(full_table.pk, out)
    thread.join(0.2)
    assert thread.is_alive(), "the lookup did not wait for the announced store"
    for args, kwargs in held:  # the committing thread finally stores
        hand_cache.store(*args, **kwargs)
    thread.join(30)
    assert not thread.is_alive()

    got = out["got"]
    assert got is not None
    table, hand, engine_hand, seats = got
    assert hand_cache.key_of(table) == rows.lock_key(full_table.pk)
    assert engine_hand.to_json() == current(full_table.pk)[2].to_json()
    assert hand_cache.stats["waited"] == before["waited"] + 1
    assert hand_cache.stats["misses"] == before["misses"]


@pytest.mark.django_db(transaction=True)
def test_a_store_that_never_comes_costs_one_short_wait_then_a_rebuild(full_table, players, monkeypatch):
    hand_cache.clear()
    ready_all(full_table.pk, players)
    _one_move_store_held_back(full_table.pk, players, monkeypatch)  # (never run: as if rolled back)
    monkeypatch.setattr(hand_cache, "EXPECT_WAIT", 0.05)

    out: dict = {}
    _get_in_another_thread(full_table.pk, out).join(30)
    assert out["got"] is None  # a miss: the caller reads the rows
    assert full_table.pk not in hand_cache._expected  # and the next lookup does not wait again


@pytest.mark.django_db(transaction=True)
def test_the_announcing_thread_itself_never_waits(full_table, players, monkeypatch):
    """Inside an outer transaction the store comes at the outer commit: the same thread's next
    table transaction must not wait for it."""
    hand_cache.clear()
    ready_all(full_table.pk, players)
    _one_move_store_held_back(full_table.pk, players, monkeypatch)
    monkeypatch.setattr(hand_cache, "EXPECT_WAIT", 30.0)
    before = dict(hand_cache.stats)
    with transaction.atomic():
        assert hand_cache.get(full_table.pk, rows.lock_key(full_table.pk)) is None
    assert hand_cache.stats["waited"] == before["waited"]
