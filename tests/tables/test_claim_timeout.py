"""RULES.md §5.3 "What the others learn": a claim window's time-out does not tell the others who
held an option. Who times out on a claim window held one: his ``seat.timeout`` goes to him alone
and does not count towards 托管 (a switch everyone sees)."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest

from apps.engine.bots.choose import bot_choose
from apps.tables.models import Seat
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play
from tests.tables.helpers import current, ready_all


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(3))
def test_s5_3_a_claim_time_out_is_told_to_the_claimant_only(full_table, players, captured, seed,
                                                           django_capture_on_commit_callbacks):
    rng = random.Random(seed)
    with django_capture_on_commit_callbacks(execute=True):
        ready_all(full_table.pk, players)
    windows = 0
    for _ in range(400):
        table, hand, eh = current(full_table.pk)
        if hand.status != "playing":
            break
        if eh.phase == "claim":  # let the window run out
            claimants = set(eh.to_act())
            counts = {s.index: (s.timeouts, s.tuoguan) for s in Seat.objects.filter(table=table)}
            before = len(captured)
            with django_capture_on_commit_callbacks(execute=True):
                assert play.deadline_fire(table_id=table.pk, at=table.deadline + timedelta(seconds=1))
            windows += 1
            for message in captured[before:]:
                for key, text in message["views"].items():
                    for ev in json.loads(text)["events"]:
                        if ev["type"] == "seat.timeout":
                            assert key == str(ev["seat"]) and ev["seat"] in claimants, (key, ev)
                        assert ev["type"] != "seat.tuoguan", "a claim time-out switched 托管"
            assert {s.index: (s.timeouts, s.tuoguan) for s in Seat.objects.filter(table=table)} == counts
            continue
        seat = eh.to_act()[0]
        action = bot_choose(eh, seat, kind="random", rng=rng)
        with django_capture_on_commit_callbacks(execute=True):
            play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action=action.to_wire())
    assert windows, "the hand had claim windows"
