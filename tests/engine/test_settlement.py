"""Settlement between players (RULES.md §9.3, §9.4)."""

from __future__ import annotations

import pytest

from apps.engine.rules import PRESETS, resolve_ruleset
from apps.engine.scoring.settlement import settle_amounts


def _zero_sum(out: dict) -> None:
    for part in ("score", "piao", "total"):
        assert sum(out[part].values()) == 0, part


def test_s9_3_each_loser_pays_score_times_base() -> None:
    out = settle_amounts(PRESETS["full"], 1, 7, [0, 1, 2], base=3)
    assert out["total"] == {0: -21, 1: 42, 2: -21}
    _zero_sum(out)


@pytest.mark.parametrize("mode,expected_loser", [("both", -(5 + 2 + 3)), ("loser", -(5 + 2)), ("winner", -(5 + 3))])
def test_s9_3_piao_modes_zero_sum(mode: str, expected_loser: int) -> None:
    rs = resolve_ruleset("chenzhou", {"piao_mode": mode}, players=3)
    out = settle_amounts(rs, 0, 5, [0, 1, 2], piao={0: 3, 1: 2, 2: 2})
    assert out["total"][1] == expected_loser and out["total"][2] == expected_loser
    _zero_sum(out)


def test_s9_3_no_piao_without_the_option() -> None:
    out = settle_amounts(PRESETS["full"], 0, 5, [0, 1, 2], piao={0: 3, 1: 2, 2: 2})
    assert out["piao"] == {0: 0, 1: 0, 2: 0}


def test_s9_3_sit_out_sitter_untouched() -> None:
    rs = resolve_ruleset("luzhou", {}, players=4)
    out = settle_amounts(rs, 0, 4, [0, 1, 3])
    assert out["total"] == {0: 8, 1: -4, 2: 0, 3: -4}
    _zero_sum(out)


def test_s9_3_pao_pays_all() -> None:
    rs = resolve_ruleset("chenzhou", {"pao_pays": "all", "piao_mode": "both"}, players=3)
    out = settle_amounts(rs, 0, 5, [0, 1, 2], piao={0: 1, 1: 1, 2: 1}, discarder=2)
    assert out["total"] == {0: 14, 1: 0, 2: -14}
    _zero_sum(out)
    each = settle_amounts(resolve_ruleset("chenzhou", {}, players=3), 0, 5, [0, 1, 2], discarder=2)
    assert each["total"] == {0: 10, 1: -5, 2: -5}


def test_s9_3_draw_pays_nothing() -> None:
    rs = resolve_ruleset("chenzhou", {}, players=3)
    out = settle_amounts(rs, None, 0, [0, 1, 2], piao={0: 3, 1: 3, 2: 3})
    assert all(v == 0 for part in out.values() for v in part.values())


def test_s9_3_accepts_a_score_result() -> None:
    class Result:
        score = 6

    assert settle_amounts(PRESETS["full"], 2, Result(), [0, 1, 2])["total"][2] == 12
