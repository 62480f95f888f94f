"""RULES.md §3.5: The reveal card joins the dealer's hand."""

from __future__ import annotations

from tests.engine.hand_support import act, cards, hand_from, types_of
from tests.engine.rules.support import REVEAL_WINNER


def test_s3_5_passed_reveal_card_joins_the_dealer():
    h = hand_from("full", ["", REVEAL_WINNER], "b6")
    events = act(h, 1, {"type": "pass"})
    assert types_of(events) == ["pass"]
    assert h.hands[0][cards("b6")[0]] >= 1 and h.held(0) == 21
    assert h.to_act() == [0] and h.phase == "discard"
