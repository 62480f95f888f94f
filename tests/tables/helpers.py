"""Test helpers: play a table's hands through the services, choosing like a bot would."""

from __future__ import annotations

import random

from apps.engine.bots.choose import bot_choose
from apps.tables.models import Hand, Table
from apps.tables.storage import hand_cache
from apps.tables.transaction.context import current_hand
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play, services


def current(table_id: int):
    """The table, its last hand row and the engine hand rebuilt from the rows only (no cache)."""
    table = Table.objects.get(pk=table_id)
    hand, engine_hand = current_hand(table)
    return table, hand, engine_hand


def play_hand_via_services(table_id: int, users: list, rng: random.Random | None = None, *, kind: str = "random",
                           max_steps=2000) -> Hand:
    """Every human decision goes through ``play.hand_act`` with the current seq, chosen by a
    ``kind`` bot: "greedy" ones win most hands (random ones mostly draw)."""
    rng = rng or random.Random(1)
    for _ in range(max_steps):
        table, hand, eh = current(table_id)
        if hand is None or hand.status != "playing":
            return hand
        seat = eh.to_act()[0]
        action = bot_choose(eh, seat, kind=kind, rng=rng)
        play.hand_act(user=users[seat], table_id=table_id, seq=view_seq(table, seat), action=action.to_wire())
    raise AssertionError("hand did not end")


def ready_all(table_id: int, users: list) -> None:
    for user in users:
        services.seat_ready(user=user, table_id=table_id)


def open_and_play_hand(template, users: list, rng: random.Random | None = None, *, kind: str = "random") -> Hand:
    """Open a table from ``template`` (users[0] opens, the others join), everyone readies, and the
    first hand is played to its end through the services; returns that hand's row."""
    table = services.table_open(user=users[0], template=template)
    for user in users[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, users)
    return play_hand_via_services(table.pk, users, rng=rng, kind=kind)


def cached(table):
    """This process's hand cache entry for ``table`` at its current key, as ``(hand row, engine
    hand, seat rows)``, or None."""
    entry = hand_cache.get(table.pk, hand_cache.key_of(table))
    return None if entry is None else entry[1:]
