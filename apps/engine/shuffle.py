"""The fixed shuffle of RULES.md §11.7 (never ``random.shuffle``: auditors re-derive decks).

>>> from apps.engine.cards import names
>>> names_in_order = [__import__("apps.engine.cards", fromlist=["card_name"]).card_name(c)
...                   for c in deck_from_seed(bytes(32))[:12]]
>>> " ".join(names_in_order)
'b3 b9 b1 b1 b3 s8 b9 s7 b8 b9 b3 b10'
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator

from .cards import full_deck

SEED_BYTES = 32


def words(seed: bytes) -> Iterator[int]:
    """The word stream: big-endian uint32 words of sha256(seed + counter), counter = 0, 1, …"""
    counter = 0
    while True:
        digest = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i : i + 4], "big")
        counter += 1


def deck_from_seed_reference(seed: bytes) -> list[int]:
    """§11.7 written exactly as RULES.md states it (the readable reference; tests compare)."""
    stream = words(bytes(seed))
    deck = full_deck()
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        w = next(stream)
        while w >= limit:
            w = next(stream)
        j = w % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# (n, rejection limit) for n = 80 … 2: the swaps of the Fisher–Yates loop, in order.
_LIMITS = tuple((n, 2**32 - (2**32 % n)) for n in range(80, 1, -1))


def deck_from_seed(seed: bytes) -> list[int]:
    """Shuffle the 80 cards with the hand's 32-byte seed (Fisher–Yates, rejection sampling).

    The same word stream as ``words``; the first ten digests (80 words) are hashed up front because
    79 swaps almost never reject more than one word.
    """
    if not isinstance(seed, bytes | bytearray) or len(seed) != SEED_BYTES:
        raise ValueError("a seed is exactly 32 bytes")
    seed = bytes(seed)
    sha = hashlib.sha256
    pool = list(struct.unpack(">80I", b"".join(sha(seed + k.to_bytes(8, "big")).digest() for k in range(10))))
    counter, pos = 10, 0
    deck = full_deck()
    for n, limit in _LIMITS:
        while True:
            if pos == len(pool):
                pool.extend(struct.unpack(">8I", sha(seed + counter.to_bytes(8, "big")).digest()))
                counter += 1
            w = pool[pos]
            pos += 1
            if w < limit:
                break
        j = w % n
        deck[n - 1], deck[j] = deck[j], deck[n - 1]
    return deck


def seed_commitment(seed: bytes) -> str:
    """sha256(seed) in hex: published before the deal (RULES.md §9.5)."""
    return hashlib.sha256(seed).hexdigest()


def parse_seed(text: str) -> bytes:
    """A seed as 64 hex digits."""
    try:
        seed = bytes.fromhex(text)
    except (TypeError, ValueError) as exc:
        raise ValueError("a seed is 64 hex digits") from exc
    if len(seed) != SEED_BYTES:
        raise ValueError("a seed is 64 hex digits")
    return seed
