"""The table page's strings: 名堂 names from the engine's rows, in the viewer's language."""

from __future__ import annotations

import re

from django.utils import translation

from apps.engine.scoring.mingtang import CHINESE_NAMES
from apps.tables.i18n import table_strings


def test_mingtang_names_are_the_engine_rows_words_in_chinese() -> None:
    with translation.override("zh-hans"):
        names = table_strings()["mingtangNames"]
    assert names == CHINESE_NAMES
    assert names["shua_hou"] == "耍猴"


def test_mingtang_names_in_english_are_the_pinyin() -> None:
    with translation.override("en"):
        names = table_strings()["mingtangNames"]
    assert set(names) == set(CHINESE_NAMES)
    assert names["hong_hu"] == "Hong Hu" and names["wu_hu_dui_dui_hu"] == "Wu Hu Dui Dui Hu"


def test_strings_for_js_use_one_placeholder_syntax() -> None:
    """static/js/common/text.js fmt fills %(name)s slots only: no string may carry another syntax."""
    for language in ("zh-hans", "en"):
        with translation.override(language):
            strings = table_strings()
        texts = [v for v in strings.values() if isinstance(v, str)]
        assert not [s for s in texts if re.search(r"\{\w+\}", s)], language


def test_placeholder_strings_are_translated() -> None:
    with translation.override("zh-hans"):
        strings = table_strings()
    assert strings["turnOf"] % {"name": "阿明"} == "等待 阿明 出牌"
    assert strings["dissolveAsk"] % {"name": "阿明"} == "阿明 申请解散牌桌"
    assert strings["botName"] % {"n": 2} == "机器人 2"
    assert strings["selfDraw"] == "自摸"
