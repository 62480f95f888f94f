"""The fast scorer against a brute-force reference (RULES.md §8, §9), and the tables it relies on."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.engine.cli.score_requests import parse_request
from apps.engine.rules import resolve_ruleset
from apps.engine.scoring import can_win, score_win
from apps.engine.scoring.decompose import CASE_PAIR, CASE_SENT, FIELD, case_splits
from apps.engine.scoring.mingtang import (
    BIG_FROM,
    FAMILIES,
    SMALL_FROM,
    MingtangContext,
    bonuses_of,
    fan_key,
    mingtang_of,
)
from tests.engine.bench_vectors import make_request
from tests.engine.reference_scorer import reference_score

_VARIED = [("changsha", {}), ("chenzhou", {"mao_hu": True}), ("quanmin", {"kai_di_you_xi": True}), ("luzhou", {}),
           ("chenzhou", {"min_huxi": 3, "tun_mode": "1xi1tun"})]


def _request(seed: int) -> dict | None:
    rng = random.Random(seed)
    req = make_request(rng)
    if req is None:
        return None
    if rng.random() < 0.35:  # options and sources the vectors do not cover
        req["preset"], req["options"] = rng.choice(_VARIED)
        req["win_by"] = rng.choice(("self_draw", "other_draw", "reveal") + (("discard",) if req["preset"] == "chenzhou" else ()))
    elif req["win_by"] == "discard" and req["preset"] != "chenzhou":
        req["win_by"] = "other_draw"
    return req


@settings(max_examples=400, deadline=None)
@given(st.integers(min_value=0, max_value=2**40))
def test_s8_fast_scorer_matches_brute_force_reference(seed: int) -> None:
    req = _request(seed)
    if req is None:
        return
    try:
        args = parse_request(req)
    except ValueError:  # e.g. an option combination a preset refuses
        return
    result = score_win(*args)
    win, reason, huxi, points = reference_score(*args)
    assert (result.win, result.reason) == (win, reason)
    if win or reason == "huxi_below_min":
        assert result.huxi == huxi
    assert result.score == points
    counts = tuple(Counter(args[1]).get(c, 0) for c in range(20))
    assert can_win(args[0], counts, *args[2:]) == win
    if win:  # the groups (built by the plain scorer on first read) add up to the 胡息 shown
        mao_hu = any(name == "mao_hu" for name, _, _ in result.bonuses)
        assert sum(h for _, h in result.groups) == (0 if mao_hu else result.huxi)


def test_s8_reference_covers_winners() -> None:
    """The random positions above hold plenty of winners (else the comparison proves little)."""
    wins = sum(bool((r := _request(s)) and reference_score(*parse_request(r))[0]) for s in range(300))
    assert wins >= 60


def _vec(counts: tuple[int, ...]) -> int:
    return sum(n << (FIELD * r) for r, n in enumerate(counts))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 0, 1, 1, 2, 3]), min_size=10, max_size=10))
def test_s8_case_tables_match_case_splits(counts: list[int]) -> None:
    """CASE_SENT/CASE_PAIR list exactly the splittable case vectors of at most 7 sentences (a hand
    has 7 groups at most), plus the pair for CASE_PAIR; sentence-only splits are unique."""
    c = tuple(counts)
    if sum(c) > 21:
        return
    plain, paired = case_splits(c, False), case_splits(c, True)
    assert len(plain) <= 1
    entry = CASE_SENT.get(_vec(c))
    assert (entry is None) == (not plain)
    if plain:
        assert entry[2] == sum(1 << (4 * p) for p in plain[0][0])
    got = sorted((e[2], r) for e, r in CASE_PAIR.get(_vec(c), []))
    assert got == sorted((sum(1 << (4 * p) for p in pats), r) for pats, r in paired)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FAMILIES)), st.integers(0, 20), st.integers(0, 30), st.integers(0, 30),
       st.sampled_from(["self_draw", "other_draw", "reveal", "natural", "discard"]), st.booleans(), st.booleans(),
       st.one_of(st.none(), st.integers(0, 19)), st.booleans(), st.booleans(), st.integers(0, 4), st.integers(0, 4))
def test_s9_fan_key_holds_everything_the_rows_look_at(family, red, big, small, win_by, dealer, last, reveal, shua,
                                                      dui, bi, piao) -> None:
    """Equal ``fan_key`` ⇒ equal 名堂 and bonuses (the fast path caches fans on the key)."""
    options = {"kai_di_you_xi": True} if family == "quanmin" and reveal is not None and reveal % 2 else {}
    rs = resolve_ruleset(family, options)

    zimo = win_by in ("self_draw", "natural") or (win_by == "reveal" and dealer)
    ctx = MingtangContext(rs, red, big, small, win_by, dealer, zimo, last, reveal, shua, dui, bi, piao)
    key = fan_key(rs, red, big, small, win_by, dealer, last, reveal, shua)
    assert key[1] in (0, big) and key[2] in (0, small) and (key[1] == 0) == (big < BIG_FROM)
    assert (key[2] == 0) == (small < SMALL_FROM)
    normal = MingtangContext(rs, *key, dui, bi, piao)  # what the fast path builds from the key
    assert (mingtang_of(rs, ctx), bonuses_of(rs, ctx)) == (mingtang_of(rs, normal), bonuses_of(rs, normal))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 0, 1, 1, 2, 3]), min_size=10, max_size=10), st.sampled_from([0, 3, 6]),
       st.sampled_from([3, 6, 9]))
def test_s8_split_codes_give_the_best_huxi_of_the_case_tables(counts: list[int], yi: int, eqs: int) -> None:
    """SENT_CODE/PAIR_CODE (what the fast path looks up) give, through ``code_values``, the 胡息 of
    the CASE_SENT split and the best 胡息 over the CASE_PAIR splits, for any 一二三/二七十 weights."""
    from apps.engine.scoring.decompose import PAIR_CODE, SENT_CODE, code_values

    v = _vec(tuple(counts))
    values = code_values(yi, eqs)
    entry = CASE_SENT.get(v)
    assert (SENT_CODE.get(v) is None) == (entry is None)
    if entry is not None:
        assert values[SENT_CODE[v]] == entry[0] * yi + entry[1] * eqs
    pairs = CASE_PAIR.get(v)
    assert (PAIR_CODE.get(v) is None) == (pairs is None)
    if pairs is not None:
        assert values[PAIR_CODE[v]] == max(e[0] * yi + e[1] * eqs for e, _ in pairs)
