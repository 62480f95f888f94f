"""The searching bot (``hard``) and the levels: legal through the engine's checked path, deciding from
the seat's own view only (RULES.md §4.1 visibility: another seat's hand and the stock are hidden),
and the duel command's JSON line."""

from __future__ import annotations

import io
import json
import random

import pytest

from apps.engine.actions import HU, Action
from apps.engine.bots import search as search_bot
from apps.engine.bots.choose import EASY_RANDOM, bot_choose
from apps.engine.bots.search import Budget, search_choose
from apps.engine.cards import COPIES, KINDS
from apps.engine.cli.main import main
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.play.observer import build_view
from apps.engine.rules import resolve_ruleset

# Bounded by worlds only: the choice depends on nothing but the view, the rules and the rng.
SMALL = Budget(worlds=6, cpu_ms=None, wall_ms=None)


def _decision_points(preset: str, players: int, hands: int, every: int = 3):
    """Hands stopped at decisions with more than one legal action (greedy plays in between)."""
    rules = resolve_ruleset(preset, {}, players=players)
    for i in range(hands):
        seed = hand_seed("search", i)
        rng = random.Random(seed)
        hand = Hand(rules, dealer=i % players, seed=seed)
        step = 0
        while not hand.finished:
            seat = hand.to_act()[0]
            if len(hand.legal_actions(seat)) > 1 and HU not in hand.legal_actions(seat):
                step += 1
                if step % every == 0:
                    yield hand, seat
            hand.apply(seat, bot_choose(hand, seat, "greedy", rng))


@pytest.mark.parametrize(("preset", "players"), [("full", 3), ("chenzhou", 2), ("chenzhou", 4), ("changsha", 3),
                                                  ("luzhou", 4)])
def test_hard_plays_whole_hands_through_the_checked_path(preset: str, players: int) -> None:
    rules = resolve_ruleset(preset, {}, players=players)
    for i in range(2):
        seed = hand_seed("hard", i)
        hand, rng = Hand(rules, dealer=i % players, seed=seed), random.Random(seed)
        steps = 0
        while not hand.finished:
            seat = hand.to_act()[0]
            legal = hand.legal_actions(seat)
            action = bot_choose(hand, seat, "hard" if seat == 0 else "normal", rng, SMALL)
            assert action in legal
            if HU in legal:
                assert action == HU  # every level takes a win it is offered
            hand.apply(seat, action)  # raises IllegalAction on anything not legal
            steps += 1
            assert steps < 2000


def _swap_hidden(hand: Hand, viewer: int) -> Hand:
    """A copy of ``hand`` where another seat's hidden card and a stock card of another kind swap."""
    other = copy_hand(hand)
    for s in other.active_seats:
        if s == viewer:
            continue
        stock = other.stock[other._stock_pos:]
        for c in range(KINDS):
            if other.hands[s][c] == 0:
                continue
            for j, d in enumerate(stock):
                if d != c and other.hands[s][d] < 2:
                    other.hands[s][c] -= 1
                    other.hands[s][d] += 1
                    other.stock[other._stock_pos + j] = c
                    return other
    raise AssertionError("nothing to swap")


def copy_hand(hand: Hand) -> Hand:
    return Hand.from_json(hand.to_json())


def test_the_choice_is_a_function_of_the_view_only() -> None:
    checked = 0
    for hand, seat in _decision_points("full", 3, hands=2, every=2):
        if hand.stock_left() < 2:
            continue
        other = _swap_hidden(hand, seat)
        assert other.hands != hand.hands and other.stock != hand.stock  # the hidden state differs
        assert build_view(other, seat) == build_view(hand, seat)  # ... the seat's view does not
        for s in range(3):
            mine = bot_choose(hand, seat, "hard", random.Random(s), SMALL)
            theirs = bot_choose(other, seat, "hard", random.Random(s), SMALL)
            assert mine == theirs
        checked += 1
    assert checked >= 5


def test_the_view_as_json_is_all_the_search_needs() -> None:
    """What a socket would carry (string seat keys) gives the same choice as the engine's dict."""
    checked = 0
    for hand, seat in _decision_points("chenzhou", 4, hands=2):
        view = build_view(hand, seat)
        wire = json.loads(json.dumps(view))
        for s in range(2):
            a = search_choose(hand.rs, view, random.Random(s), SMALL)
            b = search_choose(hand.rs, wire, random.Random(s), SMALL)
            assert a == b and a in hand.legal_actions(seat)
        checked += 1
    assert checked >= 3


