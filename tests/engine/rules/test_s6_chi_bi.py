"""RULES.md §6: 吃 (chi) and 比 (bi)."""

from __future__ import annotations

from apps.engine.actions import Action
from apps.engine.cards import counts_of
from apps.engine.chi import chi_options
from tests.engine.hand_support import act, cards, hand_from, wires


def options(hand: str, card: str) -> list[list[list[str]]]:
    found, _ = chi_options(tuple(counts_of(cards(hand))), cards(card)[0])
    return [Action.chi(g).to_wire()["groups"] for g in found]


def test_s6_seed_002_example_is_exactly_one_chi():
    assert options("s1 s2 s2 s3 b2 b9", "s2") == [[["s1", "s2", "s3"], ["s2", "s2", "b2"]]]


def test_s6_seed_002_example_in_a_hand_with_peng_also_legal():
    h = hand_from("full", ["s2", "s1 s2 s2 s3 b2"], "s10")
    act(h, 0, {"type": "discard", "card": "s2"})
    legal = wires(h.legal_actions(1))
    chis = [a for a in legal if a["type"] == "chi"]
    assert chis == [{"type": "chi", "groups": [["s1", "s2", "s3"], ["s2", "s2", "b2"]]}]
    assert {"type": "peng"} in legal


def test_s6_no_chi_with_kan_cards():
    assert options("s4 s4 s4 s5", "s3") == []


def test_s6_a_kan_of_the_card_cannot_eat_it():
    assert options("s3 s3 s3 s4 s5", "s3") == []


def test_s6_a_pair_of_the_card_must_be_placed_whole():
    assert options("s3 s3 s4 s5", "s3") == []
    assert options("s3 s3 s4 s5 b3 b9", "s3") == [[["s3", "s3", "b3"], ["s3", "s4", "s5"]]]


def test_s6_the_other_case_may_stay():
    assert options("b7 s8 s9", "s7") == [[["s7", "s8", "s9"]]]


def test_s6_er_qi_shi_and_yi_er_san_and_jiao():
    assert options("s7 s10 b9", "s2") == [[["s2", "s7", "s10"]]]
    assert options("b1 b3 s9", "b2") == [[["b1", "b2", "b3"]]]
    assert options("b5 b5 b9", "s5") == [[["s5", "b5", "b5"]]]


def test_s6_distinct_by_set_of_groups():
    # Two ways to lay the same two groups are one action; different groups are different actions.
    got = options("s4 s5 s1 s2 b9", "s3")
    assert got == [[["s1", "s2", "s3"]], [["s2", "s3", "s4"]], [["s3", "s4", "s5"]]]


def test_s6_chi_wire_order_is_normalised():
    a = Action.from_wire({"type": "chi", "groups": [["s2", "s2", "b2"], ["s3", "s2", "s1"]]})
    assert a.to_wire() == {"type": "chi", "groups": [["s1", "s2", "s3"], ["s2", "s2", "b2"]]}


def test_s6_a_pair_of_c_with_one_copy_in_the_eating_jiao_and_one_in_a_bi():
    # Hand s3 s3 b3 s4 s5: eat s3 as [s3 s3 b3] and 比 the other s3 as [s3 s4 s5] (or the reverse):
    # one action, two groups.
    h = hand_from("full", ["s3", "s3 s3 b3 s4 s5"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    chis = [a for a in wires(h.legal_actions(1)) if a["type"] == "chi"]
    assert chis == [{"type": "chi", "groups": [["s3", "s3", "b3"], ["s3", "s4", "s5"]]}]


def test_s6_a_pair_of_c_that_cannot_both_be_placed_may_not_eat():
    h = hand_from("full", ["s3", "s3 s3 s4 s5"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    assert "chi" not in h.pending.get(1, []) and "peng" in h.pending[1]


def test_s6_chi_with_bi_lays_three_groups():
    # Hand s2 s2 s1 s3 b2 b2 s7 s10: eat s2; both remaining s2 must be 比'd.
    h = hand_from("full", ["s2", "s2 s2 s1 s3 b2 b2 s7 s10 s9"], "s6")
    act(h, 0, {"type": "discard", "card": "s2"})
    chis = [a for a in h.legal_actions(1) if a.type == "chi"]
    s2 = cards("s2")[0]
    # Every legal 吃 lays the taken s2 and both hand copies.
    assert chis and all(sum(g.count(s2) for g in a.groups) == 3 for a in chis)
    three = next(a for a in chis if len(a.groups) == 3)
    act(h, 1, wires([three])[0])
    assert [g.kind for g in h.groups[1]] == ["chi", "chi", "chi"] and h.hands[1][s2] == 0
