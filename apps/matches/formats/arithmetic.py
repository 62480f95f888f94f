"""The arithmetic the match formats share: match points, standings, elimination, knockout, byes, prizes.

No Django here (import-linter contract): the services feed plain numbers and rows in and store what
comes out, so every rule below is unit- and property-tested without a database.

Match points (定局积分)
    Each table's players are ranked by the game points they won at that table in the round; rank r
    earns ``points_by_rank[r]`` (default 4/2/0 for three seats). Players tied on game points share
    the points of the ranks they cover equally (two players tied for first at a 4/2/0 table get 3
    each). Shares are exact because match points are stored as integers scaled by
    ``points_scale(table_size)`` = lcm(1 … table_size): every split of k tied ranks divides evenly.

Standings (tie-breaks, printed on the match page)
    match points → game points → best single hand → earlier registration (then user id, so the
    order is total).

Byes
    When the entrants do not divide into tables, the ``n % table_size`` lowest-ranked players who
    have not had a bye yet sit the round out (seating.py) and score ``bye_points``: the points of the
    middle rank (for 4/2/0: 2), the mean of the two middle ranks for an even table size. A bye
    earns no game points and no best hand.

打立出局 (elimination by score)
    The line starts at ``start`` and rises by ``rise_by`` every ``rise_every`` hands (涨底). After a
    hand, players whose chips are below the line are out, but never so many that fewer than
    ``keep_min`` (one full final table) stay: then the best of those below the line stay (chips,
    then the given standings order).

Knockout (淘汰赛)
    Each table's top ``top`` players advance (by the table's standings order); the advancing list
    is ordered table winners first, then seconds, … — each group by the standings order — so it can
    be seated by standings directly.

Prizes
    ``{"kind": "fixed", "amounts": [...]}``: those amounts for places 1, 2, …; or
    ``{"kind": "percent", "percents": [...]}`` summing to 100: ``pool * p // 100`` per place, and the
    rounding remainder (and the share of places nobody reached, when there are fewer entrants than
    places) goes to 1st place, so the amounts always sum to the pool exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

DEFAULT_POINTS_BY_RANK = {2: [2, 0], 3: [4, 2, 0], 4: [6, 4, 2, 0]}

TIE_BREAKS = ("match_points", "game_points", "best_hand", "registered_order")


def _check_table_size(table_size: int) -> None:
    if isinstance(table_size, bool) or not isinstance(table_size, int) or not 2 <= table_size <= 4:
        raise ValueError("a table has 2, 3 or 4 seats")


def points_scale(table_size: int) -> int:
    """The factor stored match points are multiplied by: lcm(1 … table_size), so ties split exactly."""
    _check_table_size(table_size)
    return math.lcm(*range(1, table_size + 1))


def format_points(value: int, table_size: int) -> str:
    """Scaled match points for display: ``"4"``, ``"3"``, ``"2.5"``, ``"1.33"`` (two decimals at most)."""
    frac = Fraction(value, points_scale(table_size))
    if frac.denominator == 1:
        return str(frac.numerator)
    text = f"{float(frac):.2f}".rstrip("0").rstrip(".")
    return text


def check_points_by_rank(points_by_rank: Sequence[int], table_size: int) -> list[int]:
    """Validate a points-by-rank list: one non-negative integer per seat, never rising."""
    _check_table_size(table_size)
    points = list(points_by_rank)
    if len(points) != table_size:
        raise ValueError(f"points by rank need one value per seat ({table_size})")
    if any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in points):
        raise ValueError("points by rank are non-negative integers")
    if any(a < b for a, b in zip(points, points[1:], strict=False)):
        raise ValueError("points by rank never rise from one rank to the next")
    return points


def table_match_points(
    game_points: Mapping[int, int], points_by_rank: Sequence[int], table_size: int
) -> dict[int, int]:
    """Scaled match points for one table: rank by game points (highest first), ties split the ranks.

    A table with fewer players than seats (a short final) uses the first ranks only.
    """
    points = check_points_by_rank(points_by_rank, table_size)
    scale = points_scale(table_size)
    if len(game_points) > table_size:
        raise ValueError("more players than seats at one table")
    ordered = sorted(game_points.items(), key=lambda kv: (-kv[1], kv[0]))
    result: dict[int, int] = {}
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1][1] == ordered[i][1]:
            j += 1
        share = sum(points[i : j + 1]) * scale
        each, rest = divmod(share, j - i + 1)
        assert rest == 0  # lcm(1..table_size) makes every split exact
        for user_id, _ in ordered[i : j + 1]:
            result[user_id] = each
        i = j + 1
    return result


def bye_points(points_by_rank: Sequence[int], table_size: int) -> int:
    """Scaled match points for a bye: the middle rank's points (mean of the two middle ranks if even)."""
    points = check_points_by_rank(points_by_rank, table_size)
    scale = points_scale(table_size)
    mid = table_size // 2
    if table_size % 2:
        return points[mid] * scale
    return (points[mid - 1] + points[mid]) * scale // 2


def _field(row: Any, name: str, default: Any = 0) -> Any:
    if isinstance(row, Mapping):
        return row.get(name, default)
    return getattr(row, name, default)


def standings_key(row: Any) -> tuple:
    """Sort key of one row (best first): match points, game points, best hand, registration, user id."""
    best = _field(row, "best_hand", 0)
    return (
        -int(_field(row, "match_points", 0) or 0),
        -int(_field(row, "game_points", 0) or 0),
        -int(best if best is not None else 0),
        _field(row, "registered_order", 0) or 0,
        _field(row, "user_id"),
    )


