"""RULES.md §10: Presets."""

from __future__ import annotations

import pytest

from apps.engine.rules import OPTION_NAMES, PRESETS, RuleError, resolve_ruleset
from apps.engine.scoring.huxi import group_huxi
from tests.engine.rules.support import group_of, mt
from tests.engine.scoring_helpers import names, score

BIG_18 = "b1 b2 b3 b2 b7 b10 b4 b5 b6 b7 b8 b9 b4 b5 b6 b8 b9 b10 s1 s2"


BIG_17 = "b1 b2 b3 b2 b7 b10 b3 b4 b5 b7 b8 b9 b8 b9 b10 b6 b6 s6 s1 s2"


SMALL_16 = "s1 s2 s3 s2 s7 s10 s4 s4 b4 s6 s6 s6 s5 s5 b5 s8 s9 s10 b1 b2"


SMALL_15 = "s1 s2 s3 s2 s7 s10 s4 b4 b4 s6 s6 s6 s5 s5 b5 s8 s9 s10 b1 b2"


WU_DUI = ("pao s1 s1 s1 s1", "peng s3 s3 s3", "peng b4 b4 b4")


def test_s10_every_preset_resolves_with_its_player_counts():
    expected = {
        "basic": (3,), "half": (3,), "full": (3,), "changsha": (3,), "quanmin": (3,),
        "chenzhou": (2, 3, 4), "luzhou": (2, 3, 4),
    }
    assert set(PRESETS) == set(expected)
    for preset, counts in expected.items():
        for n in counts:
            assert resolve_ruleset(preset, players=n).players == n


def test_s10_preset_values():
    assert PRESETS["changsha"].zimo == "none" and not PRESETS["changsha"].yi_er_san_huxi
    assert PRESETS["changsha"].wei_shown == "one"
    cz = PRESETS["chenzhou"]
    assert (cz.discard_win, cz.piao, cz.chou_on_unable_chi, cz.dealer_after_draw, cz.mingtang_stack) == (
        True, True, True, "next", "max")
    assert PRESETS["luzhou"].min_huxi == 10 and PRESETS["luzhou"].huxi_table == "luzhou"
    assert resolve_ruleset("chenzhou", players=4).deal_all
    assert resolve_ruleset("luzhou", players=4).sit_out
    assert resolve_ruleset("luzhou", players=4).active_players == 3
    assert resolve_ruleset("chenzhou", players=4).groups_to_win == 5


@pytest.mark.parametrize(
    ("preset", "options", "named"),
    [
        ("full", {"no_such_option": 1}, "no_such_option"),
        ("full", {"tun_mode": "1xi1tun"}, "tun_mode"),
        ("basic", {"players": 4}, "players"),
        ("chenzhou", {"min_huxi": 12}, "min_huxi"),
        ("chenzhou", {"min_huxi": "9"}, "min_huxi"),
        ("full", {"piao_mode": "everyone"}, "piao_mode"),
        ("full", {"pao_pays": "all"}, "pao_pays"),
        ("basic", {"chou_hu": "yes"}, "chou_hu"),
        ("nope", {}, "preset"),
    ],
)
def test_s10_invalid_overrides_name_the_option(preset, options, named):
    with pytest.raises(RuleError) as err:
        resolve_ruleset(preset, options)
    assert str(err.value).startswith(named)


def test_s10_overrides_apply_and_rulesets_are_frozen_values():
    rs = resolve_ruleset("full", {"chou_hu": True, "piao": True, "piao_mode": "loser"})
    assert rs.chou_hu and rs.piao_mode == "loser"
    assert rs == resolve_ruleset("full", {"piao_mode": "loser", "piao": True, "chou_hu": True})
    assert rs.from_json(rs.to_json()) == rs
    with pytest.raises(AttributeError):
        rs.min_huxi = 3  # type: ignore[misc]
    assert "preset" not in OPTION_NAMES


def test_s10_full_da_zi_hu_from_18_big_cards():
    r18 = score("full", BIG_18, win="s3")
    assert r18.win and r18.counts["big"] == 18 and names(r18) == {"hong_hu": 2, "da_zi_hu": 6}
    r17 = score("full", BIG_17, win="s3")
    assert r17.win and r17.counts["big"] == 17 and names(r17) == {"hong_hu": 2}


