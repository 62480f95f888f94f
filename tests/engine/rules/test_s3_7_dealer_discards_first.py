"""RULES.md §3.7: The dealer discards first."""

from __future__ import annotations

from tests.engine.hand_support import hand_from


def test_s3_7_dealer_discards_first():
    h = hand_from("full", ["s5"], "s6")
    assert h.phase == "discard" and h.to_act() == [0]