def standings_order(rows: Iterable[Any]) -> list:
    """Rows (dicts or objects with user_id, match_points, game_points, best_hand, registered_order)
    sorted best first by the printed tie-breaks."""
    return sorted(rows, key=standings_key)


# 打立出局 -----------------------------------------------------------------------------------------


def elimination_line(hands_played: int, start: int, rise_every: int, rise_by: int) -> int:
    """The elimination line after ``hands_played`` hands: ``start`` raised by ``rise_by`` every
    ``rise_every`` hands (``rise_every`` 0: the line never rises)."""
    if hands_played < 0 or rise_every < 0:
        raise ValueError("hands played and rise_every are never negative")
    if rise_every == 0:
        return start
    return start + (hands_played // rise_every) * rise_by


def eliminate(
    chips: Mapping[int, int], line: int, keep_min: int, *, order: Sequence[int] | None = None
) -> set[int]:
    """Who is out: chips below ``line``, but at least ``keep_min`` players stay.

    When cutting everyone below the line would leave fewer than ``keep_min``, the best of them stay
    (more chips first, then their place in ``order`` — the standings order — then the user id).
    """
    if keep_min < 1:
        raise ValueError("keep_min is at least 1")
    rank = {u: i for i, u in enumerate(order or ())}
    below = [u for u, c in chips.items() if c < line]
    can_cut = max(0, len(chips) - keep_min)
    if len(below) <= can_cut:
        return set(below)
    # Keep the best of those below the line until keep_min stay.
    below.sort(key=lambda u: (-chips[u], rank.get(u, len(rank)), u))
    return set(below[len(below) - can_cut :]) if can_cut else set()


def is_final(remaining: int, table_size: int) -> bool:
    """The rest fits one table: the final plays for the places."""
    return remaining <= table_size


# Knockout ---------------------------------------------------------------------------------------


def knockout_advance(table_results: Iterable[Sequence[Any]], top: int) -> list[int]:
    """The top ``top`` of each table advance.

    ``table_results``: per table, either rows (dicts/objects with user_id, game_points, best_hand,
    registered_order, optional match_points) — ranked here by ``standings_order`` — or user ids
    already in the table's order. Returns the advancing ids: every table's 1st (best first by the
    standings order), then every 2nd, …
    """
    if top < 1:
        raise ValueError("at least one player per table advances")
    by_place: list[list[tuple[tuple, int]]] = []
    for table_no, table in enumerate(table_results):
        rows = list(table)
        if rows and all(isinstance(r, int) and not isinstance(r, bool) for r in rows):
            # Already ordered: within a place, earlier tables first.
            ranked = [((0, 0, 0, table_no, u), u) for u in rows]
        else:
            ranked = [(standings_key(r), _field(r, "user_id")) for r in standings_order(rows)]
        for place, item in enumerate(ranked[:top]):
            while len(by_place) <= place:
                by_place.append([])
            by_place[place].append(item)
    result: list[int] = []
    for group in by_place:
        result.extend(u for _, u in sorted(group, key=lambda kv: kv[0]))
    return result


# Tables and byes ------------------------------------------------------------------------------


def table_count(entrants: int, table_size: int) -> tuple[int, int]:
    """(full tables, byes) for ``entrants`` players at ``table_size`` seats."""
    _check_table_size(table_size)
    if entrants < 0:
        raise ValueError("entrants are never negative")
    return divmod(entrants, table_size)


# Prizes -----------------------------------------------------------------------------------------


def check_prize_scheme(scheme: Mapping[str, Any]) -> dict:
    """Validate a prize scheme; returns a clean copy or raises ValueError with the reason."""
    if not isinstance(scheme, Mapping):
        raise ValueError("a prize scheme is an object with a kind")
    kind = scheme.get("kind")
    if kind == "fixed":
        amounts = list(scheme.get("amounts") or [])
        if any(isinstance(a, bool) or not isinstance(a, int) or a < 0 for a in amounts):
            raise ValueError("fixed prizes are non-negative integers")
        return {"kind": "fixed", "amounts": amounts}
    if kind == "percent":
        percents = list(scheme.get("percents") or [])
        if not percents:
            raise ValueError("percentage prizes need at least one place")
        if any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in percents):
            raise ValueError("prize percentages are non-negative integers")
        if sum(percents) != 100:
            raise ValueError("prize percentages must add up to 100")
        return {"kind": "percent", "percents": percents}
    raise ValueError("a prize scheme's kind is fixed or percent")


def prize_amounts(pool: int, scheme: Mapping[str, Any], entrants: int) -> list[int]:
    """Integer prizes for places 1, 2, … (at most one per entrant).

    Fixed: the scheme's amounts (independent of the pool). Percent: ``pool * p // 100`` each and
    the remainder to 1st place, so the list sums to ``pool`` exactly whenever anyone entered.
    """
    clean = check_prize_scheme(scheme)
    if pool < 0 or entrants < 0:
        raise ValueError("pool and entrants are never negative")
    if entrants == 0:
        return []
    if clean["kind"] == "fixed":
        return clean["amounts"][:entrants]
    percents = clean["percents"][:entrants]
    amounts = [pool * p // 100 for p in percents]
    amounts[0] += pool - sum(amounts)
    return amounts
