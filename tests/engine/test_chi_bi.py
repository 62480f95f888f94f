"""吃 with compulsory 比 (RULES.md §6) and its limits (§11.4)."""

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


def test_s11_4_chi_leaving_nothing_to_discard_is_illegal():
    found, could_form = chi_options(tuple(counts_of(cards("s4 s5 b1 b1 b1"))), cards("s3")[0])
    assert found == () and could_form


def test_s6_chi_wire_order_is_normalised():
    a = Action.from_wire({"type": "chi", "groups": [["s2", "s2", "b2"], ["s3", "s2", "s1"]]})
    assert a.to_wire() == {"type": "chi", "groups": [["s1", "s2", "s3"], ["s2", "s2", "b2"]]}
