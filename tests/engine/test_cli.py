"""``python -m apps.engine``: the command line contract of ENGINE_CLI.md, run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORDS = sorted((ROOT / "tests" / "engine" / "records").glob("*.json"))

SCORE_EXAMPLE = {
    "preset": "full",
    "options": {},
    "players": 3,
    "hand": ["s1", "s2", "s3", "b5", "b5", "b5", "b1", "b2", "b3", "s7"],
    "groups": [
        {"kind": "pao", "cards": ["s9", "s9", "s9", "s9"]},
        {"kind": "peng", "cards": ["b3", "b3", "b3"]},
        {"kind": "chi", "cards": ["s4", "s5", "s6"]},
    ],
    "win_card": "s7",
    "win_by": "self_draw",
    "dealer": False,
    "last_card": False,
    "reveal_card": None,
}


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "apps.engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_score_example_of_the_contract() -> None:
    proc = run("score", stdin=json.dumps(SCORE_EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["win"] is True
    assert (out["huxi"], out["tun"], out["fan"], out["score"]) == (24, 5, 2, 10)
    assert out["mingtang"] == [{"name": "hong_hu", "fan": 2}]


def test_score_list_in_list_out() -> None:
    proc = run("score", stdin=json.dumps([SCORE_EXAMPLE, SCORE_EXAMPLE]))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert isinstance(out, list) and len(out) == 2


@pytest.mark.parametrize("stdin", ["{not json", json.dumps(dict(SCORE_EXAMPLE, hand=["s3"] * 5))])
def test_score_bad_input_exits_2(stdin: str) -> None:
    proc = run("score", stdin=stdin)
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert out["win"] is False and out["reason"] == "bad_input"


def _without_timing(text: str) -> dict:
    out = json.loads(text)
    out.pop("seconds")
    out.pop("hands_per_second")
    return out


def test_simulate_same_seed_same_output() -> None:
    args = ("simulate", "--preset", "full", "--hands", "15", "--seed", "7", "--bots", "greedy")
    a, b = run(*args), run(*args)
    assert a.returncode == b.returncode == 0, a.stdout + a.stderr
    assert _without_timing(a.stdout) == _without_timing(b.stdout)
    out = json.loads(a.stdout)
    assert out["hands"] == 15 and out["invalid"] == 0


def test_simulate_players_option() -> None:
    proc = run("simulate", "--preset", "luzhou", "--players", "4", "--hands", "4", "--seed", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["by_preset"]["luzhou"]["players"] == {"4": 4}


def test_there_are_records() -> None:
    assert len(RECORDS) >= 5


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_replay_reproduces_every_recorded_event(path: Path) -> None:
    record = json.loads(path.read_text())
    proc = run("replay", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True
    assert out["events"] == len(record["events"])
    assert out["result"] == record["result"]


def test_replay_of_a_tampered_record_exits_1(tmp_path: Path) -> None:
    record = json.loads(RECORDS[0].read_text())
    index = next(i for i, e in enumerate(record["events"]) if e["type"] == "discard")
    record["events"][index]["card"] = "b10" if record["events"][index]["card"] != "b10" else "s1"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    proc = run("replay", str(path))
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["ok"] is False and out["index"] == index


def test_replay_of_an_illegal_action_exits_2_with_its_index(tmp_path: Path) -> None:
    record = json.loads(RECORDS[0].read_text())
    record["actions"] = record["actions"][:3] + [{"seat": 0, "action": {"type": "hu"}}]
    record.pop("events")
    record.pop("result")
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(record))
    proc = run("replay", str(path))
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert out["error"] == "illegal" and out["index"] == 3


@pytest.mark.parametrize("text", ["[]", "{}", "nope", json.dumps({"preset": "full", "players": 3})])
def test_replay_of_a_malformed_record_exits_2(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    proc = run("replay", str(path))
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"] == "malformed"


def test_replay_trace_prints_audit_events_then_legal_actions(tmp_path: Path) -> None:
    record = json.loads(RECORDS[0].read_text())
    record["actions"] = record["actions"][:5]
    record.pop("events")
    record.pop("result")
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(record))
    proc = run("replay", str(path), "--trace")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    *events, last = lines
    assert events[0]["type"] == "deal" and events[0]["seq"] == 1
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert all(None not in cards for cards in events[0]["hands"].values())
    assert set(last) == {"legal", "to_act"}
    assert set(last["legal"]) == {str(s) for s in range(record["players"])}
    for seat in last["to_act"]:
        legal = last["legal"][str(seat)]
        assert legal and legal == sorted(legal, key=lambda a: json.dumps(a, sort_keys=True, separators=(",", ":")))


def test_bench_simulate_prints_hands_per_second() -> None:
    proc = run("bench", "--simulate", "--hands", "20", "--preset", "full")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["hands"] == 20 and out["hands_per_second"] > 0


def test_the_cli_does_not_import_django() -> None:
    code = "import sys, apps.engine.cli.main, apps.engine.cli.simulate, apps.engine.records.replay; print('django' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.stdout.strip() == "False", proc.stderr


def test_the_readme_examples_run() -> None:
    import doctest

    result = doctest.testfile(str(ROOT / "apps" / "engine" / "README.md"), module_relative=False)
    assert result.attempted >= 10 and result.failed == 0


def test_readme_module_table_lists_every_engine_module() -> None:
    from pathlib import Path

    engine = Path(__file__).resolve().parents[2] / "apps" / "engine"
    rows = [line for line in (engine / "README.md").read_text().splitlines() if line.startswith("| `")]
    listed = {line.split("`")[1] for line in rows if line.split("`")[1].endswith(".py")}
    assert listed == {p.relative_to(engine).as_posix() for p in engine.rglob("*.py")}
