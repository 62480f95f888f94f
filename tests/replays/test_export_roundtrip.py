"""Export → ``python -m apps.engine verify`` round trips on real hands of every preset and player count."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.engine.records.chain import GENESIS_HASH
from apps.engine.records.verifier import CHECK_KEYS, FORMAT, verify_document
from apps.replays.export import hand_document, hand_frames, session_document
from apps.tables.models import Hand, TableEvent

ROOT = Path(__file__).resolve().parents[2]

# (preset, players, options): 2, 3 and 4 players (4: chenzhou deals to all, luzhou sits one out).
CASES = [
    ("full", 3, {}),
    ("changsha", 3, {}),
    ("chenzhou", 2, {}),
    ("luzhou", 2, {}),
    ("chenzhou", 4, {}),
    ("luzhou", 4, {}),
]


def run_verify(tmp_path: Path, doc: dict, *extra: str) -> subprocess.CompletedProcess:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    return subprocess.run([sys.executable, "-m", "apps.engine", "verify", str(path), *extra],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.django_db(transaction=False)
@pytest.mark.parametrize(("preset", "players", "options"), CASES, ids=[f"{p}-{n}" for p, n, _ in CASES])
def test_hand_export_verifies_with_the_engine_alone(tmp_path, play_table, preset, players, options):
    table, (hand,) = play_table(preset, players, fee=1, **options)
    assert hand.status == "finished"
    doc = hand_document(hand)
    assert doc["format"] == FORMAT and doc["scope"] == "hand"
    part = doc["hands"][0]
    assert part["seed"] == hand.seed and part["seed_hash"] == hand.seed_hash
    assert len(part["seats"]) == players and all(s["name"].startswith("玩家") for s in part["seats"])
    assert part["ledger"] is not None and part["ledger"]["key"] == f"hand:{hand.pk}"
    assert {e["type"] for e in part["events"]} >= {"hand.start", "engine", "action", "hand.end"}
    checks = verify_document(json.loads(json.dumps(doc)))
    assert [c for c in checks if not c["ok"]] == []
    assert {c["key"] for c in checks} == set(CHECK_KEYS)
    proc = run_verify(tmp_path, doc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = json.loads(proc.stdout)
    assert verdict["ok"] is True and set(verdict["checks"]) == set(CHECK_KEYS)
    # The replay frames of the same hand reproduce its stored engine events.
    frames = hand_frames(hand)
    stored = [e["payload"] for e in part["events"] if e["type"] == "engine"]
    assert json.loads(json.dumps([e for f in frames for e in f["events"]])) == stored


@pytest.mark.django_db
def test_session_export_chains_from_the_genesis_hash(tmp_path, play_table):
    table, hands = play_table("full", 3, hands=2, fee=2, fee_payer="winner", piao_choices=(0, 1), piao=True)
    doc = session_document(table)
    assert doc["scope"] == "session" and [h["number"] for h in doc["hands"]] == [1, 2]
    assert doc["chain"]["start_seq"] == 0 and doc["chain"]["start_hash"] == GENESIS_HASH
    assert doc["chain"]["end_seq"] == table.seq  # the session is over: the whole log
    assert {e["type"] for e in doc["other_events"]} >= {"table.open", "seat.join", "table.end"}
    every = sorted([e["seq"] for h in doc["hands"] for e in h["events"]] + [e["seq"] for e in doc["other_events"]])
    assert every == list(range(1, table.seq + 1))
    proc = run_verify(tmp_path, doc)
    assert proc.returncode == 0, proc.stdout
    # Tampering the exported file: one event of hand 2 edited -> only hand 2's chain (and replay) fail.
    bad = copy.deepcopy(doc)
    target = next(e for e in bad["hands"][1]["events"] if e["type"] == "engine" and e["payload"]["type"] == "discard")
    target["payload"]["card"] = "b10" if target["payload"]["card"] != "b10" else "s1"
    proc = run_verify(tmp_path, bad)
    assert proc.returncode == 1
    verdict = json.loads(proc.stdout)
    assert verdict["checks"]["chain"]["failed_hands"] == [2]
    assert verdict["checks"]["replay"]["failed_hands"] == [2]
    assert verdict["checks"]["commitment"]["ok"] and verdict["checks"]["ledger"]["ok"]


@pytest.mark.django_db
def test_documents_take_a_constant_number_of_queries(play_table):
    table, hands = play_table("full", 3, hands=2)
    short = min(hands, key=lambda h: h.events.count())
    long = max(hands, key=lambda h: h.events.count())
    counts = []
    for hand in (short, long):
        with CaptureQueriesContext(connection) as ctx:
            hand_document(Hand.objects.get(pk=hand.pk))
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1] <= 10, counts
    with CaptureQueriesContext(connection) as ctx:
        session_document(table)
    assert len(ctx.captured_queries) <= 10


@pytest.mark.django_db
def test_a_hand_in_play_is_never_exported(play_table, seat_players):
    from apps.tables.verbs import services

    table, _ = play_table("full", 3, hands=2, play=1)
    for user in seat_players[:3]:
        services.seat_ready(user=user, table_id=table.pk)
    hand = Hand.objects.filter(table=table).order_by("number").last()
    assert hand.status == "playing"
    with pytest.raises(ValueError):
        hand_document(hand)
    doc = session_document(table)  # the ended hands only; nothing of the hand in play
    assert [h["number"] for h in doc["hands"]] == [1]
    playing_seqs = set(TableEvent.objects.filter(hand=hand).values_list("seq", flat=True))
    exported = {e["seq"] for h in doc["hands"] for e in h["events"]} | {e["seq"] for e in doc["other_events"]}
    assert not playing_seqs & exported
    assert hand.seed == "" and hand.seed_hash  # (the seed is not even stored yet)
