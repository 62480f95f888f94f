"""The writes of "close together" (issue #47): a shared position measured against the others', its
distance classes stored (``SeatDistance``), and forgotten when a player leaves or the table ends.
Read side and rules: read/nearby.py. Called under the table's row lock, inside a unit of work."""

from __future__ import annotations

from django.core.cache import cache
from django.db.models import Q

from apps.tables.models import SeatDistance
from apps.tables.read.nearby import POSITION_SECONDS, closeness_of, position_key


def measure(*, table_id: int, user_id: int, position: tuple[float, float], others: list[int]) -> dict[int, str]:
    """Keep ``position`` in memory for a while and store the class of its distance to each of
    ``others`` who shared; ``{other_id: closeness}``. The caller holds the table's row lock."""
    cache.set(position_key(table_id, user_id), position, POSITION_SECONDS)
    found: dict[int, str] = {}
    for other in others:
        theirs = cache.get(position_key(table_id, other))
        if theirs is None or other == user_id:
            continue
        found[other] = closeness = closeness_of(position, tuple(theirs))
        low, high = sorted((user_id, other))
        SeatDistance.objects.update_or_create(table_id=table_id, user_low_id=low, user_high_id=high,
                                              defaults={"closeness": closeness})
    return found


def forget(*, table_id: int, user_id: int | None = None) -> None:
    """A player left the table (``user_id``) or the table ended (``None``): his (or every) pair goes."""
    rows = SeatDistance.objects.filter(table_id=table_id)
    if user_id is not None:
        cache.delete(position_key(table_id, user_id))
        rows = rows.filter(Q(user_low_id=user_id) | Q(user_high_id=user_id))
    rows.delete()
