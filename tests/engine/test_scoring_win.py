"""Complete hands, the winning card's role and the best decomposition (RULES.md §8)."""

from __future__ import annotations

from tests.engine.scoring_helpers import kinds, names, score

BASE = ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")


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


def test_s8_2_own_draw_on_pair_forms_wei() -> None:
    r = score("full", "s1 s2 s3 b5 b5 b1 b2 b3 s7 s7", BASE, "b5")
    assert r.win and ("wei" in kinds(r)) and "kan" not in kinds(r)


def test_s8_2_own_draw_on_kan_forms_ti_other_draw_forms_pao() -> None:
    hand = "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7 s7"
    groups = ("peng s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")
    assert "ti" in kinds(score("full", hand, groups, "b5", "self_draw"))
    r = score("full", hand, groups, "b5", "other_draw")
    assert "pao" in kinds(r) and r.huxi == 1 + 3 + 3 + 6 + 9


def test_s8_2_laid_wei_and_peng_upgrades() -> None:
    hand = "s1 s2 s3 b1 b2 b3 s7 s7"
    wei = ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6", "wei b5 b5 b5")
    assert kinds(score("full", hand, wei, "b5", "self_draw"))[3] == "ti"
    assert kinds(score("full", hand, wei, "b5", "other_draw"))[3] == "pao"
    peng = ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6", "peng b5 b5 b5")
    assert kinds(score("full", hand, peng, "b5", "self_draw"))[3] == "pao"
    assert kinds(score("full", hand, peng, "b5", "other_draw"))[3] == "pao"
    # A discard never upgrades a 碰 (§5.5): the card must fit the hand, and here it does not.
    r = score("chenzhou", hand, peng, "b5", "discard", players=3)
    assert not r.win and r.reason == "incomplete"


def test_s8_2_pair_plus_other_card_is_free() -> None:
    # Used whole: 碰 of s5 (1) ...
    groups = ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi b4 b5 b6")
    r = score("full", "s5 s5 b1 b2 b3 b5 b5 b5 s1 s1", groups, "s5", "other_draw")
    assert r.win and "peng" in kinds(r)[3:]
    # ... or split: s5 with s4 s6 while the pair is the 将 (no 碰 formed).
    r = score("full", "s5 s5 s4 s6 b1 b2 b3 b5 b5 b5", groups, "s5", "other_draw")
    assert r.win and kinds(r).count("peng") == 1 and "jiang" in kinds(r)


def test_s8_3_highest_huxi_decomposition() -> None:
    # s1 s2 s3 / s1 s2 s3 can also be two 绞-free runs; the 一二三 pair of runs scores 6.
    groups = ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")
    r = score("full", "s1 s1 s2 s2 s3 s3 b5 b5 b5 s7", groups, "s7")
    assert r.win and r.huxi == 6 + 3 + 0 + 3 + 3 + 6


def test_s8_3_best_score_beats_higher_huxi() -> None:
    # changsha: 二比 (the laid s7 s8 s9 twice) with 18 胡息 beats the 21-胡息 split with 二七十.
    r = score("changsha", "s2 s6 s6 s7 s9 s10 s10 b2 b2 b6 b7 b7 b7", ("ti b4 b4 b4 b4", "chi s7 s8 s9"), "s8")
    assert r.win and r.huxi == 18 and names(r) == {"shi_hong": 2, "er_bi": 2} and r.score == 2 * 4


def test_s3_3_natural_win() -> None:
    hand = "s1 s1 s1 s1 b2 b2 b2 b2 s5 s5 s5 s5 s2 s3 s4 b7 b8 b9 s8 s9"
    r = score("full", hand, (), None, "natural", dealer=True)
    assert r.win and r.huxi == 9 + 12 + 9 + 0 + 0
    assert ("tian_hu", "huxi_x", 2) in r.bonuses
    assert r.tun == (60 - 15) // 3 + 1 + 1  # ×2 before tun, +1 自摸
    assert "leftover" in kinds(r)
    r = score("full", "s1 s1 s1 s1 b2 b2 b2 b2 s5 s5 s6 s7", (), None, "natural")
    assert not r.win
