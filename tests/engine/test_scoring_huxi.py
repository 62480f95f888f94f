"""胡息 table (RULES.md §4.1, §10 luzhou, §11.12) and tun formulas (§9.1)."""

from __future__ import annotations

import pytest
from scoring_helpers import cards, score

from apps.engine.groups import Group
from apps.engine.rules import PRESETS, resolve_ruleset
from apps.engine.scoring.fast import tun_of
from apps.engine.scoring.huxi import group_huxi


def _g(kind: str, text: str) -> Group:
    return Group(kind, tuple(cards(text)))


@pytest.mark.parametrize(
    "kind,small,big",
    [("ti", 9, 12), ("pao", 6, 9), ("wei", 3, 6), ("chou_wei", 3, 6), ("kan", 3, 6), ("peng", 1, 3)],
)
def test_s4_1_huxi_same_card_groups(kind: str, small: int, big: int) -> None:
    n = 4 if kind in ("ti", "pao") else 3
    rs = PRESETS["full"]
    assert group_huxi(rs, _g(kind, " ".join(["s5"] * n))) == small
    assert group_huxi(rs, _g(kind, " ".join(["b5"] * n))) == big


def test_s4_1_huxi_sentences_jiao_jiang() -> None:
    rs = PRESETS["full"]
    assert group_huxi(rs, _g("sentence", "s1 s2 s3")) == 3
    assert group_huxi(rs, _g("chi", "b1 b2 b3")) == 6
    assert group_huxi(rs, _g("sentence", "s2 s7 s10")) == 3
    assert group_huxi(rs, _g("chi", "b2 b7 b10")) == 6
    assert group_huxi(rs, _g("sentence", "s4 s5 s6")) == 0
    assert group_huxi(rs, _g("jiao", "s9 s9 b9")) == 0
    assert group_huxi(rs, _g("chi", "s9 b9 b9")) == 0
    assert group_huxi(rs, _g("jiang", "b10 b10")) == 0


def test_s11_12_changsha_yi_er_san_scores_zero() -> None:
    rs = PRESETS["changsha"]
    assert group_huxi(rs, _g("sentence", "s1 s2 s3")) == 0
    assert group_huxi(rs, _g("sentence", "b1 b2 b3")) == 0
    assert group_huxi(rs, _g("sentence", "b2 b7 b10")) == 6


def test_s10_luzhou_huxi_table() -> None:
    rs = PRESETS["luzhou"]
    table = {
        ("peng", "s5"): 1, ("peng", "b5"): 3, ("peng", "s7"): 6, ("peng", "b7"): 9,
        ("kan", "s5"): 6, ("kan", "b5"): 9, ("wei", "s2"): 9, ("wei", "b2"): 12,
        ("pao", "s5"): 9, ("pao", "b10"): 15, ("ti", "s5"): 12, ("ti", "b10"): 18,
    }
    for (kind, card), value in table.items():
        n = 4 if kind in ("ti", "pao") else 3
        assert group_huxi(rs, _g(kind, " ".join([card] * n))) == value, (kind, card)
    assert group_huxi(rs, _g("sentence", "s1 s2 s3")) == 3
    assert group_huxi(rs, _g("sentence", "b1 b2 b3")) == 6
    assert group_huxi(rs, _g("sentence", "s2 s7 s10")) == 6
    assert group_huxi(rs, _g("chi", "b2 b7 b10")) == 9
    assert group_huxi(rs, _g("chi", "s4 s5 s6")) == 0


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


def test_s4_1_packed_laid_groups_carry_every_huxi_table() -> None:
    """The scorer's packed laid groups (``scoring.tables.LAID``) hold, for each 胡息 table, the 胡息 that
    ``group_huxi`` gives the group (§4.1 and luzhou's table of §10)."""
    from apps.engine.scoring.huxi import group_huxi_by_key
    from apps.engine.scoring.tables import LAID, LAID_HUXI, TABLE_KEYS

    assert len(LAID) == 20 * 5 + 2 * 9 + 2 * 10
    for (kind, laid_cards), packed in LAID.items():
        for lane, key in enumerate(TABLE_KEYS):
            assert (packed >> (LAID_HUXI + 8 * lane)) & 0xFF == group_huxi_by_key(key, kind, laid_cards), (kind, laid_cards, key)
