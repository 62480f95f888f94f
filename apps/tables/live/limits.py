"""What one table socket may cost: messages per second, sockets per user, and the ids it acknowledged.

- Every client message is counted against a token bucket of its type, per socket (``LIMITS``:
  a burst, then a steady rate; unknown types and unreadable frames share ``other``). A message
  over its limit is answered ``rate_limited`` and nothing else happens: no database call, no lock.
  The numbers leave a real player far below them (a move every few seconds, a resync after a gap).
  The buckets are config/ratelimit.py's, which the page's own socket (/ws/me/) uses too.
- A user has at most ``MAX_SOCKETS_PER_USER`` (config/ratelimit.py) sockets at one table in a
  process (nginx sends every socket of a table to the same process: deploy/README.md), so a
  script cannot pile up sockets.
- A seat sends at most one 快捷语 or reaction every ``PHRASE_EVERY`` seconds and
  ``PHRASE_PER_MINUTE`` in any minute (``SeatPhrases``, issue #47), whatever the number of its player's
  sockets (this process's memory: every socket of a table reaches one process, as for ``Acked``).
- ``Acked`` remembers the moves (``act``) a user's sockets had applied at a table, by the page's id
  (the last ``ACKED_KEEP`` of the process): the page resends a tap it saw no ``ack`` for after a
  reconnect, and that resend is acknowledged as a duplicate (its seq, now stale, already kept it
  from being applied twice) instead of being refused as ``stale_seq``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict, deque
from typing import Any

from config.ratelimit import MAX_SOCKETS_PER_USER, Buckets

__all__ = ["LIMITS", "MAX_SOCKETS_PER_USER", "RATE_LIMITED_MESSAGE", "Acked", "SeatPhrases", "acked", "phrases",
           "socket_buckets"]

# type -> (burst, per second). ``resync``: as before issue #41 (consumers.RESYNC_BURST/RESYNC_EVERY).
LIMITS: dict[str, tuple[int, float]] = {
    "act": (10, 5.0),
    "resync": (5, 1.0),
    "ready": (5, 1.0),
    "piao": (5, 1.0),
    "dissolve": (5, 1.0),
    "tuoguan": (5, 1.0),
    "ping": (10, 2.0),  # the page's heartbeat: every 4 s of quiet, or about one a second while its player has a move
    "phrase": (3, 1.0),  # a 快捷语 frame (its real limit is per seat: ``SeatPhrases``)
    "other": (10, 1.0),  # unknown types, bad JSON, too large, a bad id
}
RATE_LIMITED_MESSAGE = "操作太频繁，请稍候再试。"  # (zh-hans: the site's language; the page may show it as is)


def socket_buckets() -> Buckets:
    """A new table socket's buckets (``LIMITS``)."""
    return Buckets(LIMITS)


ACKED_KEEP = 20000


class Acked:
    """The moves applied here lately, by ``(table, user, id)``, each with what it carried (the
    ``seq`` and the action); the oldest forgotten first. An id is unique per page load only: a
    page loaded again counts from the start. Its resend is the same move only when it carries the
    same seq and action too, and a fresh page cannot: the move applied at that seq moved the
    viewer's number past it before that page was sent its state.

    >>> acked = Acked(keep=2)
    >>> for i in (100, 101, 102):
    ...     acked.add((1, 7, i), (5, {"type": "discard", "card": "s3"}))
    >>> acked.holds((1, 7, 100), (5, {"type": "discard", "card": "s3"}))
    False
    >>> acked.holds((1, 7, 102), (5, {"card": "s3", "type": "discard"}))
    True
    >>> acked.holds((1, 7, 102), (6, {"type": "discard", "card": "s3"}))
    False
    """

    def __init__(self, keep: int = ACKED_KEEP):
        self.keep = keep
        self.moves: OrderedDict[tuple[int, int, int], str] = OrderedDict()

    def add(self, key: tuple[int, int, int], move: Any) -> None:
        self.moves[key] = _canonical(move)
        self.moves.move_to_end(key)
        while len(self.moves) > self.keep:
            self.moves.popitem(last=False)

    def holds(self, key: tuple[int, int, int], move: Any) -> bool:
        known = self.moves.get(key)
        return known is not None and known == _canonical(move)

    def clear(self) -> None:
        self.moves.clear()


def _canonical(move: Any) -> str:
    return json.dumps(move, sort_keys=True, separators=(",", ":"), default=str)


acked = Acked()


PHRASE_EVERY = 3.0  # seconds between two phrases of one seat ...
PHRASE_PER_MINUTE = 10  # ... and at most this many a minute
PHRASES_KEEP = 20000  # the seats remembered (the oldest forgotten first: a forgotten one starts afresh)


class SeatPhrases:
    """The 快捷语 limits of each seat, by ``(table id, user id)``: at least ``every`` seconds between
    two phrases, and at most ``per_minute`` in any 60 seconds (the times of the last ones kept).
    A refused phrase counts for nothing. Thread-safe: the phrase verb asks from the database threads.

    >>> limit = SeatPhrases(every=3.0, per_minute=2)
    >>> [limit.take((1, 7), now=t) for t in (0.0, 1.0, 3.0, 6.0, 60.0)]
    [None, 2.0, None, 54.0, None]
    >>> limit.take((1, 8), now=60.0) is None  # another seat: its own limits
    True
    """

    def __init__(self, *, every: float = PHRASE_EVERY, per_minute: int = PHRASE_PER_MINUTE,
                 keep: int = PHRASES_KEEP):
        self.every, self.per_minute, self.keep = every, per_minute, keep
        self.seats: OrderedDict[tuple[int, int], deque[float]] = OrderedDict()
        self.lock = threading.Lock()

    def take(self, key: tuple[int, int], *, now: float | None = None) -> float | None:
        """None: the seat may send now (counted); else the seconds until it may (nothing counted)."""
        now = time.monotonic() if now is None else now
        with self.lock:
            sent = self.seats.get(key)
            if sent is None:
                sent = self.seats[key] = deque(maxlen=self.per_minute)
                while len(self.seats) > self.keep:
                    self.seats.popitem(last=False)
            self.seats.move_to_end(key)
            wait = self.every - (now - sent[-1]) if sent else 0.0
            if len(sent) == self.per_minute:
                wait = max(wait, 60.0 - (now - sent[0]))
            if wait > 0:
                return round(wait, 2)
            sent.append(now)
            return None

    def clear(self) -> None:
        with self.lock:
            self.seats.clear()


phrases = SeatPhrases()
