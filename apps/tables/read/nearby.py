"""Who at a table is on one network or close together (issue #47, 同一网络 / 距离很近).

Two facts about pairs of seated players, shown to the seated players only (never to spectators,
never the address or a coordinate itself):

- ``network``: both were seen at one IP address in the last ``NETWORK_DAYS`` days
  (``accounts.selectors.shared_address_pairs`` over ``SeenAddress``: one query for the seats);
- ``distance``: both shared their location at this table (``position_share``): the class of their
  distance (``Closeness``), stored per pair as a ``SeatDistance`` row, never a coordinate.

A shared position is kept in the cache (memory, never the database) for at most
``POSITION_SECONDS`` so a later sharer at the waiting table can be measured against it, and dropped
when its player leaves, when the session starts and when it ends (the writes: transaction/nearby.py). The rule-template options ``forbid_same_network`` /
``forbid_near`` refuse a seat that breaks them (``seat_refusal`` on joining and at a 再来一局,
verbs/rematch.py; a sharer within 100 m of someone seated loses his seat, verbs/services.py
``position_share``). A match's tables drop both (verbs/arranged.py says why).
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.selectors import shared_address_pairs
from apps.tables.models import Closeness, Seat, SeatDistance

NETWORK_DAYS = 7
POSITION_SECONDS = 15 * 60
# Events after which the pairs may have changed (the outbox recomputes them then, never per move).
SEATING_EVENTS = frozenset({"seat.join", "seat.leave", "seat.bot", "nearby.share", "table.open"})


def position_key(table_id: int, user_id: int) -> str:
    return f"tables:position:{table_id}:{user_id}"


def closeness_of(a: tuple[float, float], b: tuple[float, float]) -> str:
    """The distance class of two (lat, lon) points (haversine).

    >>> closeness_of((28.2, 112.9), (28.2004, 112.9))
    'm100'
    >>> closeness_of((28.2, 112.9), (28.21, 112.9))
    'far'
    """
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    metres = 2 * 6_371_000 * math.asin(math.sqrt(h))
    if metres < 100:
        return Closeness.M100
    return Closeness.KM1 if metres < 1000 else Closeness.FAR


def parse_position(lat: Any, lon: Any) -> tuple[float, float] | None:
    """(lat, lon) as numbers in range, or None (the caller refuses and changes nothing)."""
    try:
        if isinstance(lat, bool) or isinstance(lon, bool):
            return None
        lat_f, lon_f = float(lat), float(lon)
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(lat_f) and math.isfinite(lon_f) and -90 <= lat_f <= 90 and -180 <= lon_f <= 180):
        return None
    return lat_f, lon_f


def _seated(seats: list[Seat]) -> dict[int, str]:
    return {s.user_id: s.user.name for s in seats if s.user_id}


def network_pairs(user_ids, *, extra: int | None = None) -> list[tuple[int, int]]:
    """Pairs (low, high) of these users (and ``extra``) seen at one address in the last 7 days."""
    ids = set(user_ids) | ({extra} if extra else set())
    if len(ids) < 2:
        return []
    since = timezone.now() - timedelta(days=NETWORK_DAYS)
    return sorted(tuple(sorted(p)) for p in shared_address_pairs(user_ids=ids, since=since))


def warning_words() -> dict[str, str]:
    """The warning's sentences (``%(a)s``, ``%(b)s``: the pair's names) in the active language, by
    fact: ``"network"`` or a distance class. The table page's (``page_strings``, for
    static/js/table/nearby.js) and the player card's (``pair_lines``)."""
    return {
        "network": _("%(a)s and %(b)s signed in from the same network recently"),
        Closeness.M100: _("%(a)s and %(b)s are very close (within 100 m)"),
        Closeness.KM1: _("%(a)s and %(b)s are close (within 1 km)"),
    }


def page_strings() -> dict[str, str]:
    """The warning's sentences for the table page (static/js/table/nearby.js), beside i18n.py's."""
    words = warning_words()
    return {"nearbyNetwork": words["network"], "nearbyM100": words[Closeness.M100], "nearbyKm1": words[Closeness.KM1]}


def table_nearby(table_id: int, seats: list[Seat]) -> dict[str, list]:
    """``{"network": [{"users", "names"}], "distance": [{"users", "names", "closeness"}]}`` for the
    seated players: what each of them sees (presenters.py), computed when the seating changes."""
    names = _seated(seats)
    out: dict[str, list] = {"network": [], "distance": []}
    if len(names) < 2:
        return out
    for a, b in network_pairs(names):
        out["network"].append({"users": [a, b], "names": [names[a], names[b]]})
    rows = SeatDistance.objects.filter(table_id=table_id, user_low__in=names, user_high__in=names)
    for low, high, closeness in rows.order_by("user_low", "user_high").values_list("user_low", "user_high",
                                                                                  "closeness"):
        if closeness != Closeness.FAR:
            out["distance"].append({"users": [low, high], "names": [names[low], names[high]],
                                    "closeness": closeness})
    return out


def pair_lines(table_id: int, seats: list[Seat], viewer_id: int, other_id: int) -> list[str]:
    """The table warning's lines about ``viewer_id`` and ``other_id`` (the player card a seated
    player opens on another seat): [] unless both are seated players of the table. The same facts
    and words as the table's warning (``table_nearby``, ``warning_words``): two queries when both
    are seated, none otherwise."""
    seated = _seated(seats)
    if viewer_id == other_id or viewer_id not in seated or other_id not in seated:
        return []
    near, words, pair = table_nearby(table_id, seats), warning_words(), sorted((viewer_id, other_id))
    facts = [("network", p) for p in near["network"]] + [(p["closeness"], p) for p in near["distance"]]
    return [words[kind] % {"a": p["names"][0], "b": p["names"][1]}
            for kind, p in facts if sorted(p["users"]) == pair and kind in words]


def seat_refusal(*, table, seats: list[Seat], user) -> str | None:
    """Why the table's seating rules refuse ``user`` a seat (a sentence in his language), or None.

    ``forbid_same_network`` only: a player not seated has shared no position here (his position
    goes when he leaves), so ``forbid_near`` acts when a seated player shares (``position_share``)."""
    names = _seated(seats)
    names.pop(user.pk, None)
    if not names:
        return None
    if table.forbid_same_network:
        for a, b in network_pairs(names, extra=user.pk):
            if user.pk in (a, b):
                other = names[b if a == user.pk else a]
                return _("You and %(name)s signed in from the same network recently; "
                         "this table's rules do not allow you at one table.") % {"name": other}
    return None


def too_near(name: str) -> str:
    return _("You and %(name)s are too close together; "
             "this table's rules do not allow you at one table.") % {"name": name}
