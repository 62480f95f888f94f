"""RULES.md §3.3: Natural win (必须天胡)."""

from __future__ import annotations

import pytest

from tests.engine.hand_support import hand_from, types_of
from tests.engine.rules.support import KANS_TI2
from tests.engine.scoring_helpers import kinds, names, score

# Three 提 and two 坎 (5 坎+提, no sentence among them) and three cards that make no group.
THREE_TI_LEFTOVER = "s1 s1 s1 s1 s3 s3 s3 s3 s5 s5 s5 s5 b1 b1 b1 b3 b3 b3 s8 b5 b9"


# Three 提 and three 坎: every card in a same-card group, nothing left over.
THREE_TI_NO_LEFTOVER = "s1 s1 s1 s1 s3 s3 s3 s3 s5 s5 s5 s5 b1 b1 b1 b3 b3 b3 b5 b5 b5"


FIVE_KAN = "s1 s1 s1 s3 s3 s3 s4 s4 s4 s5 s5 s5 s6 s6 s6 s8 s9 b4 b8 b1"


def test_s3_3_natural_win_with_three_ti_is_forced():
    h = hand_from("full", ["", "s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3 s3"], "s9")
    assert types_of(h.events) == ["deal", "reveal", "natural_win", "hu"]
    assert h.finished and h.result["winner"] == 1 and h.result["win_by"] == "natural"
    assert h.result["card"] is None


def test_s3_3_natural_win_with_five_kan_or_ti():
    h = hand_from("full", ["", "s1 s1 s1 s1 s2 s2 s2 s3 s3 s3 s4 s4 s4 s5 s5 s5"], "s9")
    assert h.result["winner"] == 1 and h.events[2].type == "natural_win"


def test_s3_3_dealer_counts_the_reveal_card():
    # Two 提 in hand and a 坎 of the reveal card: the reveal makes the dealer's third 提.
    h = hand_from("full", ["s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3"], "s3")
    assert h.events[2].to_wire() == {"seq": 3, "type": "natural_win", "seat": 0}
    assert h.result["winner"] == 0


def test_s3_3_natural_win_in_seat_order_from_the_dealer():
    three_ti = "s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3 s3"
    other = "s4 s4 s4 s4 s5 s5 s5 s5 s6 s6 s6 s6"
    # Dealer 2: seats deal in order 2, 0, 1; seats 0 and 1 both qualify, seat 0 comes first.
    h = hand_from("full", ["", three_ti, other], "s9", dealer=2)
    assert h.result["winner"] == 0


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


def test_s3_3_two_ti_and_three_kan_make_five_and_win():
    h = hand_from("full", ["", KANS_TI2 + " s3 s3 s3 s4 s4 s4 s5 s5 s5"], "s9")
    assert types_of(h.events)[2:] == ["natural_win", "hu"]
    assert h.result["winner"] == 1 and h.result["win_by"] == "natural"


def test_s3_3_a_kan_never_counts_as_a_ti():
    # Two 提 and two 坎: four 坎+提, and only two 提 — no natural win.
    h = hand_from("full", ["", KANS_TI2 + " s3 s3 s3 s4 s4 s4"], "s9")
    assert "natural_win" not in types_of(h.events)


def test_s3_3_a_non_dealer_does_not_count_the_reveal_card():
    # Seat 1 would have a fifth 坎 with the reveal card; only the dealer counts it.
    h = hand_from("full", ["", KANS_TI2 + " s3 s3 s3 s4 s4 s4 s5 s5"], "s5")
    assert "natural_win" not in types_of(h.events)


def test_s3_3_dealer_reveal_card_makes_his_fifth_kan():
    h = hand_from("full", ["s1 s1 s1 s2 s2 s2 s3 s3 s3 s4 s4 s4 s5 s5"], "s5")
    assert types_of(h.events)[2:] == ["natural_win", "hu"]
    assert h.result["winner"] == 0
    groups = h.result["settlement"]["groups"]
    assert {"kind": "kan", "cards": ["s5", "s5", "s5"], "huxi": 3} in groups


def test_s3_3_dealer_is_first_in_seat_order_when_both_are_natural():
    h = hand_from("full", ["s4 s4 s4 s4 s5 s5 s5 s5 s6 s6 s6 s6", "s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3 s3"], "s9")
    assert h.result["winner"] == 0


def test_s3_3_natural_win_ignores_min_huxi_and_the_group_count():
    r = score("basic", FIVE_KAN, win=None, win_by="natural", options={"min_huxi": 30})
    assert r.win and r.huxi == 15


def test_s3_3_natural_win() -> None:
    hand = "s1 s1 s1 s1 b2 b2 b2 b2 s5 s5 s5 s5 s2 s3 s4 b7 b8 b9 s8 s9"
    r = score("full", hand, (), None, "natural", dealer=True)
    assert r.win and r.huxi == 9 + 12 + 9 + 0 + 0
    assert ("tian_hu", "huxi_x", 2) in r.bonuses
    assert r.tun == (60 - 15) // 3 + 1 + 1  # ×2 before tun, +1 自摸
    assert "leftover" in kinds(r)
    r = score("full", "s1 s1 s1 s1 b2 b2 b2 b2 s5 s5 s6 s7", (), None, "natural")
    assert not r.win
