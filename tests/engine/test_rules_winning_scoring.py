"""Rules: winning hands, 胡息 → tun, 名堂 and settlement (RULES.md §3.3, §8, §9, §10, §11.15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apps.engine import replay, settle
from tests.engine.scoring_helpers import kinds, names, score

RECORDS = Path(__file__).parent / "records"

# ---- §8.2 the role of the winning card ----------------------------------------------------------

PAIR_B5 = "b5 b5 s10 s10 s10 s1 s2 s3 b1 b2 b3 s4 s5 s6 b7 b8 b9 s7 s8 s9"


def test_s8_2_reveal_card_on_the_dealers_pair_is_a_kan():
    r = score("full", PAIR_B5, win="b5", win_by="reveal", dealer=True)
    assert r.win and ("kan", 6) in [(g.kind, h) for g, h in r.groups if g.cards == (14, 14, 14)]
    assert r.huxi == 18


def test_s8_2_reveal_card_on_a_non_dealers_pair_is_a_peng():
    r = score("full", PAIR_B5, win="b5", win_by="reveal", dealer=False)
    assert r.win and "peng" in kinds(r) and r.huxi == 15


KAN_B5 = "b5 b5 b5 s9 s9 s9 s1 s2 s3 b1 b2 b3 s4 s5 s6 b7 b8 b9 s8 s8"


def test_s8_2_reveal_card_on_a_non_dealers_kan_is_a_pao_with_a_jiang():
    r = score("full", KAN_B5, win="b5", win_by="reveal", dealer=False)
    assert r.win and "pao" in kinds(r) and "jiang" in kinds(r)
    assert r.huxi == 9 + 3 + 3 + 6


def test_s8_2_reveal_card_on_the_dealers_kan_is_a_ti():
    r = score("full", KAN_B5, win="b5", win_by="reveal", dealer=True)
    assert r.win and "ti" in kinds(r) and r.huxi == 12 + 3 + 3 + 6


ON_PENG = "b4 b6 s1 s2 s3 b1 b2 b3 s2 s7 s10 b7 b8 b9 s4 s5 s6"


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


# ---- §3.3 natural win scoring ---------------------------------------------------------------------

FIVE_KAN = "s1 s1 s1 s3 s3 s3 s4 s4 s4 s5 s5 s5 s6 s6 s6 s8 s9 b4 b8 b1"


def test_s3_3_natural_win_ignores_min_huxi_and_the_group_count():
    r = score("basic", FIVE_KAN, win=None, win_by="natural", options={"min_huxi": 30})
    assert r.win and r.huxi == 15


def test_s11_15_natural_win_leftover_cards_are_not_a_group_for_shuang_piao():
    # Six 坎 (one of b10, all red) and two red cards left over (s2 s7: no group). Only one group is
    # all red, so no 双飘.
    hand = "s1 s1 s1 s3 s3 s3 s4 s4 s4 s5 s5 s5 s6 s6 s6 b10 b10 b10 s2 s7"
    r = score("changsha", hand, win=None, win_by="natural")
    assert r.win
    assert "shuang_piao" not in names(r)


# ---- §9.1 胡息 → tun ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "options,tun", [({"min_huxi": 9}, 3), ({"min_huxi": 6}, 4), ({"min_huxi": 3}, 5), ({"min_huxi": 15}, 1),
                    ({"min_huxi": 9, "tun_mode": "1xi1tun"}, 15)],
)
def test_s9_1_chenzhou_tun_from_15_huxi(options, tun):
    r = score("chenzhou", ON_PENG, ["peng b5 b5 b5"], "b5", win_by="discard", options=options)
    assert r.win and r.huxi == 15 and r.tun == tun


def test_s9_1_luzhou_tun_from_10():
    # luzhou 胡息: 坎 s9 6, 一二三 3 / 6, 二七十 big 9: 24 → tun (24 − 10) // 3 + 1 = 5, + 1 自摸.
    r = score("luzhou", "s9 s9 s9 s1 s2 s3 b1 b2 b3 b2 b7 b10 s4 s5 s6 b4 b5 b6 s7 s8", win="s6")
    assert r.win and r.huxi == 24 and r.tun == 6


def test_s9_1_min_huxi_is_checked_before_the_tian_hu_multiplier():
    # 12 胡息 at a reveal win: ×2 would be 24, but the minimum looks at the plain 12.
    hand = "b1 b2 b3 b4 b5 b6 s1 s2 s3 s4 s5 s6 s7 s8 s9 b7 b8 b9 s4 s5"
    r = score("full", hand, win="s6", win_by="reveal", dealer=True)
    assert not r.win and r.reason == "huxi_below_min" and r.huxi == 9


def test_s9_1_mao_hu_zero_huxi_hand_wins_as_15():
    hand = "s3 s4 s5 s6 s7 s8 b3 b4 b5 b6 b7 b8 s4 s5 s6 b4 b5 b6 s8 s9"
    on = score("chenzhou", hand, win="s10", options={"mao_hu": True})
    assert on.win and on.huxi == 15 and on.tun == 3
    off = score("chenzhou", hand, win="s10")
    assert not off.win and off.reason == "huxi_below_min"


# ---- §9.2 / §10 名堂 on whole hands ---------------------------------------------------------------------

def test_s9_2_red_counts_laid_groups_hand_and_winning_card():
    hand = "b2 b7 b10 s7 s8 s9 b1 b2 b3 s4 s5 s6 s10 s10"
    r = score("basic", hand, ["peng s2 s2 s2", "chi b7 b8 b9"], "s10")
    assert r.win and r.counts["red"] == 12 and names(r) == {"hong_hu": 2}


BIG_18 = "b1 b2 b3 b2 b7 b10 b4 b5 b6 b7 b8 b9 b4 b5 b6 b8 b9 b10 s1 s2"
BIG_17 = "b1 b2 b3 b2 b7 b10 b3 b4 b5 b7 b8 b9 b8 b9 b10 b6 b6 s6 s1 s2"


def test_s10_full_da_zi_hu_from_18_big_cards():
    r18 = score("full", BIG_18, win="s3")
    assert r18.win and r18.counts["big"] == 18 and names(r18) == {"hong_hu": 2, "da_zi_hu": 6}
    r17 = score("full", BIG_17, win="s3")
    assert r17.win and r17.counts["big"] == 17 and names(r17) == {"hong_hu": 2}


SMALL_16 = "s1 s2 s3 s2 s7 s10 s4 s4 b4 s6 s6 s6 s5 s5 b5 s8 s9 s10 b1 b2"
SMALL_15 = "s1 s2 s3 s2 s7 s10 s4 b4 b4 s6 s6 s6 s5 s5 b5 s8 s9 s10 b1 b2"


def test_s10_full_xiao_zi_hu_from_16_small_cards():
    r16 = score("full", SMALL_16, win="b3")
    assert r16.win and r16.counts["small"] == 16 and names(r16) == {"xiao_zi_hu": 8}
    r15 = score("full", SMALL_15, win="b3")
    assert r15.win and r15.counts["small"] == 15 and names(r15) == {}
    # quanmin: 9 + (n − 16).
    assert names(score("quanmin", SMALL_16, win="b3")) == {"xiao_zi_hu": 9}


WU_DUI = ("pao s1 s1 s1 s1", "peng s3 s3 s3", "peng b4 b4 b4")


def test_s10_half_wu_hu_with_dui_dui_hu_is_10_on_a_whole_hand():
    r = score("half", "s5 s5 s5 b6 b6 b6 s8 s8 s8 b9", WU_DUI, "b9", win_by="other_draw")
    assert r.win and r.counts["red"] == 0 and names(r) == {"wu_hu_dui_dui_hu": 10}
    assert r.fan == 10 and r.tun == (22 - 15) // 3 + 1


def test_s10_basic_has_no_dui_dui_hu():
    r = score("basic", "s5 s5 s5 b6 b6 b6 s8 s8 s8 b9", WU_DUI, "b9", win_by="other_draw")
    assert names(r) == {"wu_hu": 5}


def test_s10_half_hai_di_on_a_mingtang_hand_adds_2():
    r = score("half", "s5 s5 s5 b6 b6 b6 s8 s8 s8 b9", WU_DUI, "b9", win_by="other_draw", last_card=True)
    assert names(r) == {"wu_hu_dui_dui_hu": 10, "hai_di": 2} and r.fan == 12


def test_s10_chenzhou_only_zimo_stacks():
    # red 0 (黑胡 5) and 对对胡 is not a chenzhou 名堂; 自摸 2 stacks: fan 7.
    r = score("chenzhou", "s5 s5 s5 b6 b6 b6 s8 s8 s8 b9", WU_DUI, "b9", win_by="self_draw")
    assert names(r) == {"hei_hu": 5, "zi_mo": 2} and r.fan == 7


# ---- §9.3 settlement of a finished hand --------------------------------------------------------------

def _discard_win(**options):
    record = json.loads((RECORDS / "chenzhou_3p_discard_win.json").read_text())
    record["options"] = dict(record.get("options") or {}, **options)
    record.pop("events", None)
    record.pop("result", None)
    return replay(record)


def test_s9_3_pao_pays_all_the_discarder_pays_for_everyone():
    h = _discard_win(pao_pays="all")
    winner, discarder = h.result["winner"], h.result["discarder"]
    other = ({0, 1, 2} - {winner, discarder}).pop()
    score_ = h.result["settlement"]["score"]
    out = settle(h, base=2, piao={0: 1, 1: 2, 2: 3})
    assert out["total"][other] == 0
    assert out["score"][discarder] == -2 * score_ * 2 and out["score"][winner] == 2 * score_ * 2
    assert sum(out["total"].values()) == 0
    # 飘 (both): what each loser would have paid (1 + 3 and 2 + 3), the discarder pays it all.
    assert (winner, discarder) == (2, 1)
    assert out["piao"] == {0: 0, 1: -9, 2: 9}


def test_s9_3_pao_pays_each_every_loser_pays():
    h = _discard_win()
    winner = h.result["winner"]
    score_ = h.result["settlement"]["score"]
    out = settle(h, base=1)
    assert all(out["score"][s] == -score_ for s in range(3) if s != winner)


@pytest.mark.parametrize("mode,expected", [("both", {0: -4, 1: -5, 2: 9}), ("loser", {0: -1, 1: -2, 2: 3}),
                                           ("winner", {0: -3, 1: -3, 2: 6})])
def test_s9_3_piao_modes_on_a_finished_hand(mode, expected):
    h = _discard_win(piao_mode=mode)
    assert h.result["winner"] == 2
    out = settle(h, base=1, piao={0: 1, 1: 2, 2: 3})
    assert out["piao"] == expected
