"""RULES.md §5.5: Upgrades."""

from __future__ import annotations

from tests.engine.hand_support import act, hand_from, lay, pass_all
from tests.engine.rules.support import last


def test_s5_5_own_peng_plus_own_draw_becomes_pao():
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    h = hand_from("full", ["s9", "s6 s6 s6"], "s10", "s6")
    lay(h, 1, "peng", "s6 s6 s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert [e.type for e in h.events][-2:] == ["show", "pao"] or last(h, "pao")["from"] == "peng"
    assert last(h, "pao")["seat"] == 1 and [g.kind for g in h.groups[1]] == ["pao"]


def test_s5_5_peng_plus_another_players_draw_becomes_pao():
    h = hand_from("full", ["s9", "", "s6 s6 s6"], "s10", "s6")
    lay(h, 2, "peng", "s6 s6 s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show")["seat"] == 1
    assert last(h, "pao") == {"seq": last(h, "pao")["seq"], "type": "pao", "seat": 2, "card": "s6", "from": "peng"}
    assert h.to_act() == [2]


def test_s5_5_wei_plus_a_discard_becomes_pao():
    h = hand_from("full", ["s6", "", "s6 s6 s6"], "s10")
    lay(h, 2, "wei", "s6 s6 s6")
    events = act(h, 0, {"type": "discard", "card": "s6"})
    assert events[-1].to_wire()["type"] == "pao" and events[-1].to_wire()["from"] == "wei"


def test_s5_5_chou_wei_plus_a_discard_becomes_pao():
    h = hand_from("full", ["s6", "", "s6 s6 s6"], "s10")
    lay(h, 2, "chou_wei", "s6 s6 s6")
    events = act(h, 0, {"type": "discard", "card": "s6"})
    assert events[-1].to_wire() == {"seq": events[-1].seq, "type": "pao", "seat": 2, "card": "s6", "from": "wei"}
    assert [g.kind for g in h.groups[2]] == ["pao"]


def test_s5_5_chou_wei_plus_own_draw_becomes_ti():
    h = hand_from("full", ["s9", "s6 s6 s6"], "s10", "s6")
    lay(h, 1, "chou_wei", "s6 s6 s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "ti") == {"seq": last(h, "ti")["seq"], "type": "ti", "seat": 1, "card": "s6", "from": "wei"}
