"""Property tests (RULES.md §8): ``can_win`` agrees with ``score_win``; a win covers exactly the cards."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.engine.cli.score_requests import parse_request
from apps.engine.scoring import can_win, score_win
from tests.engine.bench_vectors import make_request


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_s8_can_win_agrees_with_score_win_and_win_covers_cards(seed: int) -> None:
    req = make_request(random.Random(seed))
    if req is None:
        return
    rs, hand, groups, win_card, win_by, dealer, last_card, reveal = parse_request(req)
    result = score_win(rs, hand, groups, win_card, win_by, dealer, last_card, reveal)
    counts = tuple(Counter(hand).get(c, 0) for c in range(20))
    assert result.win == can_win(rs, counts, groups, win_card, win_by, dealer, last_card, reveal)
    if result.win:
        used = Counter(c for g, _ in result.groups for c in g.cards)
        mine = Counter(hand + [c for g in groups for c in g.cards] + [win_card])
        assert used == mine
        assert len(result.groups) == rs.groups_to_win
        assert result.huxi == sum(h for _, h in result.groups)
        assert result.score == result.tun * result.fan


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=19), min_size=1, max_size=14), st.integers(0, 19),
       st.sampled_from(["self_draw", "other_draw"]), st.sampled_from(["full", "changsha", "luzhou"]))
def test_s8_can_win_agrees_on_arbitrary_hands(hand: list[int], card: int, win_by: str, preset: str) -> None:
    from apps.engine.rules import resolve_ruleset

    held = Counter(hand)
    if max(held.values()) >= 4 or held[card] >= 4:
        return
    rs = resolve_ruleset(preset, {})
    counts = tuple(held.get(c, 0) for c in range(20))
    assert score_win(rs, hand, [], card, win_by).win == can_win(rs, counts, [], card, win_by)
