"""RULES.md §3.6: Opening 提."""

from __future__ import annotations

from tests.engine.hand_support import act, hand_from
from tests.engine.rules.support import COMPLETE_WITH_S7


def test_s3_6_opening_ti_every_four_of_a_kind_is_laid():
    h = hand_from("full", ["s5 s5 s5", "s1 s1 s1 s1"], "s5")
    tis = [e.to_wire() for e in h.events if e.type == "ti"]
    assert tis == [
        {"seq": 3, "type": "ti", "seat": 0, "card": "s5", "from": "deal"},
        {"seq": 4, "type": "ti", "seat": 1, "card": "s1", "from": "deal"},
    ]
    assert [g.kind for g in h.groups[0]] == ["ti"] and [g.kind for g in h.groups[1]] == ["ti"]


def test_s3_6_passed_reveal_completing_the_dealers_four_is_an_opening_ti():
    h = hand_from("full", ["s7 s7 s7", COMPLETE_WITH_S7], "s7")
    events = act(h, 1, {"type": "pass"})
    assert [e.to_wire() for e in events][1] == {"seq": 4, "type": "ti", "seat": 0, "card": "s7", "from": "deal"}
