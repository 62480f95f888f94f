"""RULES.md §8.2: How the winning card counts."""

from __future__ import annotations

from tests.engine.rules.support import BASE, ON_PENG
from tests.engine.scoring_helpers import kinds, score

PAIR_B5 = "b5 b5 s10 s10 s10 s1 s2 s3 b1 b2 b3 s4 s5 s6 b7 b8 b9 s7 s8 s9"


KAN_B5 = "b5 b5 b5 s9 s9 s9 s1 s2 s3 b1 b2 b3 s4 s5 s6 b7 b8 b9 s8 s8"


def test_s8_2_reveal_card_on_the_dealers_pair_is_a_kan():
    r = score("full", PAIR_B5, win="b5", win_by="reveal", dealer=True)
    assert r.win and ("kan", 6) in [(g.kind, h) for g, h in r.groups if g.cards == (14, 14, 14)]
    assert r.huxi == 18


def test_s8_2_reveal_card_on_a_non_dealers_pair_is_a_peng():
    r = score("full", PAIR_B5, win="b5", win_by="reveal", dealer=False)
    assert r.win and "peng" in kinds(r) and r.huxi == 15


def test_s8_2_reveal_card_on_a_non_dealers_kan_is_a_pao_with_a_jiang():
    r = score("full", KAN_B5, win="b5", win_by="reveal", dealer=False)
    assert r.win and "pao" in kinds(r) and "jiang" in kinds(r)
    assert r.huxi == 9 + 3 + 3 + 6


def test_s8_2_reveal_card_on_the_dealers_kan_is_a_ti():
    r = score("full", KAN_B5, win="b5", win_by="reveal", dealer=True)
    assert r.win and "ti" in kinds(r) and r.huxi == 12 + 3 + 3 + 6


def test_s8_2_a_discard_never_upgrades_a_laid_peng():
    r = score("chenzhou", ON_PENG, ["peng b5 b5 b5"], "b5", win_by="discard")
    assert r.win and "peng" in kinds(r) and "pao" not in kinds(r)
    assert any(g.kind == "sentence" and g.cards == (13, 14, 15) for g, _ in r.groups)


def test_s8_2_another_players_draw_upgrades_a_laid_peng_to_pao():
    # As 跑 the hand needs a 将 and has none: not complete.
    r = score("chenzhou", ON_PENG, ["peng b5 b5 b5"], "b5", win_by="other_draw")
    assert not r.win and r.reason == "incomplete"


def test_s8_2_another_players_draw_on_laid_wei_is_pao_own_draw_is_ti():
    hand = "s1 s2 s3 b1 b2 b3 s4 s5 s6 b7 b8 b9 s7 s8 s9 s10 s10"
    other = score("full", hand, ["wei b5 b5 b5"], "b5", win_by="other_draw")
    own = score("full", hand, ["wei b5 b5 b5"], "b5", win_by="self_draw")
    assert other.win and "pao" in kinds(other) and other.huxi == 9 + 3 + 6
    assert own.win and "ti" in kinds(own) and own.huxi == 12 + 3 + 6


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
