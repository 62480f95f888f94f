"""An in-process cache of live engine hands, so an action does not rebuild the hand from JSON.

``Hand.from_json`` re-applies every action of the hand (and compares the events): milliseconds per
call, growing with the hand. The state still lives in the DB: an entry (the table's current hand
row and engine hand) is keyed by table id and only used when the table's ``seq`` and ``last_hash``
read under the row lock equal the ones it was stored at (every change of a hand appends an event,
so moves ``seq``); on any miss or mismatch the hand is read and rebuilt from its row. Seats are
always read from their rows (cheap, and an admin may edit them). So a
restarted server, or another Daphne process that moved the table meanwhile, is always correct.

An entry is dropped before the engine hand is mutated (``invalidate``) and stored again only after
the transaction commits (``Ctx.save`` registers ``store`` with ``on_commit``): a rolled-back
transaction can never leave a half-applied hand behind.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

MAX_ENTRIES = 4096

# table id -> (seq, last_hash, hand row, engine hand), as committed at that seq
_entries: OrderedDict[int, tuple[int, str, Any, Any]] = OrderedDict()
_lock = threading.Lock()
stats = {"hits": 0, "misses": 0}


def get(table) -> tuple[Any, Any] | None:
    """``(hand row, engine hand)`` of ``table`` (locked, just read) if cached at its seq.

    The row is a copy (a rolled-back change never reaches the cache); the engine hand is the
    cached object itself, so callers ``invalidate`` before they apply anything to it.
    """
    with _lock:
        entry = _entries.get(table.pk)
        if entry is None or entry[0] != table.seq or entry[1] != table.last_hash:
            stats["misses"] += 1
            return None
        _entries.move_to_end(table.pk)
        stats["hits"] += 1
        _, _, hand, engine_hand = entry
    return copy.copy(hand), engine_hand


def store(table, hand, engine_hand) -> None:
    """Called after commit with the rows as written; tables without a hand are not cached."""
    if hand is None or engine_hand is None:
        return
    with _lock:
        _entries[table.pk] = (table.seq, table.last_hash, copy.copy(hand), engine_hand)
        _entries.move_to_end(table.pk)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)


def invalidate(table_id: int) -> None:
    with _lock:
        _entries.pop(table_id, None)


def clear() -> None:
    with _lock:
        _entries.clear()
