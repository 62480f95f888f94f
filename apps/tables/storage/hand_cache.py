"""An in-process cache of live tables' rows and engine hands, so an action reads three columns.

Rebuilding a hand means reading its row and its logged actions and re-applying them; reading the
table and its seats are two more queries. The state still lives in the DB: an entry (the table row,
its current hand row and engine hand, its seat rows) is keyed by table id and only used when the
table's ``rev``, ``seq`` and ``last_hash``, read under the row lock (``rows.lock_key``), equal the
ones it was stored at (``Ctx.save`` bumps ``rev`` in every table transaction, whatever it changed,
and nothing else writes a table's or a seat's live columns); on any miss or mismatch everything is
read and rebuilt from the rows. So a restarted server, or another Daphne process that moved the
table meanwhile, is always correct. Rows are handed out as copies: a rolled-back change to a table,
seat or hand object never reaches the cache.

An entry is dropped before the engine hand is mutated (``invalidate``) and stored again only after
the transaction commits (``Ctx.save`` registers ``store`` with ``on_commit``): a rolled-back
transaction can never leave a half-applied hand behind.

A store registered by an earlier transaction (or a snapshot read) runs *after* its commit, so it may
come late: after a later transaction of the same process took the cached engine hand, invalidated
the entry and started to apply a move to that very object. Stored then, the entry would map the old
``seq`` to a mutated hand, and if that later transaction rolls back, the next action at that ``seq``
would be checked and applied on a hand that differs from the rows (its log would no longer replay).
So every ``invalidate`` bumps the table's generation, a ``Ctx`` remembers the generation it saw
(after its own ``invalidate``), and ``store`` is refused when the generation moved since.

The next transaction of a busy table often takes the row lock the moment the last one commits,
before that one's thread has run its ``store``: it would find no entry and rebuild everything. So a
transaction announces its store before it commits (``expect``), and ``get``, finding the key it just
read under the lock announced, waits (briefly, without the GIL) for that store instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

MAX_ENTRIES = 4096

# table id -> ((rev, seq, last_hash), table row, hand row or None, engine hand or None, seat rows),
# as committed
_entries: OrderedDict[int, tuple[tuple, Any, Any, Any, list]] = OrderedDict()
# table id -> generation, bumped by every ``invalidate`` (a global counter: never reused)
_generations: dict[int, int] = {}
_counter = 0
_lock = threading.Lock()
_stored = threading.Condition(_lock)
# table id -> (the key a transaction of this process will store once it has committed, its thread)
_expected: dict[int, tuple[tuple, int]] = {}
EXPECT_WAIT = 0.1  # seconds ``get`` waits for an announced store (a rolled-back one never comes)
stats = {"hits": 0, "misses": 0, "refused": 0, "caught_up": 0, "waited": 0}


def generation(table_id: int) -> int:
    with _lock:
        return _generations.get(table_id, 0)


def key_of(table) -> tuple:
    return (table.rev, table.seq, table.last_hash)


# The table's JSON columns that a transaction may change: copied with the row (replaced, never
# changed in place, by the code today; a copy keeps a rolled-back change out of the cache anyway).
_TABLE_JSON = ("view_seqs", "deadline_info", "dissolve_votes")


def _copy_row(obj):
    """``copy.copy`` of a model instance (what ``Model.__getstate__`` copies: the attributes, the
    instance state and its cache of related objects), without pickling's generic machinery."""
    out = object.__new__(type(obj))
    attrs = obj.__dict__.copy()
    old = attrs["_state"]
    state = attrs["_state"] = object.__new__(type(old))
    state.__dict__ = old.__dict__.copy()
    if "fields_cache" in state.__dict__:
        state.fields_cache = dict(state.fields_cache)
    out.__dict__ = attrs
    return out


def _copy_json(value):
    """A deep copy of a JSON value (dicts, lists and scalars), without ``deepcopy``'s memo."""
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value


def _copy_table(table):
    out = _copy_row(table)
    for name in _TABLE_JSON:
        value = getattr(out, name)
        if isinstance(value, dict):
            setattr(out, name, _copy_json(value))
    return out


def get(table_id: int, key: tuple) -> tuple[Any, Any, Any, list] | None:
    """``(table row, hand row, engine hand, seat rows)`` of the table if cached at ``key`` (its
    ``(rev, seq, last_hash)`` just read under the row lock).

    The rows are copies (a rolled-back change never reaches the cache); the hand is None before
    the first deal. The engine hand is the cached object itself, so callers ``invalidate`` before
    they apply anything to it.
    """
    with _lock:
        entry = _entries.get(table_id)
        expected = _expected.get(table_id)
        if ((entry is None or entry[0] != key) and expected is not None and expected[0] == key
                and expected[1] != threading.get_ident()):  # (in its own thread: not yet committed)
            stats["waited"] += 1  # committed, not yet stored: wait for it rather than rebuild
            if not _stored.wait_for(lambda: _expected.get(table_id) != expected, timeout=EXPECT_WAIT):
                _expected.pop(table_id, None)  # (rolled back after all)
            entry = _entries.get(table_id)
        if entry is None or entry[0] != key:
            stats["misses"] += 1
            return None
        _entries.move_to_end(table_id)
        stats["hits"] += 1
        _, table, hand, engine_hand, seats = entry
    return (_copy_table(table), None if hand is None else _copy_row(hand), engine_hand,
            [_copy_row(s) for s in seats])


def expect(table) -> None:
    """Before the commit: this transaction will ``store`` the table at its key once committed."""
    with _lock:
        _expected[table.pk] = (key_of(table), threading.get_ident())


def store(table, hand, engine_hand, gen: int | None = None, seats: list | None = None) -> None:
    """Called after commit with the rows as written (the table, its seats, its hand if any).

    ``gen`` is the generation the caller saw (``Ctx.cache_gen``); a store that comes after another
    transaction invalidated the entry (it may be mutating this engine hand now) is refused.
    """
    with _lock:
        if _expected.pop(table.pk, None) is not None:
            _stored.notify_all()
        if seats is None or (hand is None) != (engine_hand is None):
            return
        if gen is not None and _generations.get(table.pk, 0) != gen:
            stats["refused"] += 1
            return
        _entries[table.pk] = (key_of(table), _copy_table(table), None if hand is None else _copy_row(hand),
                              engine_hand, [_copy_row(s) for s in seats])
        _entries.move_to_end(table.pk)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)


def take_older(table) -> tuple[int, Any, Any] | None:
    """For catching up: the entry of ``table`` if it was stored at an older ``seq`` (another process
    has moved the table since), as ``(seq, hand row copy, engine hand)``.

    The entry is dropped first (``invalidate``): the caller, under the row lock, applies the newer
    logged moves to that engine hand, and only its own commit stores it again.
    """
    with _lock:
        entry = _entries.get(table.pk)
        if entry is None or entry[0][1] >= table.seq or entry[2] is None:
            return None
        (_, seq, _), _, hand, engine_hand, _ = entry
    invalidate(table.pk)
    return seq, _copy_row(hand), engine_hand


def invalidate(table_id: int) -> int:
    """Drop the entry before its engine hand is mutated; returns the table's new generation."""
    global _counter
    with _lock:
        _entries.pop(table_id, None)
        _counter += 1
        _generations[table_id] = _counter
        return _counter


def clear() -> None:
    with _lock:
        _entries.clear()
        _expected.clear()
