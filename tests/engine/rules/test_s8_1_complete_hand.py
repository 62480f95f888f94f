"""RULES.md §8.1: Complete hand."""

from __future__ import annotations

from tests.engine.rules.support import BASE
from tests.engine.scoring_helpers import kinds, score


def test_s8_1_engine_cli_example() -> None:
    r = score("full", "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7", BASE, "s7")
    assert (r.win, r.huxi, r.tun, r.fan, r.score) == (True, 24, 5, 2, 10)
    assert kinds(r) == ["pao", "peng", "chi", "sentence", "kan", "sentence", "jiang"]


def test_s8_1_kan_is_never_split() -> None:
    # s1 s1 s1 s2 s3 would be s1 s2 s3 + a pair of s1 if the 坎 could be split.
    r = score("full", "s1 s1 s1 s2 s3 b5 b5 b5 b1 b2", BASE, "b3")
    assert not r.win and r.reason == "incomplete"


def test_s8_1_pair_only_with_a_four_card_group() -> None:
    no_four = ("peng s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")
    r = score("full", "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7", no_four, "s7")
    assert not r.win and r.reason == "incomplete"
    # With a 4-card group a hand without a pair is not complete either.
    r = score("full", "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7 s8", BASE, "s9")
    assert not r.win


def test_s8_1_win_refused_below_min_huxi() -> None:
    r = score("full", "s4 s5 s6 s7 s8 s9 b4 b5 b6 s1", ("pao s10 s10 s10 s10", "peng s3 s3 s3", "chi b7 b8 b9"), "s1")
    assert not r.win and r.reason == "huxi_below_min" and r.huxi == 7
    assert r.to_wire() == {"win": False, "reason": "huxi_below_min", "message": r.message, "huxi": 7}


def test_s8_1_deal_all_needs_five_groups() -> None:
    hand = "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7"
    r = score("chenzhou", hand, ("pao s9 s9 s9 s9",), "s7", players=4)
    assert r.win and len(r.groups) == 5
    assert not score("chenzhou", hand, ("pao s9 s9 s9 s9",), "s7", players=3).win
