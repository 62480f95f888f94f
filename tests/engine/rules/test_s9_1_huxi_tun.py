"""RULES.md §9.1: 胡息 → 囤 (tun)."""

from __future__ import annotations

import pytest

from apps.engine.rules import PRESETS, resolve_ruleset
from apps.engine.scoring.fast import tun_of
from tests.engine.rules.support import ON_PENG
from tests.engine.scoring_helpers import names, score


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


def test_s9_1_tun_3xi1tun_default() -> None:
    rs = PRESETS["full"]
    assert [tun_of(rs, h) for h in (15, 17, 18, 20, 21, 24)] == [1, 1, 2, 2, 3, 4]


def test_s9_1_tun_with_other_min_huxi() -> None:
    rs9 = resolve_ruleset("chenzhou", {"min_huxi": 9})
    assert [tun_of(rs9, h) for h in (9, 11, 12, 15)] == [1, 1, 2, 3]
    lz = PRESETS["luzhou"]
    assert [tun_of(lz, h) for h in (10, 12, 13, 16)] == [1, 1, 2, 3]


def test_s9_1_tun_1xi1tun() -> None:
    rs = resolve_ruleset("chenzhou", {"tun_mode": "1xi1tun", "min_huxi": 3})
    assert [tun_of(rs, h) for h in (3, 17)] == [3, 17]


def test_s9_1_mao_hu_zero_huxi_counts_15() -> None:
    # chenzhou 毛胡: a complete hand with 0 胡息 wins as 15.
    hand = "s3 s4 s5 s4 s5 s6 b4 b5 b6 s6 s7 s8 b7 b8 b9 b3 b4 b5 s8 s9"
    r = score("chenzhou", hand, (), "s10", options={"mao_hu": True, "zimo": "none"})
    assert r.win and r.huxi == 15
    assert r.tun == tun_of(resolve_ruleset("chenzhou"), 15)
    r = score("chenzhou", hand, (), "s10", options={"zimo": "none"})
    assert not r.win and r.reason == "huxi_below_min" and r.huxi == 0


def test_s9_1_zimo_variants() -> None:
    hand, groups = "s1 s2 s3 b5 b5 b5 b1 b2 b3 s7", ("pao s9 s9 s9 s9", "peng b3 b3 b3", "chi s4 s5 s6")
    assert score("full", hand, groups, "s7", "self_draw").tun == 5
    assert score("full", hand, groups, "s7", "other_draw").tun == 4
    changsha = score("changsha", hand, groups, "s7", "self_draw")  # 一二三 scores 0 there: 15 胡息
    assert (changsha.huxi, changsha.tun) == (15, 1)
    r = score("chenzhou", hand, groups, "s7", "self_draw", options={"min_huxi": 15})
    assert names(r)["zi_mo"] == 2 and r.tun == 4
