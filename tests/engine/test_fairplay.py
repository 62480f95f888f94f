"""Fair play (apps/engine/analysis/fairplay.py, bots/cheat.py, ``python -m apps.engine fairplay``; issue #44).

Budgets are small here (a few nominal ms per evaluation): the tests check the machinery and one
fixed seed set, not the calibration figures (README "Fair play").
"""

from __future__ import annotations

import io
import json
import random

from apps.engine.actions import HU
from apps.engine.analysis.fairplay import ALPHA, binomial_tail, fairplay, score
from apps.engine.bots.cheat import cheat_choose, informed
from apps.engine.bots.greedy import greedy
from apps.engine.cli.fairplay import run
from apps.engine.cli.main import main
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.records.replay import replay
from apps.engine.rules import resolve_ruleset
from tests.engine.hand_support import greedy_record


def _dump(obj) -> str:
    return json.dumps(obj, sort_keys=True)


def test_same_record_seat_and_seed_give_the_same_decisions() -> None:
    record = greedy_record("full", 3, "fair-det", 0, deck=True)
    a = fairplay(record, 1, "all", seed="x", budget_ms=3)
    b = fairplay(json.loads(json.dumps(record)), 1, "all", seed="x", budget_ms=3)
    assert a and _dump(a) == _dump(b)
    c = fairplay(record, 1, [2], seed="x", budget_ms=3)
    assert [d["index"] for d in c] == [d["index"] for d in a]
    for d in a:
        assert set(d) >= {"index", "seat", "chosen", "own_best", "informed_best", "telling", "matched"}
        assert record["actions"][d["index"]] == {"seat": 1, "action": d["chosen"]}
        assert not d["matched"] or d["telling"]
        assert not d["feed_matched"] or d["feed_telling"]


def test_told_everything_the_sampler_draws_the_true_world() -> None:
    """With every other seat and the stock told, every sample is the true deal (hands, face-down 偎,
    stock: RULES.md §3); told one partner, only that seat's hand is certain."""
    rs = resolve_ruleset("chenzhou", {}, players=4)
    seed = hand_seed("fair-truth", 0)
    hand = Hand(rs, dealer=0, seed=seed)
    rng = random.Random(1)
    for _ in range(12):
        if hand.finished:
            break
        seat = hand.to_act()[0]
        _, known = informed(hand, seat, "all")
        for _ in range(3):
            hands, wei, stock = known.sample(rng)
            for s in range(rs.players):
                if s != seat:
                    assert hands[s] == list(hand.hands[s])
                    assert wei[s] == [hand.groups[s][i].cards[0] for i in known.hidden_wei[s]]
            assert stock == hand.stock_cards()
        partner = (seat + 1) % rs.players
        _, told = informed(hand, seat, [partner])
        assert told.sample(rng)[0][partner] == list(hand.hands[partner])
        hand.apply(seat, greedy(hand, seat, hand.decision_actions(seat), rng))


def test_the_discard_the_next_player_wins_on_is_telling() -> None:
    """Chenzhou, 2 players, a fixed deck (RULES.md §11.7) played by greedy bots: seat 1 discards s8,
    the own-view best too, and seat 0 wins on it (放炮, RULES.md §5.1, §9.3). Seat 1's view cannot show
    seat 0's hand; told every hidden card, the evaluation sees the 胡 and prefers another discard:
    the decision is telling, and seat 1 (honest) did not take the informed best."""
    record = greedy_record("chenzhou", 2, "fair-stack", 16, deck=True)
    assert record["actions"][13] == {"seat": 1, "action": {"type": "discard", "card": "s8"}}
    assert record["actions"][14] == {"seat": 0, "action": {"type": "hu"}}
    assert record["result"]["win_by"] == "discard" and record["result"]["winner"] == 0
    hand = replay({**record, "actions": record["actions"][:14]}, check_events=False)
    assert HU in hand.legal_actions(0)
    decisions = fairplay(record, 1, "all", seed="t", budget_ms=10)
    d = next(d for d in decisions if d["index"] == 13)
    s8 = {"type": "discard", "card": "s8"}
    assert d["own_best"] == d["chosen"] == s8
    assert d["informed_best"] != s8
    assert d["telling"] is True and d["gain"] > 0
    assert d["matched"] is False
    # the feeding part: s8 hands seat 0 a 胡 (3), another discard feeds less
    assert d["own_best_fed"] == 3 and d["least_fed"] < 3
    assert d["feed_telling"] is True and d["feed_matched"] is False


