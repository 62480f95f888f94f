"""RULES.md §5.4: After a claim."""

from __future__ import annotations

from tests.engine.hand_support import act, force_wins, hand_from, types_of


def test_s5_4_declining_the_hu_of_a_forced_pao_leaves_the_pao(monkeypatch):
    force_wins(monkeypatch, {2: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3 s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    for s in h.to_act():
        act(h, s, {"type": "pass"})
    assert h.pending == {2: ["hu", "pass"]}
    events = act(h, 2, {"type": "pass"})
    assert types_of(events) == ["pass", "pao"] and not h.finished