def test_sampled_worlds_agree_with_the_view_and_conserve_cards() -> None:
    """Every world keeps what the seat sees and deals only unseen cards elsewhere (RULES.md §4.1)."""
    checked = 0
    for hand, seat in _decision_points("full", 3, hands=3):
        view = build_view(hand, seat)
        known = search_bot.Known(hand.rs, view)
        legal = hand.legal_actions(seat)
        rng = random.Random(checked)
        for _ in range(5):
            world = known.world(known.sample(rng), legal)
            if world is None:
                continue
            assert world.legal_actions(seat) == legal
            seen = build_view(world, seat)
            for key in ("hands", "discards", "hand_sizes", "stock", "dead", "chou", "table", "reveal"):
                assert seen[key] == view[key], key
            assert {s: [g["kind"] for g in gs] for s, gs in seen["groups"].items()} == {
                s: [g["kind"] for g in gs] for s, gs in view["groups"].items()}
            counts = [0] * KINDS
            for where in world.card_locations().values():
                for cards in (where.values() if isinstance(where, dict) else [where]):
                    for c in (c for g in cards for c in g) if cards and isinstance(cards[0], list) else cards:
                        counts[c] += 1
            assert all(n <= COPIES for n in counts)
            assert sum(counts) == KINDS * COPIES
            for s in world.active_seats:
                assert max(world.hands[s]) <= 3  # four of a kind would have been 提'd
        checked += 1
    assert checked >= 5


def test_easy_is_greedy_with_some_random_choices() -> None:
    differ = same = 0
    for hand, seat in _decision_points("full", 3, hands=4, every=1):
        for s in range(4):
            easy = bot_choose(hand, seat, "easy", random.Random(s))
            normal = bot_choose(hand, seat, "normal", random.Random(s))
            assert easy in hand.legal_actions(seat)
            if easy == normal:
                same += 1
            else:
                differ += 1
    assert differ > 0 and same > differ
    assert 0 < EASY_RANDOM < 0.5


def test_unknown_level_is_refused() -> None:
    hand = Hand(resolve_ruleset("full"), dealer=0, seed=bytes(32))
    with pytest.raises(ValueError, match="unknown bot kind"):
        bot_choose(hand, 0, "expert")
    with pytest.raises(ValueError, match="nothing to decide"):
        bot_choose(hand, 1, "hard")


def test_a_budget_in_cpu_time_ends_the_search() -> None:
    """With a CPU budget only, a decision still plays at least one world and returns a legal action."""
    for hand, seat in _decision_points("full", 3, hands=1):
        action = bot_choose(hand, seat, "hard", random.Random(0), Budget(worlds=None, cpu_ms=0.001, wall_ms=None))
        assert action in hand.legal_actions(seat)


def test_duel_prints_one_json_line_with_the_contract_fields() -> None:
    out = io.StringIO()
    code = main(["duel", "--a", "hard", "--b", "easy", "--deals", "2", "--preset", "chenzhou", "--players", "2",
                 "--seed", "t", "--worlds", "2"], out)
    assert code == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    for key in ("a", "b", "preset", "players", "deals", "hands", "mean_diff", "ci95", "win_rate", "draw_rate",
                "decisions", "ms_per_decision", "cpu_s"):
        assert key in doc, key
    assert (doc["a"], doc["b"], doc["preset"], doc["players"], doc["deals"]) == ("hard", "easy", "chenzhou", 2, 2)
    assert doc["hands"] == 4  # each deal in both seat rotations
    assert doc["ci95"][0] <= doc["mean_diff"] <= doc["ci95"][1]
    assert set(doc["win_rate"]) == {"a", "b"} and set(doc["ms_per_decision"]) == {"p50", "p99"}
    assert doc["decisions"] > 0
    assert doc["win_rate"]["a"] + doc["win_rate"]["b"] + doc["draw_rate"] == pytest.approx(1.0, abs=1e-3)


def test_duel_on_the_same_deals_is_duplicate() -> None:
    """normal against normal: the same cards in every rotation, so the difference is exactly 0."""
    out = io.StringIO()
    main(["duel", "--a", "normal", "--b", "normal", "--deals", "5", "--preset", "full", "--seed", "dup"], out)
    doc = json.loads(out.getvalue())
    assert doc["hands"] == 15
    assert doc["mean_diff"] == 0 and doc["ci95"] == [0, 0]


def test_duel_refuses_bad_input() -> None:
    out = io.StringIO()
    assert main(["duel", "--deals", "0"], out) == 2
    assert "deals" in json.loads(out.getvalue())["error"]
    out = io.StringIO()
    assert main(["duel", "--preset", "full", "--players", "2"], out) == 2
    assert "players" in json.loads(out.getvalue())["error"]


def test_actions_from_the_search_are_the_engine_values() -> None:
    for hand, seat in _decision_points("luzhou", 2, hands=1):
        action = search_choose(hand.rs, build_view(hand, seat), random.Random(1), SMALL)
        assert isinstance(action, Action)
        copy_hand(hand).apply(seat, action)
