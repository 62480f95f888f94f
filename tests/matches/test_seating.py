"""Seating (apps/matches/seating.py): pure, no database.

Property tests build a valid seating first (a hidden partition of the field), then forbid random
pairs outside it as earlier meetings or avoid pairs, so a seating with no repeat and no broken avoid
pair provably exists; seat_round must find one.
"""

from __future__ import annotations

import hashlib
import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.engine.shuffle import words
from apps.matches import seating
from apps.matches.seating import pick_byes, rebalance, round_seed, seat_round, shuffle_players

SEED = hashlib.sha256(b"match seed").digest()


def pairs_of(tables):
    return {frozenset(p) for t in tables for p in itertools.combinations(t, 2)}


def check_partition(s, players, table_size):
    seated = [u for t in s.tables for u in t]
    assert sorted(seated + s.byes) == sorted(players)
    assert len(set(seated)) == len(seated)
    assert all(len(t) == table_size for t in s.tables)
    assert len(s.byes) == len(players) % table_size


def reference_shuffle(ids, seed):
    """RULES.md §11.7 written out again: uniform(n) by rejection, Fisher–Yates from the top."""
    deck = sorted(ids)
    stream = words(seed)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        w = next(stream)
        while w >= limit:
            w = next(stream)
        j = w % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def partitions(players, table_size):
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for mates in itertools.combinations(rest, table_size - 1):
        left = [u for u in rest if u not in mates]
        for tail in partitions(left, table_size):
            yield [[first, *mates], *tail]


def best_counts(seated, table_size, met, avoid):
    """Brute force: the least (avoid pairs broken, repeats) over every partition of ``seated``."""
    best = None
    for tables in partitions(sorted(seated), table_size):
        pairs = pairs_of(tables)
        key = (len(pairs & avoid), len(pairs & met))
        if best is None or key < best:
            best = key
    return best


# Round 1: the shuffle anyone can recompute --------------------------------------------------------


def test_round1_is_the_engine_shuffle_cut_into_tables():
    players = [40, 7, 19, 3, 88, 12, 5, 61, 23]
    s = seat_round(players, table_size=3, seed=SEED, round_no=1, by_standings=False)
    order = reference_shuffle(players, SEED)
    assert s.order == order
    assert s.tables == [order[0:3], order[3:6], order[6:9]]
    assert s.byes == [] and s.method == "cut"
    # Independent of the order the entrants are given in.
    again = seat_round(sorted(players, reverse=True), table_size=3, seed=SEED, round_no=1, by_standings=False)
    assert again.tables == s.tables


def test_shuffle_matches_the_deck_algorithm_on_80_items():
    """The same stream and swaps as the engine's deck shuffle: shuffling 0..79 by seed moves the
    identical positions, so the permutation equals the deck's (cards are 4 copies of 20 kinds)."""
    from apps.engine.cards import full_deck
    from apps.engine.shuffle import deck_from_seed

    seed = bytes(32)
    perm = shuffle_players(range(80), seed)
    deck = full_deck()
    assert [deck[i] for i in perm] == deck_from_seed(seed)


def test_different_seeds_and_rounds_give_different_orders():
    players = list(range(1, 31))
    a = seat_round(players, table_size=3, seed=SEED, round_no=1, by_standings=False)
    b = seat_round(players, table_size=3, seed=hashlib.sha256(b"other").digest(), round_no=1, by_standings=False)
    c = seat_round(players, table_size=3, seed=SEED, round_no=2, by_standings=False)
    assert a.tables != b.tables and a.tables != c.tables
    assert round_seed(SEED, 1) == SEED and round_seed(SEED, 2) != SEED


