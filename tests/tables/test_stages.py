"""Where a move's time goes (apps/tables/stages.py, issue #29): each socket action's update carries
its stage stamps through the server, every process keeps a histogram per stage, and the stamps
reach a client only when the benchmark asks for them."""

from __future__ import annotations

import json
import random

import pytest

from apps.tables import stages
from apps.tables.management.commands.loadtest import action_kind, idle_detail, stage_medians, trace_stages
from apps.tables.read.presenters import legal_of
from tests.tables.sockets import connect, drain, in_hand, send, start_hand, wait_for

SERVER_STAGES = ("queue", "lock", "work", "return", "publish", "transit", "deliver", "send")


async def _act_once(socks) -> tuple[int, dict]:
    """The seat to act sends one legal action; returns (seat, its echo)."""
    for i, s in enumerate(socks):
        state = [m for m in await drain(s) if in_hand(m)]
        msg = state[-1] if state else s.last
        hand = msg["state"]["hand"]
        if legal_of(hand):
            await send(s, {"type": "act", "seq": msg["seq"], "action": random.Random(1).choice(legal_of(hand))})
            echo = await wait_for(s, lambda m: m["type"] == "update" and any(
                e["type"] == "action" and e.get("seat") == m["state"]["me"] for e in m["events"]))
            return i, echo
    raise AssertionError("nobody may act")


async def _started(players, table_id):
    socks = [await connect(u, table_id) for u in players]
    await start_hand(socks)
    for s in socks:
        await send(s, {"type": "resync"})
        s.last = await wait_for(s, lambda m: m["type"] == "state")
    return socks


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_action_carries_its_stages_in_order_and_each_is_counted(full_table, players, settings):
    settings.TABLES_TRACE_STAGES = True
    stages.reset()
    socks = await _started(players, full_table.pk)
    _, echo = await _act_once(socks)
    trace = echo["trace"]
    stamps = [trace[k] for k in stages.STAMPS]  # every stamp, recv ... out
    assert stamps == sorted(stamps), trace
    assert stamps[-1] - stamps[0] < 5.0
    summary = stages.summary()
    for stage in SERVER_STAGES:
        assert summary[stage]["n"] >= 1, stage
    # the load tool's breakdown of that round trip adds up to its latency
    parts = trace_stages(trace, trace["recv"] - 0.001, trace["out"] + 0.002)
    assert list(parts) == ["to_server", "queue", "lock", "work", "return", "publish", "transit", "deliver",
                           "to_client"]
    assert abs(sum(parts.values()) - (trace["out"] - trace["recv"] + 0.003) * 1000) < 0.1
    for s in socks:
        await s.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_clients_get_no_timings_unless_the_benchmark_asks(full_table, players, settings):
    settings.TABLES_TRACE_STAGES = False
    stages.reset()
    socks = await _started(players, full_table.pk)
    _, echo = await _act_once(socks)
    assert "trace" not in echo
    for s in socks:
        for m in await drain(s):
            assert "trace" not in m
    assert stages.summary()["work"]["n"] >= 1  # (the server still counts them)
    for s in socks:
        await s.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_connect_or_a_disconnect_is_not_taken_for_a_slow_action(full_table, players, settings):
    """Only a client's frame starts a trace: the seat going offline when a socket closes (long
    after its last frame) is no queue sample."""
    stages.reset()
    socks = await _started(players, full_table.pk)
    before = stages.counts().get("queue", [])
    await socks[0].disconnect()
    await drain(socks[1], 0.3)
    assert stages.counts().get("queue", []) == before
    for s in socks[1:]:
        await s.disconnect()


def test_histogram_percentiles_and_merge():
    stages.reset()
    for ms in [1.0] * 98 + [100.0, 1000.0]:
        stages.record("work", ms)
    one = stages.counts()
    merged = stages.merge([one, one])
    assert sum(merged["work"]) == 200
    s = stages.summary(merged)["work"]
    assert 1.0 <= s["p50"] < 1.2  # (buckets are 15% wide)
    assert 100.0 <= s["p99"] < 116.0
    assert 1000.0 <= s["p999"] < 1160.0
    assert stages.percentile([0] * len(stages.BOUNDS), 0.5) == 0.0


def test_dump_writes_this_process_histograms(tmp_path, settings):
    stages.reset()
    stages.record("lock", 3.0)
    settings.TABLES_STAGES_DIR = ""
    stages.dump()
    assert not list(tmp_path.iterdir())
    settings.TABLES_STAGES_DIR = str(tmp_path)
    stages.dump()
    (path,) = tmp_path.glob("stages-*.json")
    assert sum(json.loads(path.read_text())["lock"]) == 1


def test_load_tool_stage_medians():
    rows = [{"queue": 1.0, "work": 2.0}, {"queue": 3.0, "work": 4.0}, {"queue": 5.0}]
    assert stage_medians(rows) == {"queue": 3.0, "work": 4.0}
    assert trace_stages(None, 0.0, 1.0) == {}


def test_load_tool_names_each_timed_action_and_the_hand_ends():
    """The trace tells the heaviest actions apart: the one whose update ended the hand (#29)."""
    assert action_kind({"type": "discard", "card": "x3"}, {"state": {"stage": "hand"}}) == "discard"
    assert action_kind({"type": "hu"}, {"state": {"stage": "settle"}}) == "hu+end"
    assert action_kind({"type": "pass"}, {"state": {"stage": "over"}}) == "pass+end"
    assert action_kind("junk", {"state": {}}) == "?"


def test_load_tool_says_what_a_silent_socket_had_last():
    """A player that heard nothing for a while reports what it last had: the stage, whose move,
    whether its own action was still unanswered (the report's ``idle_detail``)."""
    last = {"type": "update", "seq": 41, "state": {
        "stage": "playing", "me": 2,
        "seats": [{"ready": True, "online": True, "tuoguan": False, "name": "x"}] * 3,
        "hand": {"status": "playing",
                 "view": {"phase": "claim", "to_act": [2], "legal_actions": [{"type": "pass"}, {"type": "hu"}]}}}}
    got = idle_detail(7, {"seq": 41, "pending": (1.0, {"type": "pass"}, 2.0), "acted": 41, "last": last})
    assert got == {"table": 7, "seq": 41, "pending": True, "acted": 41, "last_type": "update",
                   "stage": "playing", "me": 2, "hand_status": "playing", "phase": "claim", "to_act": [2],
                   "legal": 2, "seats": [{"ready": True, "online": True, "tuoguan": False}] * 3}
    assert idle_detail(7, {"seq": 0, "pending": None, "acted": 0, "last": None})["stage"] is None
