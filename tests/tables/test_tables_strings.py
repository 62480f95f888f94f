"""The table page's strings: 名堂 names from the engine's rows, in the viewer's language."""

from __future__ import annotations

from django.utils import translation

from apps.engine.mingtang import CHINESE_NAMES
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