def test_omniscient_greedy_never_feeds_when_it_can_help_it() -> None:
    rs = resolve_ruleset("full", {}, players=3)
    hand = Hand(rs, dealer=0, seed=hand_seed("fair-og", 0))
    rng = random.Random(0)
    from apps.engine.bots.cheat import feeds

    checked = 0
    while not hand.finished:
        seat = hand.to_act()[0]
        if seat == 0 and hand.phase == "discard":
            action = cheat_choose(hand, 0, "omniscient-greedy", rng)
            _, known = informed(hand, 0, "all")
            legal = hand.decision_actions(0)
            fed = [feeds(known, legal, a, rng) for a in legal]
            assert feeds(known, legal, action, rng) == min(fed)
            checked += 1
        else:
            action = greedy(hand, seat, hand.decision_actions(seat), rng)
        hand.apply(seat, action)
    assert checked


def test_a_cheater_is_flagged_and_an_honest_bot_over_the_same_deals_is_not() -> None:
    """Seed ``fp-test``, 8 hands of chenzhou, 2 players, detector budget 5 nominal ms: seat 0 the
    search bot told the true world (its own seeds and budget), then seat 0 the honest ``normal`` bot."""
    cheat = run("omniscient", "normal", hands=8, seed="fp-test", preset="chenzhou", players=2, budget_ms=5)
    honest = run("none", "normal", hands=8, seed="fp-test", preset="chenzhou", players=2, budget_ms=5)
    assert cheat["flagged"] is True and cheat["p"] < ALPHA
    assert honest["flagged"] is False and honest["p"] > 0.05
    assert cheat["ev"]["rate"] > honest["ev"]["rate"]


def test_score_is_a_one_sided_binomial_test() -> None:
    base = {"ev": 0.25, "feed": 0.5}
    ds = [{"telling": True, "matched": i < 9, "feed_telling": False, "feed_matched": False} for i in range(12)]
    out = score(ds, "all", base)
    assert out["ev"]["telling"] == 12 and out["ev"]["matched"] == 9
    assert out["ev"]["p"] == float(f"{binomial_tail(9, 12, 0.25):.4g}")
    assert out["p"] == float(f"{min(1.0, 2 * binomial_tail(9, 12, 0.25)):.4g}")
    assert out["flagged"] is (out["p"] < ALPHA)
    assert score([], "all", base)["flagged"] is False
    assert binomial_tail(0, 5, 0.3) == 1.0 and binomial_tail(6, 5, 0.3) == 0.0
    assert abs(binomial_tail(3, 3, 0.5) - 0.125) < 1e-12


def test_the_cli_prints_one_json_line() -> None:
    out = io.StringIO()
    code = main(["fairplay", "--cheat", "omniscient-greedy", "--level", "easy", "--hands", "1", "--seed", "c",
                 "--preset", "chenzhou", "--players", "2", "--budget-ms", "2"], out=out)
    assert code == 0, out.getvalue()
    assert out.getvalue().count("\n") == 1
    result = json.loads(out.getvalue())
    assert set(result) >= {"cheat", "level", "hands", "score", "p", "telling", "flagged"}
    assert result["cheat"] == "omniscient-greedy" and result["level"] == "easy" and result["hands"] == 1
    assert isinstance(result["flagged"], bool) and 0 <= result["p"] <= 1
    bad = io.StringIO()
    assert main(["fairplay", "--cheat", "partner", "--hands", "1", "--preset", "chenzhou", "--players", "2"],
                out=bad) == 2
    assert json.loads(bad.getvalue())["error"] == "bad_arguments"


def test_partner_cheats_each_with_the_others_hand() -> None:
    """Seats 0 and 1 search told each other's hand; every action they take is legal."""
    rs = resolve_ruleset("full", {}, players=3)
    hand = Hand(rs, dealer=0, seed=hand_seed("fair-partner", 0))
    rng = random.Random(0)
    for _ in range(6):
        seat = hand.to_act()[0]
        if seat in (0, 1):
            action = cheat_choose(hand, seat, "partner", rng, partner=1 - seat)
        else:
            action = greedy(hand, seat, hand.decision_actions(seat), rng)
        assert action in hand.decision_actions(seat)
        hand.apply(seat, action)