def test_recompute_command_prints_the_stored_seating(capsys):
    players = [4, 9, 2, 15, 30, 11, 8]
    s = seat_round(players, table_size=3, seed=SEED, round_no=1, by_standings=False)
    assert seating.main(["--recompute", SEED.hex(), "--players", ",".join(map(str, players))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"table {i + 1}: {' '.join(map(str, t))}" for i, t in enumerate(s.tables)]
    assert out[2] == f"byes: {s.byes[0]}"


def test_describe_recompute_names_the_algorithm():
    en = seating.describe_recompute(seed_hex="ab" * 32, table_size=3)
    assert "§11.7" in en and "ab" * 32 in en and "sha256" in en
    zh = seating.describe_recompute(table_size=4, language="zh-hans")
    assert "§11.7" in zh and "每 4 人一桌" in zh


# Byes --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "tables", "byes"), [(9, 3, 0), (12, 4, 0), (13, 4, 1), (14, 4, 2)])
def test_counts_that_do_not_divide_give_byes(n, tables, byes):
    players = list(range(1, n + 1))
    s = seat_round(players, table_size=3, seed=SEED, round_no=1, by_standings=False)
    check_partition(s, players, 3)
    assert (len(s.tables), len(s.byes)) == (tables, byes)
    # Round 1: the last of the shuffled order sit out.
    assert s.byes == list(reversed(s.order))[:byes]


def test_bye_goes_to_the_lowest_ranked_without_a_bye_yet():
    standings = list(range(1, 14))  # 13 players, best first
    s = seat_round(standings, table_size=3, seed=SEED, round_no=2, by_standings=True)
    assert s.byes == [13]
    s = seat_round(standings, table_size=3, seed=SEED, round_no=3, by_standings=True, byes_had={13})
    assert s.byes == [12]
    s = seat_round(standings, table_size=3, seed=SEED, round_no=4, by_standings=True, byes_had={13, 12, 11})
    assert s.byes == [10]
    everyone = set(standings)
    s = seat_round(standings, table_size=3, seed=SEED, round_no=5, by_standings=True, byes_had=everyone)
    assert s.byes == [13]
    assert pick_byes([1, 2, 3, 4, 5], 2, {5}) == [4, 3]


def test_thirteen_players_over_five_rounds_rotate_the_bye():
    players = list(range(101, 114))
    byes_had: set[int] = set()
    met: set[frozenset[int]] = set()
    for r in range(1, 6):
        s = seat_round(players, table_size=3, seed=SEED, round_no=r, met=met, byes_had=byes_had, by_standings=r > 1)
        check_partition(s, players, 3)
        assert not (set(s.byes) & byes_had)
        seated = [u for t in s.tables for u in t]
        assert s.repeats == best_counts(seated, 3, met, set())[1]
        if r <= 4:
            assert s.repeats == 0
        byes_had |= set(s.byes)
        met |= pairs_of(s.tables)
    assert len(byes_had) == 5


# Later rounds: standings, repeats, avoid pairs ---------------------------------------------------


def test_by_standings_groups_neighbours():
    standings = list(range(1, 13))
    s = seat_round(standings, table_size=3, seed=SEED, round_no=2, by_standings=True)
    assert sorted(sorted(t) for t in s.tables) == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]
    assert s.method == "cut" and s.spread == 8


def test_seats_within_a_table_are_shuffled_from_the_round_seed():
    standings = list(range(1, 61))
    s = seat_round(standings, table_size=3, seed=SEED, round_no=2, by_standings=True)
    assert any(t != sorted(t) for t in s.tables)  # the best is not always in seat 0
    stream = words(round_seed(SEED, 2))
    expected = [seating._fisher_yates(sorted(t), stream) for t in sorted(s.tables, key=min)]
    assert s.tables == expected


def test_no_repeat_when_avoidable_swiss_12():
    # Round 1 met: {1,2,3} {4,5,6} {7,8,9} {10,11,12}; the standings keep them together.
    met = pairs_of([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]])
    s = seat_round(list(range(1, 13)), table_size=3, seed=SEED, round_no=2, met=met, by_standings=True)
    assert s.repeats == 0 and s.avoid_broken == 0
    assert s.method in {"repaired", "search"}


def test_avoid_pair_kept_apart_in_round1():
    players = list(range(1, 10))
    plain = seat_round(players, table_size=3, seed=SEED, round_no=1, by_standings=False)
    a, b = plain.tables[0][:2]
    s = seat_round(players, table_size=3, seed=SEED, round_no=1, avoid={frozenset((a, b))}, by_standings=False)
    assert s.avoid_broken == 0 and s.method == "repaired"
    assert not any({a, b} <= set(t) for t in s.tables)
    # A minimal repair: only one player moved out of the first table.
    assert sum(1 for t1, t2 in zip(plain.tables, s.tables, strict=True) if set(t1) != set(t2)) == 2


