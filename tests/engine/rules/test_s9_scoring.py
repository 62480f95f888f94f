"""RULES.md §9: Scoring and settlement."""

from __future__ import annotations


def test_s9_fan_key_thresholds_come_from_the_rows(monkeypatch) -> None:
    """A new row that looks at ``big`` from 15 on moves the fast path's key with it, no edit to
    ``fan_key``: the thresholds are read off the rows built with ``_at_least``."""
    from apps.engine.scoring import mingtang

    assert (mingtang.BIG_FROM, mingtang.SMALL_FROM) == (18, 16)
    row = mingtang.Mingtang("test_big", "测", mingtang._at_least("big", 15), lambda ctx: 1)
    monkeypatch.setitem(mingtang.FAMILIES, "full", mingtang.FULL + (row,))
    assert mingtang._count_from("big") == 15 and mingtang._count_from("small") == 16
