"""RULES.md §9.3: Settlement between players."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from apps.engine import Hand, bot_choose, replay, resolve_ruleset, settle
from apps.engine.rules import PRESETS
from apps.engine.scoring.settlement import settle_amounts
from tests.engine.rules.support import RECORDS


def _discard_win(**options):
    record = json.loads((RECORDS / "chenzhou_3p_discard_win.json").read_text())
    record["options"] = dict(record.get("options") or {}, **options)
    record.pop("events", None)
    record.pop("result", None)
    return replay(record)


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


# A fixed deck that the greedy bots (rng "draw") play to a draw (荒庄) in ``basic``, 3 players.
DRAW_DECK = ("b2 s9 b6 s2 b10 b6 b5 s9 s3 s2 b4 s10 s9 s4 s3 s10 b3 s5 s8 s6 b3 b6 b7 s6 b7 b3 s1 b7 s7 b9 "
             "s2 b9 b5 b1 b8 b1 s4 b10 s1 s2 b8 b7 s8 s8 b2 s7 s1 b2 s10 s7 b10 b5 b1 b4 s5 s9 b6 b5 s5 b8 "
             "b4 s4 s5 b9 s10 b9 s8 b3 s3 b4 s6 b8 s4 s1 s6 b10 b2 s7 b1 s3").split()


def _zero_sum(out: dict) -> None:
    for part in ("score", "piao", "total"):
        assert sum(out[part].values()) == 0, part


def test_s9_3_pao_pays_all_the_discarder_pays_for_everyone():
    h = _discard_win(pao_pays="all")
    winner, discarder = h.result["winner"], h.result["discarder"]
    other = ({0, 1, 2} - {winner, discarder}).pop()
    score_ = h.result["settlement"]["score"]
    out = settle(h, base=2, piao={0: 1, 1: 2, 2: 3})
    assert out["total"][other] == 0
    assert out["score"][discarder] == -2 * score_ * 2 and out["score"][winner] == 2 * score_ * 2
    assert sum(out["total"].values()) == 0
    # 飘 (both): what each loser would have paid (1 + 3 and 2 + 3), the discarder pays it all.
    assert (winner, discarder) == (2, 1)
    assert out["piao"] == {0: 0, 1: -9, 2: 9}


def test_s9_3_pao_pays_each_every_loser_pays():
    h = _discard_win()
    winner = h.result["winner"]
    score_ = h.result["settlement"]["score"]
    out = settle(h, base=1)
    assert all(out["score"][s] == -score_ for s in range(3) if s != winner)


@pytest.mark.parametrize("mode,expected", [("both", {0: -4, 1: -5, 2: 9}), ("loser", {0: -1, 1: -2, 2: 3}),
                                           ("winner", {0: -3, 1: -3, 2: 6})])
def test_s9_3_piao_modes_on_a_finished_hand(mode, expected):
    h = _discard_win(piao_mode=mode)
    assert h.result["winner"] == 2
    out = settle(h, base=1, piao={0: 1, 1: 2, 2: 3})
    assert out["piao"] == expected


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


def test_s9_3_each_loser_pays_score_times_base() -> None:
    out = settle_amounts(PRESETS["full"], 1, 7, [0, 1, 2], base=3)
    assert out["total"] == {0: -21, 1: 42, 2: -21}
    _zero_sum(out)


@pytest.mark.parametrize("mode,expected_loser", [("both", -(5 + 2 + 3)), ("loser", -(5 + 2)), ("winner", -(5 + 3))])
def test_s9_3_piao_modes_zero_sum(mode: str, expected_loser: int) -> None:
    rs = resolve_ruleset("chenzhou", {"piao_mode": mode}, players=3)
    out = settle_amounts(rs, 0, 5, [0, 1, 2], piao={0: 3, 1: 2, 2: 2})
    assert out["total"][1] == expected_loser and out["total"][2] == expected_loser
    _zero_sum(out)


def test_s9_3_no_piao_without_the_option() -> None:
    out = settle_amounts(PRESETS["full"], 0, 5, [0, 1, 2], piao={0: 3, 1: 2, 2: 2})
    assert out["piao"] == {0: 0, 1: 0, 2: 0}


def test_s9_3_sit_out_sitter_untouched() -> None:
    rs = resolve_ruleset("luzhou", {}, players=4)
    out = settle_amounts(rs, 0, 4, [0, 1, 3])
    assert out["total"] == {0: 8, 1: -4, 2: 0, 3: -4}
    _zero_sum(out)


def test_s9_3_pao_pays_all() -> None:
    rs = resolve_ruleset("chenzhou", {"pao_pays": "all", "piao_mode": "both"}, players=3)
    out = settle_amounts(rs, 0, 5, [0, 1, 2], piao={0: 1, 1: 1, 2: 1}, discarder=2)
    assert out["total"] == {0: 14, 1: 0, 2: -14}
    _zero_sum(out)
    each = settle_amounts(resolve_ruleset("chenzhou", {}, players=3), 0, 5, [0, 1, 2], discarder=2)
    assert each["total"] == {0: 10, 1: -5, 2: -5}


def test_s9_3_draw_pays_nothing() -> None:
    rs = resolve_ruleset("chenzhou", {}, players=3)
    out = settle_amounts(rs, None, 0, [0, 1, 2], piao={0: 3, 1: 3, 2: 3})
    assert all(v == 0 for part in out.values() for v in part.values())


def test_s9_3_accepts_a_score_result() -> None:
    class Result:
        score = 6

    assert settle_amounts(PRESETS["full"], 2, Result(), [0, 1, 2])["total"][2] == 12
