"""Replay frames (apps/engine/records/timeline.py) on the recorded hands of every preset."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from apps.engine.play.events import AUDIT
from apps.engine.play.observer import build_view
from apps.engine.records.replay import replay
from apps.engine.records.timeline import CONSTANT, DROPPED, compact_view, frames

RECORDS = sorted((Path(__file__).parent / "records").glob("*.json"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_frames_cover_the_record_step_by_step(path: Path) -> None:
    record = _load(path)
    out = frames(record)
    assert len(out) == len(record["actions"]) + 1
    assert [f["index"] for f in out] == list(range(len(out)))
    assert out[0]["actor"] is None and out[0]["action"] is None
    assert out[0]["events"][0]["type"] == "deal"
    for frame, act in zip(out[1:], record["actions"], strict=True):
        assert frame["actor"] == act["seat"] and frame["action"] == act["action"]
    # The frames' events, in order, are exactly the recorded (audit) events: nothing lost, none twice.
    assert json.loads(json.dumps([e for f in out for e in f["events"]])) == record["events"]
    last = json.loads(json.dumps(out[-1]["view"]))
    assert last["finished"] is True and last["result"] == record["result"]
    assert all(f["view"]["result"] is None for f in out[:-1])
    json.dumps(out)  # JSON-able as is


@pytest.mark.parametrize("path", RECORDS[:6], ids=[p.stem for p in RECORDS[:6]])
def test_each_frame_is_the_audit_view_of_the_hand_cut_there(path: Path) -> None:
    record = _load(path)
    out = frames(record)
    for k in range(len(out)):
        cut = dict(record, actions=record["actions"][:k])
        cut.pop("events"), cut.pop("result")
        hand = replay(cut)
        assert out[k]["view"] == compact_view(hand, first=k == 0)
        full = build_view(hand, AUDIT)
        view = out[k]["view"]
        for key in ("hands", "groups", "discards", "huxi", "stock", "pending", "table", "to_act"):
            assert view[key] == full[key], key


def test_frames_show_every_hand_and_drop_what_a_replay_never_needs() -> None:
    out = frames(_load(RECORDS[0]))
    for frame in out:
        view = frame["view"]
        assert all(cards is not None for cards in view["hands"].values())  # every hand, as an audit
        assert not set(DROPPED) & set(view)
        assert bool(set(CONSTANT) & set(view)) == (frame["index"] == 0)


def test_claim_window_shows_options_and_passes_before_the_claim_resolves() -> None:
    seen_open_pass = False
    for path in RECORDS:
        out = frames(_load(path))
        for prev, frame in zip(out, out[1:], strict=False):
            window = prev["view"]["claim"]
            if frame["action"]["type"] not in ("discard", "escape"):  # escape: at any time (§8.6)
                # every claim decision is made on an open window that offered the seat that choice
                assert window is not None and frame["actor"] in window["options"]
                assert frame["action"]["type"] in window["options"][frame["actor"]]
                assert frame["actor"] in prev["view"]["pending"]
            now = frame["view"]["claim"]
            if frame["action"]["type"] == "pass" and now is not None and now["decided"].get(frame["actor"]):
                assert now["decided"][frame["actor"]] == "pass"
                assert frame["actor"] not in frame["view"]["pending"]
                seen_open_pass = True
    assert seen_open_pass, "no record has a pass while others still decide (pick another record)"


def test_frames_refuse_a_bad_record() -> None:
    record = _load(RECORDS[0])
    with pytest.raises(ValueError):
        frames({**record, "preset": "nope"})
    with pytest.raises(ValueError):  # IllegalAction is a ValueError
        frames({**record, "actions": [{"seat": 1, "action": {"type": "hu"}}]})


def test_frames_are_fast() -> None:
    record = _load(max(RECORDS, key=lambda p: len(_load(p)["actions"])))
    start = time.process_time()
    for _ in range(10):
        frames(record)
    per_hand = (time.process_time() - start) / 10
    assert per_hand < 0.25, f"{per_hand * 1000:.0f} ms for one hand's frames"