def test_s10_full_xiao_zi_hu_from_16_small_cards():
    r16 = score("full", SMALL_16, win="b3")
    assert r16.win and r16.counts["small"] == 16 and names(r16) == {"xiao_zi_hu": 8}
    r15 = score("full", SMALL_15, win="b3")
    assert r15.win and r15.counts["small"] == 15 and names(r15) == {}
    # quanmin: 9 + (n − 16).
    assert names(score("quanmin", SMALL_16, win="b3")) == {"xiao_zi_hu": 9}


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


def test_s10_luzhou_huxi_table() -> None:
    rs = PRESETS["luzhou"]
    table = {
        ("peng", "s5"): 1, ("peng", "b5"): 3, ("peng", "s7"): 6, ("peng", "b7"): 9,
        ("kan", "s5"): 6, ("kan", "b5"): 9, ("wei", "s2"): 9, ("wei", "b2"): 12,
        ("pao", "s5"): 9, ("pao", "b10"): 15, ("ti", "s5"): 12, ("ti", "b10"): 18,
    }
    for (kind, card), value in table.items():
        n = 4 if kind in ("ti", "pao") else 3
        assert group_huxi(rs, group_of(kind, " ".join([card] * n))) == value, (kind, card)
    assert group_huxi(rs, group_of("sentence", "s1 s2 s3")) == 3
    assert group_huxi(rs, group_of("sentence", "b1 b2 b3")) == 6
    assert group_huxi(rs, group_of("sentence", "s2 s7 s10")) == 6
    assert group_huxi(rs, group_of("chi", "b2 b7 b10")) == 9
    assert group_huxi(rs, group_of("chi", "s4 s5 s6")) == 0


@pytest.mark.parametrize(
    "red,expected",
    [(0, {"wu_hu": 5}), (1, {"dian_hu": 3}), (2, {}), (4, {}), (9, {}), (10, {"hong_hu": 2}),
     (12, {"hong_hu": 2}), (13, {"hong_wu": 4}), (15, {"hong_wu": 4})],
)
def test_s10_basic_red_boundaries(red: int, expected: dict) -> None:
    assert mt("basic", red=red)[0] == expected


@pytest.mark.parametrize(
    "red,expected",
    [(3, {}), (4, {"hong_hu": 2}), (7, {"hong_hu": 2}), (9, {}), (10, {"hong_hu": 2}), (13, {"hong_wu": 4}),
     (15, {"hong_wu": 6}), (1, {"dian_hu": 3}), (0, {"wu_hu": 5})],
)
def test_s10_full_red_boundaries(red: int, expected: dict) -> None:
    assert mt("full", red=red)[0] == expected


def test_s10_full_big_and_small_boundaries() -> None:
    assert "da_zi_hu" not in mt("full", big=17)[0]
    assert mt("full", big=18)[0]["da_zi_hu"] == 6 and mt("full", big=20)[0]["da_zi_hu"] == 8
    assert "xiao_zi_hu" not in mt("full", small=15)[0]
    assert mt("full", small=16)[0]["xiao_zi_hu"] == 8 and mt("full", small=19)[0]["xiao_zi_hu"] == 11


def test_s10_wu_hu_with_dui_dui_hu_is_10() -> None:
    for preset in ("half", "full"):
        entries, fan, _ = mt(preset, red=0, dui_dui=True)
        assert fan == 10 and entries == {"wu_hu_dui_dui_hu": 10}
        assert mt(preset, red=5, dui_dui=True)[1] == 4
    assert mt("quanmin", red=0, dui_dui=True)[1] == 12


def test_s10_hai_di_half_and_quanmin() -> None:
    assert mt("half", red=5, last_card=True)[:2] == ({"hai_di": 2}, 2)
    assert mt("half", red=10, last_card=True)[1] == 4
    assert mt("basic", red=5, last_card=True)[1] == 1
    assert mt("quanmin", red=5, last_card=True)[1] == 6
    assert mt("quanmin", red=4, last_card=True)[1] == 4 + 4


