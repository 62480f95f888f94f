"""The engine's bots: always legal, deterministic for a given rng, greedy takes 胡."""

from __future__ import annotations

import random

import pytest

from apps.engine.actions import Action
from apps.engine.bots.choose import bot_choose
from apps.engine.bots.greedy import partners
from apps.engine.cards import counts_of, parse_card
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.rules import resolve_ruleset
from tests.engine.hand_support import hand_from


def _play(kind: str, preset: str, players: int, index: int) -> Hand:
    seed = hand_seed("bots", index)
    hand = Hand(resolve_ruleset(preset, {}, players=players), dealer=index % players, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not hand.finished:
        seat = hand.to_act()[0]
        legal = hand.legal_actions(seat)
        action = bot_choose(hand, seat, kind=kind, rng=rng)
        assert action in legal
        if kind == "greedy" and Action("hu") in legal:
            assert action == Action("hu")
        hand.apply(seat, action)
        steps += 1
        assert steps < 2000
    return hand


@pytest.mark.parametrize("kind", ["random", "greedy"])
@pytest.mark.parametrize(("preset", "players"), [("full", 3), ("chenzhou", 4), ("luzhou", 2), ("changsha", 3)])
def test_bots_only_choose_legal_actions(kind: str, preset: str, players: int) -> None:
    for index in range(6):
        assert _play(kind, preset, players, index).finished


def test_bots_are_deterministic_for_a_seeded_rng() -> None:
    a = _play("greedy", "full", 3, 1)
    b = _play("greedy", "full", 3, 1)
    assert [e.to_wire() for e in a.events] == [e.to_wire() for e in b.events]


def test_greedy_wins_more_than_random() -> None:
    def wins(kind: str) -> int:
        return sum(_play(kind, "full", 3, i).result["winner"] is not None for i in range(30))

    assert wins("greedy") >= wins("random")


def test_partners_counts_pairs_neighbours_jiao_and_er_qi_shi() -> None:
    cards = [parse_card(c) for c in ["s2", "s2", "s3", "b2", "s7", "s10", "b9"]]
    counts = counts_of(cards)
    isolated = partners(counts, parse_card("b9"))
    connected = partners(counts, parse_card("s2"))
    assert isolated == 0
    assert connected > partners(counts, parse_card("s7")) > isolated


def test_greedy_discards_the_loneliest_card() -> None:
    # A fixed deck: the dealer holds pairs, neighbours and lone cards, nobody can win on the
    # reveal, so the dealer discards first (§3.7) and has a loneliest card to choose.
    hand = hand_from("full", ["s2 s2 s3 b2 s7 s10 b9"], "b5")
    seat = hand.to_act()[0]
    legal = hand.legal_actions(seat)
    assert seat == 0 and legal and all(a.type == "discard" for a in legal)
    choice = bot_choose(hand, seat, kind="greedy", rng=random.Random(0))
    from apps.engine.bots.greedy import hand_cards

    counts = counts_of(hand_cards(hand, seat))
    assert partners(counts, choice.card) == min(partners(counts, a.card) for a in legal)


def test_unknown_kind_is_rejected() -> None:
    hand = Hand(resolve_ruleset("full", {}, players=3), dealer=0, seed=bytes(32))
    seat = hand.to_act()[0]
    with pytest.raises(ValueError):
        bot_choose(hand, seat, kind="clever", rng=random.Random(0))
