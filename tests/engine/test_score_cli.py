"""The ``score`` command's JSON contract (ENGINE_CLI.md) through ``score_requests``; no Django."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apps.engine.cli.score_requests import run_bench_vectors, run_score
from tests.engine.bench_vectors import make_vectors

EXAMPLE_IN = {
    "preset": "full", "options": {}, "players": 3,
    "hand": ["s1", "s2", "s3", "b5", "b5", "b5", "b1", "b2", "b3", "s7"],
    "groups": [
        {"kind": "pao", "cards": ["s9", "s9", "s9", "s9"]},
        {"kind": "peng", "cards": ["b3", "b3", "b3"]},
        {"kind": "chi", "cards": ["s4", "s5", "s6"]},
    ],
    "win_card": "s7", "win_by": "self_draw", "dealer": False, "last_card": False, "reveal_card": None,
}
EXAMPLE_OUT = {
    "win": True, "huxi": 24,
    "groups": [
        {"kind": "pao", "cards": ["s9", "s9", "s9", "s9"], "huxi": 6},
        {"kind": "peng", "cards": ["b3", "b3", "b3"], "huxi": 3},
        {"kind": "chi", "cards": ["s4", "s5", "s6"], "huxi": 0},
        {"kind": "sentence", "cards": ["s1", "s2", "s3"], "huxi": 3},
        {"kind": "kan", "cards": ["b5", "b5", "b5"], "huxi": 6},
        {"kind": "sentence", "cards": ["b1", "b2", "b3"], "huxi": 6},
        {"kind": "jiang", "cards": ["s7", "s7"], "huxi": 0},
    ],
    "counts": {"red": 4, "big": 9, "small": 12},
    "tun": 5, "mingtang": [{"name": "hong_hu", "fan": 2}], "fan": 2, "score": 10,
}


def test_engine_cli_score_example_exactly() -> None:
    out, status = run_score(json.dumps(EXAMPLE_IN))
    assert status == 0 and json.loads(out) == EXAMPLE_OUT


def test_engine_cli_score_list_in_list_out() -> None:
    bad = dict(EXAMPLE_IN, hand=["s11"])
    out, status = run_score(json.dumps([EXAMPLE_IN, bad]))
    answers = json.loads(out)
    assert status == 2 and answers[0] == EXAMPLE_OUT and answers[1]["reason"] == "bad_input"
    out, status = run_score(json.dumps([EXAMPLE_IN]))
    assert status == 0 and json.loads(out) == [EXAMPLE_OUT]


@pytest.mark.parametrize(
    "change",
    [
        {"hand": ["x1"]},
        {"hand": ["s9"] + EXAMPLE_IN["hand"][1:]},  # a fifth s9
        {"hand": ["b5"] + EXAMPLE_IN["hand"][1:]},  # four b5 in hand
        {"win_by": "discard"},  # full has no discard_win
        {"win_by": "sideways"},
        {"groups": [{"kind": "peng", "cards": ["s1", "s1", "s2"]}]},
        {"groups": [{"kind": "chi", "cards": ["s1", "s3", "s5"]}]},
        {"groups": [{"kind": "kan", "cards": ["s1", "s1", "s1"]}]},
        {"preset": "nope"},
        {"options": {"min_huxi": "x"}},
        {"win_card": None},
        {"dealer": "yes"},
    ],
)
def test_engine_cli_bad_input(change: dict) -> None:
    out, status = run_score(json.dumps(dict(EXAMPLE_IN, **change)))
    data = json.loads(out)
    assert status == 2 and data["win"] is False and data["reason"] == "bad_input" and data["message"]


def test_engine_cli_malformed_json() -> None:
    out, status = run_score("{not json")
    assert status == 2 and json.loads(out)["reason"] == "bad_input"


def test_engine_cli_not_a_win_shapes() -> None:
    out, status = run_score(json.dumps(dict(EXAMPLE_IN, win_card="s8")))
    assert status == 0 and json.loads(out) == {"win": False, "reason": "incomplete", "message": json.loads(out)["message"]}
    low = dict(EXAMPLE_IN, groups=[{"kind": "pao", "cards": ["s10"] * 4}, {"kind": "peng", "cards": ["s3"] * 3},
                                   {"kind": "chi", "cards": ["b7", "b8", "b9"]}],
               hand=["s4", "s5", "s6", "s7", "s8", "s9", "b4", "b5", "b6", "s1"], win_card="s1")
    data = json.loads(run_score(json.dumps(low))[0])
    assert data["reason"] == "huxi_below_min" and data["huxi"] == 7


def test_engine_cli_four_in_hand_allowed_for_reveal_and_natural() -> None:
    req = dict(EXAMPLE_IN, hand=["s1"] * 4 + ["b2"] * 4 + ["s5"] * 4 + ["s2", "s3", "s4", "b7", "b8", "b9", "s8", "s9"],
               groups=[], win_card=None, win_by="natural", dealer=True)
    out, status = run_score(json.dumps(req))
    assert status == 0 and json.loads(out)["win"] is True


def test_bench_vectors_are_deterministic_and_valid(tmp_path: Path) -> None:
    vectors = make_vectors(3, 200)
    assert vectors == make_vectors(3, 200)
    out, status = run_score(json.dumps(vectors))
    answers = json.loads(out)
    assert status == 0 and any(a["win"] for a in answers) and any(not a["win"] for a in answers)
    path = tmp_path / "v.json"
    path.write_text(json.dumps(vectors))
    result = run_bench_vectors(str(path))
    assert result["evaluations"] == 200 and result["per_second"] > 0


def test_score_requests_never_imports_django() -> None:
    code = "import sys, apps.engine.cli.score_requests, apps.engine.scoring.fast; print('django' in sys.modules)"
    root = Path(__file__).resolve().parents[2]
    res = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "False"
