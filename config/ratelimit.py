"""What one socket may cost, the pieces shared by the table socket (apps/tables/live/limits.py) and
each page's own socket (apps/accounts/live.py): token buckets per message type, and how many
sockets of one user an endpoint keeps in a process. No app is imported here (import-linter), so
any app may use it.
"""

from __future__ import annotations

import time

# Sockets of one user an endpoint keeps open in a process (at one table, or his own /ws/me/); one
# more is accepted, then closed with 4429, and the page does not try again.
MAX_SOCKETS_PER_USER = 4


class Bucket:
    """A token bucket: ``burst`` at once, then ``rate`` per second.

    >>> b = Bucket(2, 1.0, now=0.0)
    >>> [b.take(now=0.0), b.take(now=0.0), b.take(now=0.0), b.take(now=1.0)]
    [True, True, False, True]
    >>> round(b.wait(now=1.0), 2)
    1.0
    """

    __slots__ = ("burst", "rate", "tokens", "at")

    def __init__(self, burst: int, rate: float, *, now: float | None = None):
        self.burst, self.rate = burst, rate
        self.tokens = float(burst)
        self.at = time.monotonic() if now is None else now

    def take(self, *, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def wait(self, *, now: float | None = None) -> float:
        """Seconds until the next token."""
        now = time.monotonic() if now is None else now
        tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        return max(0.0, (1 - tokens) / self.rate)


class Buckets:
    """One socket's buckets, made as its messages come: ``limits`` maps a message type to its
    ``(burst, per second)``; a type it does not name counts as ``"other"`` (which it must name).

    >>> socket = Buckets({"ping": (1, 1.0), "other": (1, 1.0)})
    >>> [socket.take("ping") is None, socket.take("ping") is None, socket.take("nonsense") is None]
    [True, False, True]
    """

    __slots__ = ("limits", "buckets")

    def __init__(self, limits: dict[str, tuple[int, float]]):
        self.limits = limits
        self.buckets: dict[str, Bucket] = {}

    def take(self, kind: str) -> Bucket | None:
        """None when a message of ``kind`` may go on; else its (empty) bucket."""
        kind = kind if kind in self.limits else "other"
        bucket = self.buckets.get(kind)
        if bucket is None:
            bucket = self.buckets[kind] = Bucket(*self.limits[kind])
        return None if bucket.take() else bucket
