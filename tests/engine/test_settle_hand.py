"""RULES.md §9.3: the platform's settlement of a finished hand with base score and 飘."""

import hashlib
import random

import pytest

from apps.engine import Hand, bot_choose, resolve_ruleset, settle


def _play(preset: str, players: int, seed_text: str, **options) -> Hand:
    rs = resolve_ruleset(preset, options, players=players)
    h = Hand(rs, 0, seed=hashlib.sha256(seed_text.encode()).digest())
    rng = random.Random(seed_text)
    while not h.finished:
        seat = h.to_act()[0]
        h.apply(seat, bot_choose(h, seat, "greedy", rng))
    return h


def _finished_win(preset: str, players: int, **options) -> Hand:
    for i in range(400):
        h = _play(preset, players, f"settle-{preset}-{players}-{i}", **options)
        if h.result["winner"] is not None:
            return h
    raise AssertionError("no win in 400 seeded hands")


@pytest.mark.parametrize("mode", ["both", "loser", "winner"])
def test_s9_3_settle_with_base_and_piao_is_zero_sum(mode):
    h = _finished_win("full", 3, piao=True, piao_mode=mode)
    winner = h.result["winner"]
    score = h.result["settlement"]["score"]
    piao = {0: 1, 1: 2, 2: 5}
    out = settle(h, base=3, piao=piao)
    for part in ("score", "piao", "total"):
        assert sum(out[part].values()) == 0
    losers = [s for s in h.active_seats if s != winner]
    assert out["score"][winner] == score * 3 * len(losers)
    expected_piao = {
        "both": sum(piao[s] + piao[winner] for s in losers),
        "loser": sum(piao[s] for s in losers),
        "winner": piao[winner] * len(losers),
    }[mode]
    assert out["piao"][winner] == expected_piao


def test_s9_3_piao_ignored_when_the_ruleset_has_no_piao():
    h = _finished_win("basic", 3)
    out = settle(h, base=2, piao={0: 5, 1: 5, 2: 5})
    assert all(v == 0 for v in out["piao"].values())
    assert out["total"] == out["score"]


def test_s9_3_sit_out_sitter_neither_pays_nor_receives():
    h = _finished_win("luzhou", 4)
    sitter = next(s for s in range(4) if s not in h.active_seats)
    out = settle(h, base=1)
    assert out["total"][sitter] == 0 and sum(out["total"].values()) == 0


# A fixed deck that the greedy bots (rng "draw") play to a draw (荒庄) in ``basic``, 3 players.
DRAW_DECK = ("b2 s9 b6 s2 b10 b6 b5 s9 s3 s2 b4 s10 s9 s4 s3 s10 b3 s5 s8 s6 b3 b6 b7 s6 b7 b3 s1 b7 s7 b9 "
             "s2 b9 b5 b1 b8 b1 s4 b10 s1 s2 b8 b7 s8 s8 b2 s7 s1 b2 s10 s7 b10 b5 b1 b4 s5 s9 b6 b5 s5 b8 "
             "b4 s4 s5 b9 s10 b9 s8 b3 s3 b4 s6 b8 s4 s1 s6 b10 b2 s7 b1 s3").split()


def test_s9_3_draw_pays_nothing_and_unfinished_is_refused():
    rs = resolve_ruleset("basic", {}, players=3)
    h = Hand(rs, 0, deck=DRAW_DECK)
    assert not h.finished
    with pytest.raises(ValueError):
        settle(h)
    rng = random.Random("draw")
    while not h.finished:
        seat = h.to_act()[0]
        h.apply(seat, bot_choose(h, seat, "greedy", rng))
    assert h.result["winner"] is None
    out = settle(h, base=5)
    assert all(v == 0 for part in out.values() for v in part.values())
