"""RULES.md §8.3: Best decomposition."""

from __future__ import annotations

from tests.engine.scoring_helpers import names, score


def test_s8_3_highest_huxi_decomposition() -> None:
    # s1 s2 s3 / s1 s2 s3 can also be two 绞-free runs; the 一二三 pair of runs scores 6.
    groups = ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")
    r = score("full", "s1 s1 s2 s2 s3 s3 b5 b5 b5 s7", groups, "s7")
    assert r.win and r.huxi == 6 + 3 + 0 + 3 + 3 + 6


def test_s8_3_best_score_beats_higher_huxi() -> None:
    # changsha: 二比 (the laid s7 s8 s9 twice) with 18 胡息 beats the 21-胡息 split with 二七十.
    r = score("changsha", "s2 s6 s6 s7 s9 s10 s10 b2 b2 b6 b7 b7 b7", ("ti b4 b4 b4 b4", "chi s7 s8 s9"), "s8")
    assert r.win and r.huxi == 18 and names(r) == {"shi_hong": 2, "er_bi": 2} and r.score == 2 * 4
