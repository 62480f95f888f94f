"""复盘 (apps/engine/analysis/review.py, ``python -m apps.engine review``; issue #43).

Budgets are small here (a few nominal ms per decision): the tests check the machinery, not the
figures (scripts/review_ranking.py measures those).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from apps.engine.actions import HU, Action
from apps.engine.analysis.review import MISTAKE_POINTS, decision_legal, load, review, threshold
from apps.engine.cli.main import main
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.play.observer import build_view
from apps.engine.records.replay import record_of, replay
from apps.engine.rules import resolve_ruleset
from tests.engine.hand_support import greedy_record

HERE = Path(__file__).resolve().parent
BLUNDER = HERE / "review_records" / "chenzhou_2p_blunder.json"


def _dump(obj) -> str:
    return json.dumps(obj, sort_keys=True)


def test_same_record_and_seed_give_the_same_review() -> None:
    record = greedy_record("full", 3, "review-det")
    a = review(record, seed="x", budget_ms=3)
    b = review(json.loads(json.dumps(record)), seed="x", budget_ms=3)
    assert _dump(a) == _dump(b)
    c = review(record, seed="y", budget_ms=3)
    assert [d["index"] for d in c["decisions"]] == [d["index"] for d in a["decisions"]]
    assert _dump(c) != _dump(a)  # other worlds: other estimates (the decisions are the same)


def test_every_decision_and_every_candidate_is_listed() -> None:
    """Each discard and claim answer with a choice is a decision; 胡 and forced moments are not
    (RULES.md §5.3: 胡 is always taken). Every legal action is a candidate."""
    record = greedy_record("chenzhou", 2, "review-all")
    result = review(record, seed="s", budget_ms=2)
    hand = replay({**record, "actions": []}, check_events=False)
    want = []
    for index, item in enumerate(record["actions"]):
        legal = decision_legal(hand, item["seat"])
        if legal is not None:
            want.append((index, item["seat"], [a.to_wire() for a in legal]))
        hand.apply(item["seat"], Action.from_wire(item["action"]))
    got = [(d["index"], d["seat"], [c["action"] for c in d["candidates"]]) for d in result["decisions"]]
    assert got == want
    for d in result["decisions"]:
        assert all(c["action"]["type"] != "hu" for c in d["candidates"])
        assert d["chosen"] in [c["action"] for c in d["candidates"]]
        assert d["best"] in [c["action"] for c in d["candidates"]]


def _swapped_deck(record: dict, seat: int) -> dict | None:
    """The same hand with one concealed card of another seat (never the winner) swapped, in the deck,
    with a stock card nobody ever drew: ``seat`` cannot tell the two deals apart (RULES.md §3, §5.2)."""
    rs = resolve_ruleset(record["preset"], record["options"], players=record["players"])
    end = replay(record, check_events=False)
    winner = (end.result or {}).get("winner")
    deck = list(record["deck"])
    block = 14 if rs.deal_all else 20
    order = end._orders[end.dealer]
    drawn_to = block * len(order) + 1 + end._stock_pos  # deck positions dealt, revealed or drawn
    for x in order:
        if x in (seat, winner):
            continue
        start = order.index(x) * block
        for pos in range(start, start + block):
            card = deck[pos]
            held = end.hands[x][_int(card)]
            if not held:
                continue
            for p in range(drawn_to, len(deck)):
                other = deck[p]
                if other == card or end.hands[x][_int(other)] >= 2:
                    continue
                swapped = list(deck)
                swapped[pos], swapped[p] = other, card
                return {**record, "deck": swapped, "events": None, "result": None}
    return None


def _int(name: str) -> int:
    from apps.engine.cards import parse_card

    return parse_card(name)


def _views_along(record: dict, seat: int) -> list:
    hand = replay({**record, "actions": []}, check_events=False)
    views = []
    for item in record["actions"]:
        if item["seat"] == seat and decision_legal(hand, seat) is not None:
            views.append(_dump(build_view(hand, seat)))
        hand.apply(item["seat"], Action.from_wire(item["action"]))
    return views


def test_two_worlds_the_seat_cannot_tell_apart_give_the_same_review() -> None:
    """The view-only guarantee: another seat's concealed card swapped with a stock card nobody drew
    changes nothing the reviewed seat saw, so nothing in its review may change."""
    checked = 0
    for i in range(30):
        record = greedy_record("full", 3, "review-two-worlds", i, deck=True)
        seat = i % 3
        other = _swapped_deck(record, seat)
        if other is None:
            continue
        try:
            replay(other, check_events=False)
        except ValueError:
            continue  # the swap changed another seat's legal actions: not the same hand any more
        views = _views_along(record, seat)
        if not views or views != _views_along(other, seat):
            continue
        a = review(record, seat=seat, seed="w", budget_ms=3)
        b = review(other, seat=seat, seed="w", budget_ms=3)
        assert _dump(a) == _dump(b)
        assert replay(record, check_events=False).hands != replay(other, check_events=False).hands or \
            record["deck"] != other["deck"]
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def test_the_blunder_that_hands_the_next_player_his_hu_is_flagged() -> None:
    """Stacked deck (chenzhou, 2 players, 放炮 counts: RULES.md §5.1, §9.3, §10): seat 1 discards b8
    with the stock nearly spent and seat 0 wins on it (action 22, 胡 on the discard). Reviewed from
    seat 1's view alone, that discard is the hand's one mistake, with its loss told apart."""
    record = json.loads(BLUNDER.read_text())
    assert record["actions"][21] == {"seat": 1, "action": {"type": "discard", "card": "b8"}}
    assert record["actions"][22] == {"seat": 0, "action": {"type": "hu"}}
    assert record["result"]["win_by"] == "discard" and record["result"]["settlement"]["deltas"]["1"] < 0
    result = review(record, seat=1, seed="blunder", budget_ms=40)
    blunder = next(d for d in result["decisions"] if d["index"] == 21)
    assert blunder["mistake"] is True
    assert blunder["best"] != blunder["chosen"]
    evs = {json.dumps(c["action"]): c["ev"] for c in blunder["candidates"]}
    assert blunder["loss"] == pytest.approx(evs[json.dumps(blunder["best"])] - evs[json.dumps(blunder["chosen"])], abs=1e-3)
    assert blunder["loss"] > max(MISTAKE_POINTS, threshold(blunder["worlds"]) * blunder["loss_se"])
    assert [d["index"] for d in result["decisions"] if d["mistake"]] == [21]
    assert result["seats"]["1"]["mistakes"] == 1
    assert result["seats"]["1"]["mean_loss"] * result["seats"]["1"]["decisions"] == pytest.approx(
        blunder["loss"] + sum(d["loss"] for d in result["decisions"] if d["index"] != 21), abs=1e-3)


def test_the_cli_prints_the_contract_shape(tmp_path) -> None:
    record = greedy_record("full", 3, "review-cli")
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record))
    out = io.StringIO()
    assert main(["review", str(path), "--budget-ms", "2", "--seed", "7"], out=out) == 0
    result = json.loads(out.getvalue())
    assert out.getvalue().count("\n") == 1
    assert set(result) >= {"decisions", "seats"}
    assert set(result["seats"]) == {"0", "1", "2"}
    for d in result["decisions"]:
        assert set(d) >= {"index", "seat", "chosen", "best", "candidates", "loss", "mistake"}
        assert record["actions"][d["index"]] == {"seat": d["seat"], "action": d["chosen"]}
        for c in d["candidates"]:
            assert set(c) >= {"action", "ev", "se"}
        assert d["loss"] >= 0 and isinstance(d["mistake"], bool)
    for s in result["seats"].values():
        assert set(s) >= {"decisions", "agreement", "mean_loss", "mistakes"}
    assert sum(s["decisions"] for s in result["seats"].values()) == len(result["decisions"])
    out1 = io.StringIO()
    assert main(["review", str(path), "--seat", "1", "--budget-ms", "2", "--seed", "7"], out=out1) == 0
    one = json.loads(out1.getvalue())
    assert set(one["seats"]) == {"1"}
    assert one["decisions"] == [d for d in result["decisions"] if d["seat"] == 1]
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    assert main(["review", str(bad)], out=io.StringIO()) == 2


def test_an_export_reviews_like_its_record() -> None:
    from tests.engine.exports import make_doc

    doc = make_doc("chenzhou", 2)
    from_export = load(doc)
    hand = Hand(from_export["rules"], dealer=from_export["dealer"], seed=bytes.fromhex(from_export["seed"]))
    for item in from_export["actions"]:
        hand.apply(item["seat"], Action.from_wire(item["action"]))
    assert hand.finished
    assert _dump(review(from_export, seed=1, budget_ms=2)) == _dump(review(record_of(hand), seed=1, budget_ms=2))


def test_simulate_records_are_replayable_and_the_deals_do_not_depend_on_the_bots(tmp_path) -> None:
    seeds = {}
    for bots in ("easy", "normal"):
        out = io.StringIO()
        directory = tmp_path / bots
        code = main(["simulate", "--preset", "chenzhou", "--players", "2", "--hands", "3", "--seed", "r",
                     "--bots", bots, "--records", str(directory)], out=out)
        assert code == 0, out.getvalue()
        files = sorted(p.name for p in directory.iterdir())
        assert files == ["00000.json", "00001.json", "00002.json"]
        seeds[bots] = []
        for name in files:
            record = json.loads((directory / name).read_text())
            hand = replay(record)  # checks every event and the result
            assert hand.finished
            seeds[bots].append(record["seed"])
            check = io.StringIO()
            assert main(["replay", str(directory / name)], out=check) == 0
    assert seeds["easy"] == seeds["normal"] == [hand_seed("r", i).hex() for i in range(3)]


def test_hu_is_no_decision() -> None:
    record = greedy_record("chenzhou", 2, "review-hu")
    result = review(record, seed=0, budget_ms=1)
    hand = replay({**record, "actions": []}, check_events=False)
    indexes = {d["index"] for d in result["decisions"]}
    for index, item in enumerate(record["actions"]):
        if HU in hand.legal_actions(item["seat"]):
            assert index not in indexes
        hand.apply(item["seat"], Action.from_wire(item["action"]))
