"""RULES.md §9.2: 名堂 (fan)."""

from __future__ import annotations

from tests.engine.scoring_helpers import names, score


def test_s9_2_red_counts_laid_groups_hand_and_winning_card():
    hand = "b2 b7 b10 s7 s8 s9 b1 b2 b3 s4 s5 s6 s10 s10"
    r = score("basic", hand, ["peng s2 s2 s2", "chi b7 b8 b9"], "s10")
    assert r.win and r.counts["red"] == 12 and names(r) == {"hong_hu": 2}


def test_s9_2_every_row_has_its_chinese_name_once() -> None:
    """The Chinese names the platform shows come from the rows (one table, no second copy)."""
    from apps.engine.scoring.mingtang import BONUSES, CHINESE_NAMES, COMMON, FAMILIES

    rows = [*(r for rows in FAMILIES.values() for r in rows), *COMMON, *(b for rows in BONUSES.values() for b in rows)]
    assert set(CHINESE_NAMES) == {r.name for r in rows}
    assert all(CHINESE_NAMES[r.name] == r.chinese for r in rows if r not in FAMILIES["luzhou"])
    assert CHINESE_NAMES["hong_hu"] == "红胡" and CHINESE_NAMES["wu_hu"] == "乌胡"  # not luzhou's 红 / 乌
    assert CHINESE_NAMES["kai_di_you_xi"] == "开底有喜" and CHINESE_NAMES["zi_mo"] == "自摸"
