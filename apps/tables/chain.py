"""The hash chain of a table's events: ``hash = sha256(prev_hash + canonical_json(payload))``.

The first event's ``prev_hash`` is 64 zeros. Any edit, insertion or removal in the log breaks the
chain from that point on, which ``verify_chain`` reports.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """Keys sorted, no spaces, UTF-8 kept as is.

    >>> canonical_json({"b": 1, "a": [1, "二"]})
    '{"a":[1,"二"],"b":1}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def link_hash(prev_hash: str, payload: Any) -> str:
    return hashlib.sha256((prev_hash + canonical_json(payload)).encode()).hexdigest()


def seed_commitment(seed: bytes) -> str:
    """sha256 of the raw 32 seed bytes, hex (RULES.md §9.5)."""
    return hashlib.sha256(seed).hexdigest()


def verify_chain(events: Iterable[Any], start_hash: str = GENESIS_HASH, start_seq: int = 0) -> str | None:
    """None when ``events`` (objects with seq/payload/prev_hash/hash, in seq order) chain up; else why not."""
    prev, seq = start_hash, start_seq
    for ev in events:
        if ev.seq != seq + 1:
            return f"seq {ev.seq} follows {seq}"
        if ev.prev_hash != prev:
            return f"seq {ev.seq}: prev_hash does not match the previous event"
        if ev.hash != link_hash(prev, ev.payload):
            return f"seq {ev.seq}: hash does not match its payload"
        prev, seq = ev.hash, ev.seq
    return None
