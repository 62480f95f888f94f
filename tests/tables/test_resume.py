"""Crash safety and time-outs: every table resumes from its DB rows; deadlines act through the services."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from apps.engine.bots.choose import bot_choose
from apps.tables import tasks
from apps.tables.models import Seat, Table, TableEvent
from apps.tables.storage import hand_cache
from apps.tables.storage.jsontext import jsonable
from apps.tables.transaction import snapshot
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play
from tests.tables.helpers import current, play_hand_via_services, ready_all


@pytest.mark.django_db(transaction=True)
def test_rebuild_from_rows_only_and_continue(full_table, players):
    ready_all(full_table.pk, players)
    rng = random.Random(3)
    for _ in range(8):
        table, hand, eh = current(full_table.pk)
        seat = eh.to_act()[0]
        play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat),
                      action=bot_choose(eh, seat, rng=rng).to_wire())
    before = [snapshot.table_snapshot(table_id=full_table.pk, viewer=v) for v in (0, 1, 2, None)]
    connections.close_all()  # "kill -9": nothing survives but the rows
    after = [snapshot.table_snapshot(table_id=full_table.pk, viewer=v) for v in (0, 1, 2, None)]
    assert before == after
    table, hand, eh = current(full_table.pk)
    engine_events = [e.payload for e in TableEvent.objects.filter(hand=hand, type="engine").order_by("seq")]
    assert engine_events == [jsonable(e.to_wire()) for e in eh.events]
    finished = play_hand_via_services(full_table.pk, players)
    assert finished.status == "finished"


@pytest.mark.django_db
def test_interrupted_bot_turn_is_resumed_by_the_deadline_runner(players, template):
    from apps.tables.verbs import services

    table = services.table_open(user=players[0], template=template, practice=True)
    services.seat_ready(user=players[0], table_id=table.pk)
    # Pretend the process died right before a bot's move: the row says a bot must act now.
    hand_cache.clear()  # a new process starts with an empty cache
    Seat.objects.filter(table=table, index=0).update(tuoguan=True)
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1), deadline_kind="bot")
    assert tasks.fire_deadlines() == 1
    table, hand, eh = current(table.pk)
    assert hand.status == "finished" or table.stage in ("settle", "over")


@pytest.mark.django_db
def test_time_outs_apply_default_and_two_put_the_seat_on_tuoguan(full_table, players):
    ready_all(full_table.pk, players)
    table, hand, eh = current(full_table.pk)
    turn = eh.to_act()[0]
    expected = eh.default_action(turn).to_wire()
    assert table.deadline_kind == "turn"
    assert play.deadline_fire(table_id=table.pk, at=table.deadline + timedelta(seconds=1))
    act = TableEvent.objects.filter(table=table, type="action").first()
    assert act.payload == {"seat": turn, "action": expected, "by": "timeout"}
    assert Seat.objects.get(table=table, index=turn).timeouts == 1
    # keep timing out the same seat until it is on 托管
    for _ in range(200):
        table, hand, eh = current(full_table.pk)
        seat = Seat.objects.get(table=table, index=turn)
        if seat.tuoguan or hand.status != "playing":
            break
        if table.deadline_info.get("seats") and turn in table.deadline_info["seats"]:
            play.deadline_fire(table_id=table.pk, at=table.deadline + timedelta(seconds=1))
        else:
            other = eh.to_act()[0]
            play.hand_act(user=players[other], table_id=table.pk, seq=view_seq(table, other),
                          action=eh.default_action(other).to_wire())
    seat = Seat.objects.get(table=full_table, index=turn)
    assert seat.tuoguan or hand.status != "playing"
    if seat.tuoguan:
        assert TableEvent.objects.filter(table=full_table, type="seat.tuoguan").exists()


@pytest.mark.django_db
def test_dissolve_vote_and_refusal(full_table, players):
    from apps.tables.transaction.context import TableError
    from apps.tables.verbs.dissolve import dissolve_vote

    ready_all(full_table.pk, players)
    dissolve_vote(user=players[1], table_id=full_table.pk, vote=True)
    dissolve_vote(user=players[2], table_id=full_table.pk, vote=False)
    assert Table.objects.get(pk=full_table.pk).dissolve_by is None
    dissolve_vote(user=players[1], table_id=full_table.pk, vote=True)
    dissolve_vote(user=players[0], table_id=full_table.pk, vote=True)
    dissolve_vote(user=players[2], table_id=full_table.pk, vote=True)
    table = Table.objects.get(pk=full_table.pk)
    assert table.status == "dissolved"
    hand = table.hands.get()
    assert hand.status == "dissolved" and hand.seed
    with pytest.raises(TableError):
        dissolve_vote(user=players[0], table_id=full_table.pk, vote=True)
