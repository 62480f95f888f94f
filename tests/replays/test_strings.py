"""The replay viewer's strings: one placeholder syntax (%(name)s, what static/js/common/text.js fills)."""

from __future__ import annotations

import re

from django.utils import translation

from apps.replays.views import replay_strings


def test_replay_strings_use_one_placeholder_syntax_and_are_translated() -> None:
    for language in ("zh-hans", "en"):
        with translation.override(language):
            texts = [v for v in replay_strings().values() if isinstance(v, str)]
        assert not [s for s in texts if re.search(r"\{\w+\}", s)], language
    with translation.override("zh-hans"):
        strings = replay_strings()
    assert strings["claimOn"] % {"card": "五", "name": "阿明", "source": strings["selfDraw"]} == "阿明的五（自摸）"
    assert strings["moveCount"] % {"k": 3, "n": 40} == "第 3/40 步"
    assert "sourceSelf" not in strings  # a self-drawn card has one word, the table's selfDraw
