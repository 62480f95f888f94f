"""A hand that ends in the same transaction as the next one is dealt keeps its final state.

Found by the fault run (scripts/fault_run.sh): on a table whose seats are all on auto-play (a
practice table with its player on 托管; match tables, whose policy readies everyone), the next hand
is dealt inside the transaction that finishes the previous one. ``Ctx.save`` then writes only the
new hand's state, and the finished hand kept the state it was dealt with (0 actions): the replay
verification's snapshot check failed for every such hand but the last.
"""

from __future__ import annotations

import pytest

from apps.tables import tasks
from apps.tables.models import Hand, Table, TableEvent
from apps.tables.verbs import services


@pytest.mark.django_db
def test_every_finished_hand_of_an_auto_ready_session_saves_its_final_state(players, make_template):
    template = make_template(hands=3)
    table = services.table_open(user=players[0], template=template, practice=True)
    services.seat_ready(user=players[0], table_id=table.pk)
    services.seat_set_tuoguan(user=players[0], table_id=table.pk, on=True)
    for _ in range(50):  # bots and 托管 play at once in tests; fire any deadline left over
        if Table.objects.get(pk=table.pk).status == "finished":
            break
        tasks.fire_deadlines()
    hands = list(Hand.objects.filter(table=table).order_by("number"))
    assert [h.status for h in hands] == ["finished"] * 3
    for hand in hands:
        logged = TableEvent.objects.filter(hand=hand, type="action").count()
        assert logged > 0
        assert len(hand.state.get("actions") or []) == logged, f"hand {hand.number}"
