"""Fixed-window rate limits in Django's cache (one shared cache in production: the limits are global).

The one counter of the project for "at most N of these per user / per address a window": sign-up,
password change (apps.accounts.views) and share-code lookups (apps.replays.services). Sign-in is
throttled by django-axes instead (apps.accounts.signin), which counts failures, not requests.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from django.core.cache import cache

# The clock of the windows (the tests hold it still, so a test never straddles two windows).
clock = time.time


def hit(name: str, *, window: int, limits: Iterable[tuple[str, object, int]]) -> int | None:
    """Count one event of ``name`` for every ``(kind, ident, limit)``; seconds to wait when over one.

    ``ident`` None (no user, no address) is not counted. Returns None while every count is within
    its limit, else the seconds until the window ends (for ``Retry-After``).

    >>> hit("doctest", window=60, limits=[("ip", "10.9.9.9", 1)]) is None
    True
    >>> hit("doctest", window=60, limits=[("ip", "10.9.9.9", 1)]) > 0
    True
    """
    now = clock()
    bucket = int(now // window)
    over = False
    for kind, ident, limit in limits:
        if ident is None:
            continue
        key = f"rate:{name}:{kind}:{ident}:{bucket}"
        cache.add(key, 0, timeout=window + 5)
        try:
            count = cache.incr(key)
        except ValueError:  # evicted between add and incr
            cache.set(key, 1, timeout=window + 5)
            count = 1
        over = over or count > int(limit)
    return max(1, window - int(now % window)) if over else None