def test_avoid_beats_repeat_when_both_cannot_be_had():
    # 3 players: one table whatever happens; counts are reported honestly.
    s = seat_round([1, 2, 3], table_size=3, seed=SEED, round_no=2, met={frozenset((1, 2))},
                   avoid={frozenset((2, 3))}, by_standings=True)
    assert (s.repeats, s.avoid_broken) == (1, 1)
    # 6 players where avoiding every repeat is impossible but avoiding the avoid pairs is not.
    avoid = {frozenset((1, 2))}
    met = {frozenset(p) for p in itertools.combinations(range(1, 7), 2)} - avoid
    s = seat_round(list(range(1, 7)), table_size=3, seed=SEED, round_no=2, met=met, avoid=avoid, by_standings=True)
    assert s.avoid_broken == 0 and s.repeats == 6


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        seat_round([1, 2, 2], table_size=3, seed=SEED, round_no=1, by_standings=False)
    with pytest.raises(ValueError):
        seat_round([1, 2], table_size=3, seed=SEED, round_no=1, by_standings=False)
    with pytest.raises(ValueError):
        seat_round([1, 2, 3], table_size=5, seed=SEED, round_no=1, by_standings=False)
    with pytest.raises(ValueError):
        seat_round([1, 2, 3], table_size=3, seed=SEED, round_no=0, by_standings=False)
    with pytest.raises(ValueError):
        seat_round([1, 2, 3], table_size=3, seed=b"", round_no=1, by_standings=False)


@st.composite
def constrained_fields(draw):
    """A field of 6–60, a hidden valid seating, and met/avoid pairs only outside it."""
    table_size = draw(st.sampled_from([3, 3, 4]))
    n = draw(st.integers(min_value=6, max_value=60))
    by_standings = draw(st.booleans())
    round_no = draw(st.integers(1, 6))
    density = draw(st.floats(0, 1))
    rnd = random.Random(draw(st.integers(0, 2**32)))  # the test data only; seating never uses random
    players = rnd.sample(range(1, 10_000), n)
    seed = rnd.randbytes(32)
    byes_had = set(rnd.sample(players, rnd.randint(0, n // 2)))
    order = players if by_standings else shuffle_players(players, round_seed(seed, round_no))
    byes = set(pick_byes(order, n % table_size, byes_had))
    rest = [u for u in players if u not in byes]
    rnd.shuffle(rest)
    hidden = [rest[i : i + table_size] for i in range(0, len(rest), table_size)]
    allowed = pairs_of(hidden)
    met, avoid = set(), set()
    for a, b in itertools.combinations(sorted(players), 2):
        pair = frozenset((a, b))
        if pair not in allowed and rnd.random() < density:
            (avoid if rnd.random() < 0.3 else met).add(pair)
    return dict(players=players, table_size=table_size, seed=seed, round_no=round_no, met=met,
                avoid=avoid, byes_had=byes_had, by_standings=by_standings)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constrained_fields())
def test_property_no_repeat_no_avoid_when_a_valid_seating_exists(case):
    s = seat_round(**case)
    check_partition(s, case["players"], case["table_size"])
    assert s.avoid_broken == 0
    assert s.repeats == 0
    at_table = pairs_of(s.tables)
    assert not (at_table & case["avoid"]) and not (at_table & case["met"])
    # Deterministic: the same inputs (in fresh containers) give the same seating.
    again = seat_round(**{**case, "met": set(case["met"]), "avoid": set(case["avoid"])})
    assert again.tables == s.tables and again.byes == s.byes


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(20, 60),
    table_size=st.sampled_from([3, 4]),
    avoid_pairs=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 59)), max_size=12),
)
def test_property_sparse_avoid_pairs_are_always_kept_apart(n, table_size, avoid_pairs):
    """A dozen avoid pairs (shared IPs) in a field of 20 or more: always avoidable (at most a
    5-clique, and at least five tables). Smaller fields are checked against brute force below."""
    players = list(range(1, n + 1))
    avoid = {frozenset((a % n + 1, b % n + 1)) for a, b in avoid_pairs if a % n != b % n}
    s = seat_round(players, table_size=table_size, seed=SEED, round_no=1, avoid=avoid, by_standings=False)
    check_partition(s, players, table_size)
    assert s.avoid_broken == 0
    assert not (pairs_of(s.tables) & avoid)


