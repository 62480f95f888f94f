"""apps.clubs.rules_text.describe: the rules in short sentences, zh-hans first, English through gettext."""

from __future__ import annotations

import pytest
from django.utils import translation

from apps.clubs.rules_text import PRESET_OPTIONS, describe, describe_table
from apps.engine.rules import PRESETS, resolve_ruleset
from apps.tables.models import Table

# per preset: players, a line of its own in zh-hans, and in English
PRESET_LINES = {
    "basic": (3, "基本花样，3人。", "Basic, 3 players."),
    "half": (3, "半花样，3人。", "Half mingtang, 3 players."),
    "full": (3, "全名堂，3人。", "Full mingtang, 3 players."),
    "changsha": (3, "长沙跑胡子，3人。", "Changsha, 3 players."),
    "quanmin": (3, "全民跑胡子，3人。", "Quanmin, 3 players."),
    "chenzhou": (4, "郴州跑胡子，4人。", "Chenzhou, 4 players."),
    "luzhou": (2, "泸州大贰，2人。", "Luzhou, 2 players."),
}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_is_described_in_both_languages(preset):
    players, zh, en = PRESET_LINES[preset]
    with translation.override("zh-hans"):
        lines = describe(preset, {}, players=players)
    assert lines[0] == zh and all(isinstance(line, str) and line for line in lines)
    assert not any("{" in line or "True" in line or "_" in line for line in lines)
    with translation.override("en"):
        english = describe(preset, {}, players=players)
    assert english[0] == en and len(english) == len(lines)
    assert preset in PRESET_OPTIONS


def test_preset_defaults_in_words():
    with translation.override("zh-hans"):
        basic = describe("basic", {})
        chenzhou = describe("chenzhou", {}, players=3)
        changsha = describe("changsha", {})
        luzhou = describe("luzhou", {}, players=4)
    assert "15胡息起胡。" in basic and "三息一囤。" in basic and "自摸加1囤。" in basic and "不可接炮。" in basic
    assert "荒庄连庄，连续三次荒庄后下庄。" in basic and "不飘。" in basic
    assert "9胡息起胡。" in chenzhou and "9胡息算1囤，之后每3胡息加1囤。" in chenzhou
    assert "自摸算名堂，2番。" in chenzhou and "可接炮（放炮番数：按人数），每个输家各付。" in chenzhou
    assert "下家因比牌不够吃不了的牌，对他算臭牌。" in chenzhou and "荒庄后下家坐庄。" in chenzhou
    assert "自摸不加分。" in changsha
    assert "四人时庄家对面一人轮空。" in luzhou and "10胡息起胡。" in luzhou and "10胡息算1囤，之后每3胡息加1囤。" in luzhou


def test_overrides_and_table_numbers_in_words():
    options = {"min_huxi": 3, "tun_mode": "1xi1tun", "mao_hu": True, "pao_pays": "all", "hong_hu_fan": 4,
               "hong_hei_dian_2x": True, "chou_hu": True, "piao_mode": "loser", "zimo": "none"}
    with translation.override("zh-hans"):
        lines = describe("chenzhou", options, players=4, piao_choices=[1, 2, 5], base_score=2, turn_seconds=20,
                         claim_seconds=8, fee=3, fee_payer="winner", hands_per_session=6)
    assert "3胡息起胡。" in lines and "一息一囤。" in lines
    for line in ("毛胡：0胡息的完整牌型按15胡息计。", "可接炮（放炮番数：按人数），放炮者一人全付。", "红胡4番。",
                 "红黑点名堂都按2番计。", "每局前选飘：1/2/5；输家付自己的飘。", "底分2。", "每场6局。",
                 "限时：出牌20秒，吃碰胡选择8秒。", "每局桌费3，赢家付。", "自摸不加分。", "四人时全员发牌。"):
        assert line in lines
    assert any(line.startswith("臭胡：") for line in lines)
    with translation.override("en"):
        english = describe("quanmin", {"kai_di_you_xi": True}, fee=0, piao_choices=[2], claim_seconds=10)
    assert "No table fee." in english and "Time limits: 10 seconds to answer a claim." in english
    assert any(line.startswith("Kai di you xi:") for line in english)
    assert "Piao before each hand: 2; a loser pays the loser's and the winner's piao." in english


def test_bad_or_unknown_rules_are_described_without_raising():
    with translation.override("zh-hans"):
        assert describe("nope", {}) == ["未知玩法 nope。"]
        lines = describe("basic", {"min_huxi": "abc", "mao_hu": True})  # the preset's defaults fill in
    assert "15胡息起胡。" in lines and "三息一囤。" in lines


def test_describe_table_uses_the_tables_own_snapshot():
    """A table is described from its resolved ruleset, not from its template (which may change)."""
    ruleset = resolve_ruleset("chenzhou", {"min_huxi": 6}, players=3).to_json()
    table = Table(preset="chenzhou", options={}, players=3, base_score=2, piao_choices=[1], hands_per_session=4,
                  turn_seconds=25, claim_seconds=11, fee=5, fee_payer="each", ruleset=ruleset, practice=True)
    with translation.override("zh-hans"):
        lines = describe_table(table)
    assert lines[0] == "郴州跑胡子，3人。" and "6胡息起胡。" in lines and "6胡息算1囤，之后每3胡息加1囤。" in lines
    assert "限时：出牌25秒，吃碰胡选择11秒。" in lines and not any("桌费" in line for line in lines)  # practice
