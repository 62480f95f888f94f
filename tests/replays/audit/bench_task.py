"""The statistics task's cost per finished hand (not collected by default: run it by path).

    .venv/bin/pytest tests/replays/audit/bench_task.py -q -s -p no:logging [--hands 500]

Builds N finished 3-player hands (6 players of one club, 8 hands per table), then runs the task
``record_hand`` once per hand and prints CPU ms and wall ms per hand and the queries per hand.
"""

from __future__ import annotations

import os
import random
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.replays.audit.models import ProcessedHand
from apps.replays.audit.tasks import record_hand
from tests.replays.audit.helpers import TableWriter, days_ago, honest

pytestmark = pytest.mark.django_db


def test_bench_record_hand(make_user, make_club):
    n = int(os.environ.get("AUDIT_BENCH_HANDS", "500"))
    users = [make_user(f"b{i}") for i in range(6)]
    club = make_club("Bench", owner=users[0], members=users[1:])
    rng = random.Random(11)
    hands = []
    t = 0
    while len(hands) < n:
        trio = rng.sample(users, 3)
        writer = TableWriter(club, trio, start=days_ago(t % 7), name=f"B{t}")
        hands += [writer.play([honest] * 3, f"bench-{t}-{k}", rng) for k in range(min(8, n - len(hands)))]
        t += 1
    ids = [h.pk for h in hands]
    with CaptureQueriesContext(connection) as queries:
        cpu, wall = time.process_time(), time.perf_counter()
        for hand_id in ids:
            record_hand.delay(hand_id)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert ProcessedHand.objects.count() == n
    print(f"\naudit record_hand: {n} hands, {cpu * 1000 / n:.1f} ms CPU/hand, {wall * 1000 / n:.1f} ms wall/hand, "
          f"{len(queries) / n:.1f} queries/hand ({connection.vendor})")
