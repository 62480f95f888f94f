"""RULES.md §3.3: on a natural win left-over cards are not groups, so a natural win with any
left-over card is never 对对胡 / 碰碰胡, and leaving cards over never earns a fan that grouping them
would not (no Django)."""

from __future__ import annotations

import pytest

from tests.engine.scoring_helpers import kinds, names, score

# Three 提 and two 坎 (5 坎+提, no sentence among them) and three cards that make no group.
THREE_TI_LEFTOVER = "s1 s1 s1 s1 s3 s3 s3 s3 s5 s5 s5 s5 b1 b1 b1 b3 b3 b3 s8 b5 b9"
# Three 提 and three 坎: every card in a same-card group, nothing left over.
THREE_TI_NO_LEFTOVER = "s1 s1 s1 s1 s3 s3 s3 s3 s5 s5 s5 s5 b1 b1 b1 b3 b3 b3 b5 b5 b5"


@pytest.mark.parametrize("preset,name", [("half", "dui_dui_hu"), ("full", "dui_dui_hu"),
                                         ("quanmin", "dui_dui_hu"), ("changsha", "peng_peng_hu")])
def test_s3_3_natural_win_with_left_over_cards_is_never_dui_dui_hu(preset, name):
    r = score(preset, THREE_TI_LEFTOVER, win=None, win_by="natural", dealer=True)
    assert r.win and "leftover" in kinds(r)
    assert name not in names(r) and "wu_hu_dui_dui_hu" not in names(r)


def test_s3_3_natural_win_with_left_over_cards_scores_wu_hu_alone_in_full():
    # No red card: 乌胡 (5); before §3.3's sentence the left-over cards let it claim 乌胡对对胡 (10).
    r = score("full", THREE_TI_LEFTOVER, win=None, win_by="natural", dealer=True)
    assert r.win and names(r) == {"wu_hu": 5}


@pytest.mark.parametrize("preset,name", [("full", "wu_hu_dui_dui_hu"), ("quanmin", "dui_dui_hu"),
                                         ("changsha", "peng_peng_hu")])
def test_s3_3_natural_win_grouping_every_card_in_same_card_groups_is_dui_dui_hu(preset, name):
    r = score(preset, THREE_TI_NO_LEFTOVER, win=None, win_by="natural", dealer=True)
    assert r.win and "leftover" not in kinds(r)
    assert name in names(r)


def test_s3_3_natural_win_leaving_a_red_sentence_over_never_earns_shuang_piao():
    # Three red sentences (二七十 twice, 壹… 贰柒拾 once): grouped, three all-red groups (no 双飘) and
    # 二比; leaving 贰柒拾 over would show two all-red groups, 双飘, which grouping them never earns.
    hand = "b1 b1 b1 b1 b3 b3 b3 b3 b4 b4 b4 b4 s2 s7 s10 b2 b7 b10 s2 s7 s10"
    r = score("changsha", hand, win=None, win_by="natural", dealer=True)
    assert r.win and "leftover" not in kinds(r)
    assert names(r) == {"tian_hu": 5, "er_bi": 2}


def test_s3_3_natural_win_left_over_red_cards_that_make_no_group_keep_shuang_piao():
    # s2 s7 b10 left over are red but make no group: the two all-red sentences are 双飘.
    hand = "b1 b1 b1 b1 b3 b3 b3 b3 b4 b4 b4 b4 s2 s7 s10 b2 b7 b10 s2 s7 b10"
    r = score("changsha", hand, win=None, win_by="natural", dealer=True)
    assert r.win and "leftover" in kinds(r)
    assert names(r) == {"tian_hu": 5, "shuang_piao": 2}
