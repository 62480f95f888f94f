"""The hash chain of a table's event log and the seed commitment (standard library only).

Each stored event links to the one before it: ``hash = sha256(prev_hash + canonical_json(payload))``
(hex), the first event of a table has ``prev_hash = GENESIS_HASH`` (64 zeros). Any edit, insertion,
removal or reordering breaks the chain from that point on, which ``verify_chain`` reports. The
platform writes the chain (apps/tables), exports it (apps/replays) and anyone re-checks it with
``python -m apps.engine verify`` (EXPORT.md beside this file).

>>> link_hash(GENESIS_HASH, {"a": 1})[:16]
'fc6cee09194dd257'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from ..shuffle import seed_commitment  # sha256(seed), hex: published before the deal (RULES.md §9.5)

GENESIS_HASH = "0" * 64

__all__ = ["GENESIS_HASH", "canonical_json", "link_hash", "seed_commitment", "verify_chain"]


def canonical_json(value: Any) -> str:
    """Keys sorted, no spaces, UTF-8 kept as is.

    >>> canonical_json({"b": 1, "a": [1, "二"]})
    '{"a":[1,"二"],"b":1}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def link_hash(prev_hash: str, payload: Any) -> str:
    """The hash of an event with ``payload`` that follows an event whose hash is ``prev_hash``."""
    return hashlib.sha256((prev_hash + canonical_json(payload)).encode()).hexdigest()


def _get(ev: Any, name: str) -> Any:
    return ev[name] if isinstance(ev, dict) else getattr(ev, name)


def verify_chain(events: Iterable[Any], start_hash: str = GENESIS_HASH, start_seq: int = 0) -> str | None:
    """None when ``events`` chain up from ``(start_seq, start_hash)``; else the first break, in words.

    ``events`` are objects (or dicts) with ``seq``, ``payload``, ``prev_hash`` and ``hash``, in seq
    order. The first event must have seq ``start_seq + 1`` and ``prev_hash == start_hash``.
    """
    prev, seq = start_hash, start_seq
    for ev in events:
        ev_seq = _get(ev, "seq")
        if ev_seq != seq + 1:
            return f"seq {ev_seq} follows {seq}"
        if _get(ev, "prev_hash") != prev:
            return f"seq {ev_seq}: prev_hash does not match the previous event"
        if _get(ev, "hash") != link_hash(prev, _get(ev, "payload")):
            return f"seq {ev_seq}: hash does not match its payload"
        prev, seq = _get(ev, "hash"), ev_seq
    return None
