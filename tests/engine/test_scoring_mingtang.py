"""名堂 per preset at their boundaries (RULES.md §9.2, §10, §11.8, §11.11, §11.14, §11.15)."""

from __future__ import annotations

import pytest
from scoring_helpers import names, score

from apps.engine.rules import resolve_ruleset
from apps.engine.scoring.mingtang import MingtangContext, bonuses_of, mingtang_of


def mt(preset: str, red: int = 5, big: int = 10, small: int = 11, options: dict | None = None, **kw):
    rs = resolve_ruleset(preset, options or {})
    fields = dict(win_by="other_draw", dealer=False, zimo=False, last_card=False, reveal_card=None, shua_hou=False)
    fields.update(kw)
    ctx = MingtangContext(rs=rs, red=red, big=big, small=small, **fields)
    entries, fan = mingtang_of(rs, ctx)
    return dict(entries), fan, bonuses_of(rs, ctx)


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


def test_s11_14_zi_mo_is_not_a_mingtang_for_hai_di() -> None:
    entries, fan, _ = mt("quanmin", red=5, last_card=True, zimo=True, options={"zimo": "fan"})
    assert entries == {"hai_di": 6, "zi_mo": 2} and fan == 8


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


def test_s9_1_zimo_variants() -> None:
    hand, groups = "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7", ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")
    assert score("full", hand, groups, "s7", "self_draw").tun == 5
    assert score("full", hand, groups, "s7", "other_draw").tun == 4
    changsha = score("changsha", hand, groups, "s7", "self_draw")  # 一二三 scores 0 there: 15 胡息
    assert (changsha.huxi, changsha.tun) == (15, 1)
    r = score("chenzhou", hand, groups, "s7", "self_draw", options={"min_huxi": 15})
    assert names(r)["zi_mo"] == 2 and r.tun == 4


def test_s11_11_full_reveal_win_doubles_huxi() -> None:
    hand = "s1 s2 s3 b5 b5 b5 b1 b2 b3 s9 s9 s9 b8 b8 b8 s4 s5 s6 s7 s7"
    dealer = score("full", hand, (), "s9", "reveal", dealer=True)  # dealer: the reveal card is dealt: 坎→提
    assert dealer.win and dealer.huxi == 30 and ("tian_hu", "huxi_x", 2) in dealer.bonuses
    assert dealer.tun == (60 - 15) // 3 + 1 + 1  # and 自摸 (§11.11)
    other = score("full", "s1 s2 s3 b5 b5 b5 b1 b2 b3 s9 s9 s9 s9 b8 b8 b8 s5 s6 s7 s7", (), "s4", "reveal")
    assert other.win and other.huxi == 30 and other.tun == (60 - 15) // 3 + 1  # not 自摸


def test_s10_quanmin_shua_hou_on_a_whole_hand() -> None:
    groups = ("pao s9 s9 s9 s9", "ti b5 b5 b5 b5", "peng b3 b3 b3", "chi s1 s2 s3", "chi b1 b2 b3", "wei s4 s4 s4")
    r = score("quanmin", "s6", groups, "s6", "other_draw")
    assert r.win and ("shua_hou", "fan_x", 6) in r.bonuses and r.fan % 6 == 0


def test_s9_fan_key_thresholds_come_from_the_rows(monkeypatch) -> None:
    """A new row that looks at ``big`` from 15 on moves the fast path's key with it, no edit to
    ``fan_key``: the thresholds are read off the rows built with ``_at_least``."""
    from apps.engine.scoring import mingtang

    assert (mingtang.BIG_FROM, mingtang.SMALL_FROM) == (18, 16)
    row = mingtang.Mingtang("test_big", "测", mingtang._at_least("big", 15), lambda ctx: 1)
    monkeypatch.setitem(mingtang.FAMILIES, "full", mingtang.FULL + (row,))
    assert mingtang._count_from("big") == 15 and mingtang._count_from("small") == 16


def test_s9_2_every_row_has_its_chinese_name_once() -> None:
    """The Chinese names the platform shows come from the rows (one table, no second copy)."""
    from apps.engine.scoring.mingtang import BONUSES, CHINESE_NAMES, COMMON, FAMILIES

    rows = [*(r for rows in FAMILIES.values() for r in rows), *COMMON, *(b for rows in BONUSES.values() for b in rows)]
    assert set(CHINESE_NAMES) == {r.name for r in rows}
    assert all(CHINESE_NAMES[r.name] == r.chinese for r in rows if r not in FAMILIES["luzhou"])
    assert CHINESE_NAMES["hong_hu"] == "红胡" and CHINESE_NAMES["wu_hu"] == "乌胡"  # not luzhou's 红 / 乌
    assert CHINESE_NAMES["kai_di_you_xi"] == "开底有喜" and CHINESE_NAMES["zi_mo"] == "自摸"
