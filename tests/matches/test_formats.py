"""Match formats (apps/matches/formats.py): pure, no database."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.matches import formats as f


@pytest.mark.parametrize(("size", "scale"), [(2, 2), (3, 6), (4, 12)])
def test_points_scale_is_the_lcm(size, scale):
    assert f.points_scale(size) == scale


def test_format_points():
    assert f.format_points(24, 3) == "4"
    assert f.format_points(15, 3) == "2.5"
    assert f.format_points(8, 3) == "1.33"
    assert f.format_points(0, 4) == "0"
    assert f.format_points(-9, 3) == "-1.5"


def test_table_match_points_default_and_ties():
    pts = [4, 2, 0]
    assert f.table_match_points({1: 30, 2: -10, 3: -20}, pts, 3) == {1: 24, 2: 12, 3: 0}
    # Two tied for first share 4+2: 3 each; the third gets 0.
    assert f.table_match_points({1: 10, 2: 10, 3: -20}, pts, 3) == {1: 18, 2: 18, 3: 0}
    # Tied for second share 2+0.
    assert f.table_match_points({1: 10, 2: -5, 3: -5}, pts, 3) == {1: 24, 2: 6, 3: 6}
    # All tied (e.g. every hand 荒庄): 2 each.
    assert f.table_match_points({1: 0, 2: 0, 3: 0}, pts, 3) == {1: 12, 2: 12, 3: 12}
    # Four seats, three tied behind the winner: (4+2+0)/3 = 2 → scaled 24 of 12.
    assert f.table_match_points({1: 9, 2: 1, 3: 1, 4: 1}, [6, 4, 2, 0], 4) == {1: 72, 2: 24, 3: 24, 4: 24}
    # A short table uses the first ranks.
    assert f.table_match_points({1: 5, 2: -5}, pts, 3) == {1: 24, 2: 12}


@settings(max_examples=100, deadline=None)
@given(
    size=st.sampled_from([2, 3, 4]),
    game=st.lists(st.integers(-50, 50), min_size=4, max_size=4),
    raw=st.lists(st.integers(0, 10), min_size=4, max_size=4),
)
def test_property_match_points_sum_and_order(size, game, raw):
    points = sorted(raw[:size], reverse=True)
    gp = {i + 1: g for i, g in enumerate(game[:size])}
    mp = f.table_match_points(gp, points, size)
    scale = f.points_scale(size)
    assert sum(mp.values()) == sum(points) * scale  # nothing lost to rounding
    for a in gp:
        for b in gp:
            if gp[a] > gp[b]:
                assert mp[a] >= mp[b]
            if gp[a] == gp[b]:
                assert mp[a] == mp[b]
    # Exactly the mean of the covered ranks.
    ranked = sorted(gp, key=lambda u: -gp[u])
    for u in gp:
        covered = [i for i, v in enumerate(ranked) if gp[v] == gp[u]]
        assert Fraction(mp[u], scale) == Fraction(sum(points[i] for i in covered), len(covered))


def test_points_by_rank_are_checked():
    for bad in ([4, 2], [4, 2, -1], [2, 4, 0], [4, 2.5, 0], [True, 0, 0]):
        with pytest.raises(ValueError):
            f.table_match_points({1: 1, 2: 0, 3: 0}, bad, 3)
    with pytest.raises(ValueError):
        f.table_match_points({1: 1, 2: 0, 3: 0, 4: 0}, [4, 2, 0], 3)
    with pytest.raises(ValueError):
        f.points_scale(5)


def test_bye_points_is_the_middle_rank():
    assert f.bye_points([4, 2, 0], 3) == 12  # 2 points, scaled by 6
    assert f.format_points(f.bye_points([4, 2, 0], 3), 3) == "2"
    assert f.bye_points([6, 4, 2, 0], 4) == 36  # (4+2)/2 = 3, scaled by 12
    assert f.bye_points([5, 0], 2) == 5  # 2.5 scaled by 2


@dataclass
class Row:
    user_id: int
    match_points: int
    game_points: int
    best_hand: int | None
    registered_order: int


def test_standings_order_tie_breaks():
    rows = [
        Row(1, 12, 5, 10, 1),
        Row(2, 18, -5, 3, 2),  # most match points
        Row(3, 12, 5, 20, 3),  # same MP and GP as 1, better best hand
        Row(4, 12, 9, 0, 4),  # same MP, more game points
        Row(5, 12, 5, 10, 0),  # same as 1 but registered earlier
        Row(6, 12, 5, None, 5),  # never won a hand
    ]
    assert [r.user_id for r in f.standings_order(rows)] == [2, 4, 3, 5, 1, 6]
    dicts = [{"user_id": r.user_id, "match_points": r.match_points, "game_points": r.game_points,
              "best_hand": r.best_hand, "registered_order": r.registered_order} for r in rows]
    assert [r["user_id"] for r in f.standings_order(dicts)] == [2, 4, 3, 5, 1, 6]
    assert f.TIE_BREAKS == ("match_points", "game_points", "best_hand", "registered_order")


def test_elimination_line_rises():
    assert [f.elimination_line(h, 100, 3, 50) for h in range(8)] == [100, 100, 100, 150, 150, 150, 200, 200]
    assert f.elimination_line(99, 100, 0, 50) == 100
    with pytest.raises(ValueError):
        f.elimination_line(-1, 100, 3, 50)


def test_eliminate_below_the_line_but_keep_a_final_table():
    chips = {1: 500, 2: 90, 3: 120, 4: 99, 5: 300, 6: 100}
    assert f.eliminate(chips, 100, 3) == {2, 4}  # 100 is on the line: stays
    # Everyone below but one: the best of those below stay until 3 remain.
    chips = {1: 500, 2: 40, 3: 60, 4: 50}
    assert f.eliminate(chips, 100, 3) == {2}
    assert f.eliminate(chips, 1000, 3) == {2}
    # Ties at the cut go by the standings order given.
    chips = {1: 500, 2: 50, 3: 50, 4: 50}
    assert f.eliminate(chips, 100, 3, order=[1, 3, 4, 2]) == {2}
    assert f.eliminate(chips, 100, 3, order=[1, 2, 3, 4]) == {4}
    assert f.eliminate({1: 5, 2: 5, 3: 5}, 100, 3) == set()
    with pytest.raises(ValueError):
        f.eliminate(chips, 100, 0)


@settings(max_examples=100, deadline=None)
@given(chips=st.dictionaries(st.integers(1, 50), st.integers(-100, 300), min_size=1, max_size=30),
       line=st.integers(-50, 250), keep=st.integers(1, 4))
def test_property_eliminate(chips, line, keep):
    out = f.eliminate(chips, line, keep)
    assert out <= {u for u, c in chips.items() if c < line}
    assert len(chips) - len(out) >= min(keep, len(chips))
    stay = set(chips) - out
    if len(chips) - len(out) > keep:  # nobody below the line was spared
        assert all(chips[u] >= line for u in stay)
    # Nobody out has more chips than a player kept below the line.
    for u in out:
        assert all(chips[u] <= chips[v] for v in stay if chips[v] < line)


def test_knockout_top_per_table_ties_by_standings():
    tables = [
        [{"user_id": 1, "game_points": 10, "best_hand": 5, "registered_order": 3},
         {"user_id": 2, "game_points": 10, "best_hand": 8, "registered_order": 4},
         {"user_id": 3, "game_points": -20, "best_hand": 0, "registered_order": 1}],
        [{"user_id": 4, "game_points": 30, "best_hand": 2, "registered_order": 2},
         {"user_id": 5, "game_points": -10, "best_hand": 0, "registered_order": 5},
         {"user_id": 6, "game_points": -20, "best_hand": 9, "registered_order": 6}],
    ]
    assert f.knockout_advance(tables, 1) == [4, 2]
    assert f.knockout_advance(tables, 2) == [4, 2, 1, 5]
    assert f.knockout_advance([[7, 8, 9], [3, 2, 1]], 1) == [7, 3]
    with pytest.raises(ValueError):
        f.knockout_advance(tables, 0)


def test_table_count_and_final():
    assert f.table_count(13, 3) == (4, 1)
    assert f.table_count(12, 4) == (3, 0)
    assert f.is_final(3, 3) and not f.is_final(4, 3)


def test_prizes_fixed_and_percent():
    assert f.prize_amounts(0, {"kind": "fixed", "amounts": [100, 50, 20]}, 9) == [100, 50, 20]
    assert f.prize_amounts(0, {"kind": "fixed", "amounts": [100, 50, 20]}, 2) == [100, 50]
    assert f.prize_amounts(1000, {"kind": "percent", "percents": [50, 30, 20]}, 9) == [500, 300, 200]
    # Remainder to first.
    assert f.prize_amounts(101, {"kind": "percent", "percents": [50, 30, 20]}, 9) == [51, 30, 20]
    assert f.prize_amounts(10, {"kind": "percent", "percents": [34, 33, 33]}, 9) == [4, 3, 3]
    # Fewer entrants than places: the unreached share goes to first.
    assert f.prize_amounts(100, {"kind": "percent", "percents": [50, 30, 20]}, 2) == [70, 30]
    assert f.prize_amounts(100, {"kind": "percent", "percents": [100]}, 0) == []


@pytest.mark.parametrize("scheme", [
    {"kind": "percent", "percents": [50, 30]},
    {"kind": "percent", "percents": [50, 60, -10]},
    {"kind": "percent", "percents": []},
    {"kind": "percent", "percents": [50.5, 49.5]},
    {"kind": "fixed", "amounts": [10, -1]},
    {"kind": "bonus"},
    "percent",
])
def test_bad_prize_schemes(scheme):
    with pytest.raises(ValueError):
        f.prize_amounts(100, scheme, 9)


@settings(max_examples=100, deadline=None)
@given(pool=st.integers(0, 10**9), cuts=st.lists(st.integers(0, 100), min_size=1, max_size=8),
       entrants=st.integers(1, 300))
def test_property_percent_prizes_sum_to_the_pool(pool, cuts, entrants):
    total = sum(cuts) or 1
    percents = [c * 100 // total for c in cuts]
    percents[0] += 100 - sum(percents)
    amounts = f.prize_amounts(pool, {"kind": "percent", "percents": percents}, entrants)
    assert sum(amounts) == pool
    assert len(amounts) == min(len(percents), entrants)
    assert all(isinstance(a, int) and a >= 0 for a in amounts)
