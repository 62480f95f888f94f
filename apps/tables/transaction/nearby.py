"""The writes of "close together" (issue #47): a shared position measured against the others', its
distance classes stored (``SeatDistance``), and forgotten when a player leaves or the table ends.
Read side and rules: read/nearby.py. Called under the table's row lock, inside a unit of work.

A position is needed only until the other seated players have shared theirs and been measured
against it, which can happen only while the table waits (``position_share`` refuses after that):
it is dropped when its player leaves (or his seat is given to another), when the session starts
(``drop_positions``) and when it ends (``forget``), and the cache lets it go after
``POSITION_SECONDS`` in any case. The distance classes stay for the session."""

from __future__ import annotations

from collections.abc import Iterable

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


def drop_positions(*, table_id: int, user_ids: Iterable[int]) -> None:
    """These players' positions at the table go from the cache (their distance classes stay)."""
    keys = [position_key(table_id, user_id) for user_id in user_ids]
    if keys:
        cache.delete_many(keys)


def forget(*, table_id: int, user_id: int | None = None, seated: Iterable[int] = ()) -> None:
    """A player left the table (``user_id``): his position and his pairs go. The table ended
    (``user_id`` None): every pair goes, and the positions of the ``seated`` players (a player
    who left took his with him)."""
    rows = SeatDistance.objects.filter(table_id=table_id)
    if user_id is not None:
        drop_positions(table_id=table_id, user_ids=[user_id])
        rows = rows.filter(Q(user_low_id=user_id) | Q(user_high_id=user_id))
    else:
        drop_positions(table_id=table_id, user_ids=seated)
    rows.delete()
