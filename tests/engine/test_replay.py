"""Hand records: replay reproduces every event; record_of builds what replay reads."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from apps.engine.actions import IllegalAction
from apps.engine.bots.choose import bot_choose
from apps.engine.cards import card_name
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.records.replay import ReplayMismatch, record_of, replay
from apps.engine.rules import resolve_ruleset

RECORDS = sorted((Path(__file__).parent / "records").glob("*.json"))


def _played(preset: str = "full", players: int = 3, index: int = 0, stop: int | None = None) -> Hand:
    seed = hand_seed("replay", index)
    hand = Hand(resolve_ruleset(preset, {}, players=players), dealer=index % players, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not hand.finished and (stop is None or steps < stop):
        seat = hand.to_act()[0]
        hand.apply(seat, bot_choose(hand, seat, "greedy", rng))
        steps += 1
    return hand


def _wire(hand: Hand) -> list[dict]:
    return [e.to_wire() for e in hand.events]


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_recorded_hands_replay_identically(path: Path) -> None:
    record = json.loads(path.read_text())
    hand = replay(record)
    assert hand.finished
    assert json.loads(json.dumps(record_of(hand))) == record


@pytest.mark.parametrize(("preset", "players"), [("full", 3), ("chenzhou", 2), ("chenzhou", 4), ("luzhou", 4)])
def test_record_of_round_trips_through_replay(preset: str, players: int) -> None:
    for index in range(3):
        hand = _played(preset, players, index)
        record = json.loads(json.dumps(record_of(hand)))
        again = replay(record)
        assert _wire(again) == _wire(hand)
        assert json.loads(json.dumps(again.result)) == record["result"]


def test_a_running_hand_has_a_record_too() -> None:
    hand = _played(stop=4)
    record = record_of(hand)
    assert record["result"] is None
    again = replay(json.loads(json.dumps(record)))
    assert again.to_act() == hand.to_act()
    assert _wire(again) == _wire(hand)


def test_a_record_may_give_the_deck_instead_of_the_seed() -> None:
    hand = _played(index=2)
    record = json.loads(json.dumps(record_of(hand)))
    seed = bytes.fromhex(record.pop("seed"))
    from apps.engine.shuffle import deck_from_seed

    record["deck"] = [card_name(c) for c in deck_from_seed(seed)]
    assert _wire(replay(record)) == _wire(hand)
    assert "deck" in record_of(replay(record))


def test_the_first_differing_event_is_named() -> None:
    record = json.loads(json.dumps(record_of(_played(index=1))))
    tampered = copy.deepcopy(record)
    index = len(tampered["events"]) // 2
    tampered["events"][index]["seq"] = 999
    with pytest.raises(ReplayMismatch) as info:
        replay(tampered)
    assert info.value.index == index
    assert info.value.expected["seq"] == 999 and info.value.got["seq"] == index + 1


def test_a_missing_event_is_a_mismatch() -> None:
    record = json.loads(json.dumps(record_of(_played(index=1))))
    record["events"].append({"seq": len(record["events"]) + 1, "type": "huang"})
    with pytest.raises(ReplayMismatch) as info:
        replay(record)
    assert info.value.index == len(record["events"]) - 1 and info.value.got is None


def test_a_changed_result_is_a_mismatch() -> None:
    record = json.loads(json.dumps(record_of(_played(index=1))))
    record["result"] = {"winner": 7}
    with pytest.raises(ReplayMismatch) as info:
        replay(record)
    assert info.value.what == "result"


def test_an_illegal_action_names_its_index() -> None:
    record = json.loads(json.dumps(record_of(_played(index=1))))
    record["actions"].insert(2, {"seat": 0, "action": {"type": "hu"}})
    with pytest.raises(IllegalAction) as info:
        replay(record)
    assert info.value.index == 2


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.pop("preset"),
        lambda r: r.update(players=5),
        lambda r: r.update(dealer=9),
        lambda r: r.update(seed="zz"),
        lambda r: r.update(options={"no_such_option": 1}),
        lambda r: r.update(actions=[{"seat": 0}]),
        lambda r: r.update(actions=[{"seat": 0, "action": {"type": "fly"}}]),
        lambda r: (r.pop("seed"), r.update(deck=["s1"] * 80)),
    ],
)
def test_malformed_records_are_value_errors(mutate) -> None:
    record = json.loads(json.dumps(record_of(_played(index=1))))
    mutate(record)
    with pytest.raises(ValueError) as info:
        replay(record)
    assert not isinstance(info.value, (ReplayMismatch, IllegalAction))