@settings(max_examples=80, deadline=None)
@given(
    n=st.sampled_from([6, 7, 8, 9, 10, 12]),
    table_size=st.sampled_from([3, 4]),
    met_bits=st.integers(0, 2**66 - 1),
    avoid_bits=st.integers(0, 2**66 - 1),
    avoid_rate=st.integers(1, 8),
)
def test_property_small_fields_match_the_brute_force_optimum(n, table_size, met_bits, avoid_bits, avoid_rate):
    """Against every possible seating: avoid pairs apart whenever possible, and then no repeat
    whenever possible (arbitrary constraints, valid seating or not)."""
    players = list(range(1, n + 1))
    all_pairs = [frozenset(p) for p in itertools.combinations(players, 2)]
    met = {p for i, p in enumerate(all_pairs) if met_bits >> i & 1}
    avoid = {p for i, p in enumerate(all_pairs) if (avoid_bits >> (i * 3)) % 8 < avoid_rate and i % 2}
    s = seat_round(players, table_size=table_size, seed=SEED, round_no=2, met=met, avoid=avoid, by_standings=True)
    check_partition(s, players, table_size)
    seated = [u for t in s.tables for u in t]
    best_avoid, best_repeats = best_counts(seated, table_size, met, avoid)
    assert (s.avoid_broken, s.repeats) >= (best_avoid, best_repeats)  # no seating beats the optimum
    if best_avoid == 0:
        assert s.avoid_broken == 0
    if (best_avoid, best_repeats) == (0, 0):
        assert s.repeats == 0


def test_swiss_over_rounds_never_repeats_in_a_big_field():
    players = list(range(1, 61))
    met: set[frozenset[int]] = set()
    points = dict.fromkeys(players, 0)
    for r in range(1, 6):
        standings = sorted(players, key=lambda u: (-points[u], u))
        s = seat_round(standings, table_size=3, seed=SEED, round_no=r, met=met, by_standings=r > 1)
        assert s.repeats == 0
        met |= pairs_of(s.tables)
        for t in s.tables:
            for rank, u in enumerate(sorted(t)):
                points[u] += 4 - 2 * rank


def test_300_players_over_four_rounds_seat_without_repeats_or_broken_avoids():
    # Quality only; the time it takes is a benchmark, not an assertion (the machines are shared):
    # python -m apps.matches.seating --bench 300 --rounds 4
    figures = seating._bench(300, 4, 3)
    assert [f["round"] for f in figures] == [1, 2, 3, 4]
    assert all(f["tables"] == 100 and f["repeats"] == 0 and f["avoid_broken"] == 0 for f in figures)


# Elimination re-seating ---------------------------------------------------------------------------


def test_rebalance_breaks_the_shortest_table_and_fills_empty_seats():
    tables = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]
    order = list(range(1, 13))
    s = rebalance(tables, {2, 5, 8}, table_size=3, order=order)
    # 9 left: three full tables; table 4 (index 3) is kept whole, one short table is broken.
    assert sorted(len(t) for t in s.tables) == [3, 3, 3] and s.byes == []
    assert [10, 11, 12] in s.tables
    assert sorted(u for t in s.tables for u in t) == [1, 3, 4, 6, 7, 9, 10, 11, 12]
    assert len(s.moved) == 2


def test_rebalance_sits_out_who_cannot_be_placed_and_seats_waiting_first():
    tables = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    s = rebalance(tables, {9}, table_size=3, order=list(range(1, 10)))
    assert s.tables == [[1, 2, 3], [4, 5, 6]] and s.byes == [7, 8]
    s2 = rebalance(s.tables, {3}, table_size=3, order=[1, 2, 4, 5, 6, 7, 8], waiting=s.byes)
    assert s2.tables[0] == [1, 2, 7] and s2.byes == [8]


def test_rebalance_to_the_final_table_and_respects_avoid():
    tables = [[1, 2, 3], [4, 5, 6]]
    s = rebalance(tables, {2, 3, 6}, table_size=3, order=[1, 4, 5])
    assert s.tables == [[1, 4, 5]] or sorted(map(sorted, s.tables)) == [[1, 4, 5]]
    tables = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]
    order = [1, 2, 4, 5, 6, 7, 8, 9, 10, 11]
    plain = rebalance(tables, {3, 12}, table_size=3, order=order)
    assert plain.tables[0] == [1, 2, 10] and plain.byes == [11]
    s = rebalance(tables, {3, 12}, table_size=3, order=order, avoid={frozenset((1, 10))})
    assert s.tables[0] == [1, 2, 11] and s.byes == [10] and s.avoid_broken == 0


def test_bench_command_prints_one_json_line_per_round(capsys):
    import json

    assert seating.main(["--bench", "30", "--rounds", "3"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["round"] for r in rows] == [1, 2, 3]
    assert all(r["players"] == 30 and r["tables"] == 10 and r["repeats"] == 0 for r in rows)
