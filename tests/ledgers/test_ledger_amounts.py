"""The settlement hot path reads the stored engine result instead of replaying the hand.

``settlement.amounts_from_result`` (``settle_amounts`` on the snapshot's ruleset, dealer and
result) must equal the engine's ``settle(Hand.from_json(state), …)`` on real hands: every piao
mode, discard wins with ``pao_pays`` each/all, 4-player sit_out (every dealer), 2 players, draws.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from apps.engine import Hand, settle
from apps.engine.bots import bot_choose
from apps.engine.rules import resolve_ruleset
from apps.ledgers.settlement import active_seats_of, amounts_from_result, result_is_complete, ruleset_of

# (preset, players, options, piao choices)
CASES = [
    ("full", 3, {}, {}),
    ("full", 3, {"piao": True, "piao_mode": "both"}, {0: 1, 1: 2, 2: 3}),
    ("full", 3, {"piao": True, "piao_mode": "loser"}, {0: 5, 1: 0, 2: 1}),
    ("full", 3, {"piao": True, "piao_mode": "winner"}, {0: 2, 1: 3, 2: 0}),
    ("full", 3, {"discard_win": True, "pao_pays": "all", "piao": True}, {0: 1, 1: 0, 2: 2}),
    ("full", 3, {"discard_win": True, "pao_pays": "each", "piao": True, "piao_mode": "loser"}, {0: 3, 1: 1, 2: 0}),
    ("luzhou", 4, {"piao": True}, {0: 1, 1: 1, 2: 2, 3: 3}),
    ("luzhou", 4, {"piao": True, "discard_win": True, "pao_pays": "all"}, {0: 0, 1: 2, 2: 5, 3: 1}),
    ("chenzhou", 3, {"pao_pays": "all"}, {0: 1, 1: 2, 2: 3}),
    ("chenzhou", 2, {}, {}),
]
HANDS_PER_CASE = 12


def played(preset, players, options, i):
    rs = resolve_ruleset(preset, options, players=players)
    seed = hashlib.sha256(f"amounts-{preset}-{players}-{sorted(options.items())}-{i}".encode()).digest()
    hand = Hand(rs, dealer=i % players, seed=seed)
    rng = random.Random(i)
    while not hand.finished:
        seat = hand.to_act()[0]
        hand.apply(seat, bot_choose(hand, seat, kind="greedy", rng=rng))
    return hand


@pytest.mark.parametrize("preset,players,options,piao", CASES)
def test_amounts_from_stored_result_equal_settle_of_replayed_hand(preset, players, options, piao):
    kinds = set()
    for i in range(HANDS_PER_CASE):
        # What tables stores: the JSON snapshot and the result, through a JSON round trip.
        hand = played(preset, players, options, i)
        state = json.loads(json.dumps(hand.to_json()))
        result = json.loads(json.dumps(hand.result))
        replayed = Hand.from_json(state)
        assert result_is_complete(result)
        stored_piao = {int(k): v for k, v in json.loads(json.dumps(piao)).items()}
        for base in (1, 3):
            want = settle(replayed, base=base, piao=stored_piao)
            got, active = amounts_from_result(
                ruleset=state["ruleset"], dealer=state["dealer"], result=result, base=base, piao=stored_piao
            )
            assert got == want, (preset, options, i, base)
            assert active == list(replayed.active_seats)
        assert active_seats_of(ruleset_of(state["ruleset"]), state["dealer"]) == list(replayed.active_seats)
        winner = result["winner"]
        kinds.add("draw" if winner is None else ("discard" if result.get("discarder") is not None else "self"))
    assert kinds - {"draw"}, f"no win among the {HANDS_PER_CASE} hands of {preset} {options}"


def test_discard_win_with_pao_pays_all_is_covered():
    """At least one real discard win where the discarder pays for everyone, checked above."""
    for i in range(60):
        hand = played("full", 3, {"discard_win": True, "pao_pays": "all", "piao": True}, i)
        if hand.result and hand.result.get("discarder") is not None:
            state = hand.to_json()
            got, _ = amounts_from_result(
                ruleset=state["ruleset"], dealer=state["dealer"], result=hand.result, base=2, piao={0: 1, 2: 2}
            )
            assert got == settle(Hand.from_json(state), base=2, piao={0: 1, 2: 2})
            losers = [s for s in hand.active_seats if s != hand.result["winner"]]
            assert [got["total"][s] < 0 for s in losers].count(True) == 1  # only the discarder pays
            return
    pytest.fail("no discard win in 60 hands")


def test_incomplete_result_means_replay():
    assert not result_is_complete(None)
    assert not result_is_complete({"winner": 1})
    assert not result_is_complete({"winner": 1, "settlement": {}})
    assert result_is_complete({"winner": None, "draw": True})
    with pytest.raises(ValueError):
        amounts_from_result(ruleset={"preset": "full"}, dealer=0, result={"winner": None}, base=0, piao={})
