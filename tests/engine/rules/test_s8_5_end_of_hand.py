"""RULES.md §8.5: End of hand."""

from __future__ import annotations

from tests.engine.hand_support import act, force_wins, hand_from


def test_s8_5_haidi_passes_last_card_to_the_scorer(monkeypatch):
    calls = force_wins(monkeypatch, {1: {"self_draw"}})
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    h._stock_pos = len(h.stock) - 1
    for s in h.to_act():
        act(h, s, {"type": "pass"})
    assert h.pending == {1: ["hu", "pass"]}
    act(h, 1, {"type": "hu"})
    assert calls[-1]["last_card"] is True and h.result["win_by"] == "self_draw"
