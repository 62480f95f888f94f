"""``manage.py verify_hands`` and ``manage.py export_hand``."""

from __future__ import annotations

import io
import json

import pytest

from apps.engine.cli.main import main as engine_main
from apps.tables.models import Hand, TableEvent
from tests.replays.helpers import run_command


@pytest.mark.django_db
def test_verify_hands_counts_and_exit_codes(play_table, replay_club, make_club):
    table, hands = play_table("full", 3, hands=2)
    play_table("chenzhou", 2)
    code, out = run_command("verify_hands")
    assert code == 0, out
    assert "checked 3 hands on 2 tables" in out and "passed 3, failed 0" in out and "hands/s" in out
    code, out = run_command("verify_hands", "--club", str(replay_club.pk + 999))
    assert code == 0 and "checked 0 hands" in out
    code, out = run_command("verify_hands", "--since", "2999-01-01")
    assert code == 0 and "checked 0 hands" in out
    code, out = run_command("verify_hands", "--since", "yesterday")
    assert code == 2 and "--since" in out
    # Tamper with one event of the second hand: that hand fails, with its first problem named.
    ev = next(e for e in TableEvent.objects.filter(hand=hands[1], type="engine").order_by("seq")
              if e.payload["type"] == "discard")
    TableEvent.objects.filter(pk=ev.pk).update(payload=dict(ev.payload, card="b1" if ev.payload["card"] != "b1" else "b2"))
    code, out = run_command("verify_hands", "--club", str(replay_club.pk))
    assert code == 1
    assert "passed 2, failed 1" in out
    assert "failed chain: 1" in out and "failed replay: 1" in out
    assert f"FAIL hand {hands[1].pk} (table {table.pk} #2, finished): replay: the engine event at seq {ev.seq}" in out


@pytest.mark.django_db
def test_export_hand_prints_a_verifiable_document(tmp_path, play_table, seat_players):
    from apps.tables.verbs import services

    table, hands = play_table("luzhou", 4, hands=2, play=1)
    code, out = run_command("export_hand", str(hands[0].pk))
    assert code == 0
    doc = json.loads(out)
    assert doc["scope"] == "hand" and doc["hands"][0]["id"] == hands[0].pk
    path = tmp_path / "hand.json"
    path.write_text(out)
    assert engine_main(["verify", str(path)], out=io.StringIO()) == 0
    code, out = run_command("export_hand", str(hands[0].pk), "--session", "--compact")
    assert code == 0 and json.loads(out)["scope"] == "session" and "\n" not in out.strip()
    path.write_text(out)
    assert engine_main(["verify", str(path)], out=io.StringIO()) == 0
    for user in seat_players[:4]:
        services.seat_ready(user=user, table_id=table.pk)
    playing = Hand.objects.get(table=table, number=2)
    assert playing.status == "playing"
    code, out = run_command("export_hand", str(playing.pk))
    assert code == 2 and "still being played" in out
    code, out = run_command("export_hand", "999999")
    assert code == 2 and "no hand" in out