def test_s10_changsha_mingtang() -> None:
    assert mt("changsha", red=9)[0] == {}
    assert mt("changsha", red=10)[0] == {"shi_hong": 2} and mt("changsha", red=12)[0] == {"shi_hong": 4}
    assert mt("changsha", red=1)[0] == {"yi_dian_hong": 4} and mt("changsha", red=0)[0] == {"hei_hu": 5}
    assert mt("changsha", small=17)[0] == {} and mt("changsha", small=18)[0] == {"shi_ba_xiao": 5}
    assert mt("changsha", big=19)[0] == {"shi_ba_da": 6}
    assert mt("changsha", dui_dui=True)[0] == {"peng_peng_hu": 5}
    assert mt("changsha", bi=2)[0] == {"er_bi": 2} and mt("changsha", bi=4)[0] == {"si_bi": 4}
    assert mt("changsha", piao=2)[0] == {"shuang_piao": 2} and mt("changsha", piao=3)[0] == {}
    assert mt("changsha", win_by="reveal", dealer=True)[0] == {"tian_hu": 5}
    assert mt("changsha", win_by="natural", dealer=True)[0] == {"tian_hu": 5}
    assert mt("changsha", win_by="reveal", dealer=False)[0] == {"di_hu": 5}


def test_s10_quanmin_mingtang() -> None:
    for red, expected in [(4, {"hong_hu": 4}), (7, {"hong_hu": 4}), (10, {"jia_dian_hu": 4}), (11, {"hong_hu": 4}),
                          (1, {"zhen_dian_hu": 5}), (13, {"hong_wu": 5}), (14, {"hong_wu": 6}), (0, {"wu_hu": 6}),
                          (9, {})]:
        assert mt("quanmin", red=red)[0] == expected, red
    assert mt("quanmin", big=18)[0] == {"da_zi_hu": 7} and mt("quanmin", small=16)[0] == {"xiao_zi_hu": 9}
    assert mt("quanmin", shua_hou=True)[2] == (("shua_hou", "fan_x", 6),)
    assert mt("quanmin", win_by="reveal")[2] == (("tian_hu", "huxi_x", 4),)
    assert mt("quanmin", options={"kai_di_you_xi": True}, reveal_card=16)[2] == (("kai_di_you_xi", "tun", 4),)
    assert mt("quanmin", options={"kai_di_you_xi": True}, reveal_card=6)[2] == (("kai_di_you_xi", "tun", 2),)
    assert mt("quanmin", options={"kai_di_you_xi": True}, reveal_card=5)[2] == ()


def test_s10_chenzhou_mingtang_max_stack() -> None:
    assert mt("chenzhou", red=10)[0] == {"hong_hu": 3}
    assert mt("chenzhou", red=10, options={"hong_hu_fan": 2})[0] == {"hong_hu": 2}
    assert mt("chenzhou", red=13)[0] == {"da_hong_hu": 5}
    assert mt("chenzhou", red=1)[0] == {"yi_dian_hong": 4} and mt("chenzhou", red=0)[0] == {"hei_hu": 5}
    assert mt("chenzhou", red=0, options={"hong_hei_dian_2x": True})[0] == {"hei_hu": 2}
    # 自摸 and 放炮 stack on top of the largest (mingtang_stack = "max").
    assert mt("chenzhou", red=0, zimo=True, win_by="self_draw")[:2] == ({"hei_hu": 5, "zi_mo": 2}, 7)
    assert mt("chenzhou", red=5, win_by="discard")[:2] == ({"fang_pao": 3}, 3)


def test_s10_luzhou_mingtang() -> None:
    assert mt("luzhou", red=9)[0] == {} and mt("luzhou", red=10)[0] == {"hong_hu": 2}
    assert mt("luzhou", red=0)[0] == {"wu_hu": 4}


def test_s10_quanmin_shua_hou_on_a_whole_hand() -> None:
    groups = ("pao s9 s9 s9 s9", "ti b5 b5 b5 b5", "peng b3 b3 b3", "chi s1 s2 s3", "chi b1 b2 b3", "wei s4 s4 s4")
    r = score("quanmin", "s6", groups, "s6", "other_draw")
    assert r.win and ("shua_hou", "fan_x", 6) in r.bonuses and r.fan % 6 == 0
