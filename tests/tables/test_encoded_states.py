"""An update's copies are encoded with what every viewer shares built once (presenters.encoded_states):
each copy must be exactly that viewer's ``table_state`` - never a field of another viewer's
(RULES.md §4.1: hidden cards; §9.3: piao stays hidden while it is being chosen)."""

from __future__ import annotations

import json
import random

import pytest

from apps.engine.bots.choose import bot_choose
from apps.tables.models import Table
from apps.tables.read.presenters import encoded_states, table_state
from apps.tables.storage.jsontext import jsonable
from apps.tables.transaction.context import current_hand
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play, services
from tests.tables.helpers import ready_all

VIEWERS = [0, 1, 2, None]


def _check(table_id: int) -> str:
    table = Table.objects.get(pk=table_id)
    seats = list(table.seats.select_related("user").order_by("index"))
    hand, engine_hand = current_hand(table)
    encoded = encoded_states(table, seats, hand, engine_hand, VIEWERS)
    assert set(encoded) == set(VIEWERS)
    for viewer in VIEWERS:
        expected = jsonable(table_state(table, seats, hand, engine_hand, viewer))
        assert json.loads(encoded[viewer]) == expected, f"viewer {viewer} at stage {table.stage}"
    return table.stage


@pytest.mark.django_db
def test_every_copy_is_its_viewers_state_through_a_session_with_piao(players, make_template):
    table = services.table_open(user=players[0], template=make_template(piao_choices=[0, 1, 2], hands=1))
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    stages = {_check(table.pk)}
    ready_all(table.pk, players)
    stages.add(_check(table.pk))  # piao being chosen: only one's own choice is shown
    services.piao_choose(user=players[0], table_id=table.pk, value=2)
    stages.add(_check(table.pk))
    for user in players[1:]:
        services.piao_choose(user=user, table_id=table.pk, value=1)
    rng = random.Random(3)
    for _ in range(400):
        stages.add(_check(table.pk))
        t = Table.objects.get(pk=table.pk)
        hand, eh = current_hand(t)
        if hand is None or hand.status != "playing":
            break
        seat = eh.to_act()[0]
        action = bot_choose(eh, seat, kind="random", rng=rng)
        play.hand_act(user=players[seat], table_id=t.pk, seq=view_seq(t, seat), action=action.to_wire())
    stages.add(_check(table.pk))
    assert {"seating", "piao", "hand", "over"} <= stages
