"""RULES.md §8.4: Where a win may come from."""

from __future__ import annotations

from tests.engine.hand_support import act, force_wins, hand_from, pass_all, types_of


def test_s8_4_nobody_else_wins_on_a_wei_card(monkeypatch):
    force_wins(monkeypatch, {0: {"other_draw"}, 2: {"other_draw"}})
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert types_of(h.events)[-1] == "wei" and h.pending == {}


def test_s8_4_no_hu_on_a_discard_without_discard_win(monkeypatch):
    force_wins(monkeypatch, {1: {"discard", "other_draw"}, 2: {"discard"}})
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    assert all("hu" not in opts for opts in h.pending.values())
