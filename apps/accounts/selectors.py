"""Read-side queries of accounts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import timedelta

from django.utils import timezone

from .models import SeenAddress

SHARED_ADDRESS_DAYS = 30


def shared_address_pairs(*, user_ids: Iterable[int], since=None) -> dict[frozenset[int], set[str]]:
    """Pairs of these users seen at one IP address since ``since`` (default: the last 30 days).

    ``{frozenset({a, b}): {ip, ...}}``; one query, whatever the number of users.
    """
    since = since or timezone.now() - timedelta(days=SHARED_ADDRESS_DAYS)
    by_ip: dict[str, set[int]] = defaultdict(set)
    rows = SeenAddress.objects.filter(user_id__in=list(user_ids), last_seen__gte=since).values_list("ip", "user_id")
    for ip, user_id in rows:
        by_ip[ip].add(user_id)
    pairs: dict[frozenset[int], set[str]] = defaultdict(set)
    for ip, users in by_ip.items():
        ordered = sorted(users)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                pairs[frozenset((a, b))].add(ip)
    return dict(pairs)
