"""The claim time limit comes from the rule template: copied to the table, used for the claim
deadline, and published in the table state with the full length of the current deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from apps.clubs.models import RuleTemplate
from apps.engine.bots.choose import bot_choose
from apps.tables.models import PIAO_SECONDS, Seat, Table
from apps.tables.read.presenters import table_state
from apps.tables.transaction import session
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import arranged, play, services
from tests.tables.helpers import current, ready_all


def state_of(table_id: int, viewer=0) -> dict:
    table, hand, eh = current(table_id)
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    return table_state(table, seats, hand, eh, viewer)


def open_full(players, template) -> Table:
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    return table


@pytest.fixture
def frozen(monkeypatch):
    """Deadlines are set from a fixed instant, so their lengths are exact."""
    at = timezone.now()
    monkeypatch.setattr(session, "now", lambda: at)
    return at


@pytest.mark.django_db
def test_claim_deadline_is_the_templates_claim_seconds(players, make_template, frozen):
    template = make_template(turn_seconds=20, hands=1)
    template.claim_seconds = 40  # more than the old fixed limit of min(turn_seconds, 15)
    template.save()
    table = open_full(players, template)
    assert table.claim_seconds == 40
    state = state_of(table.pk)
    assert state["claim_seconds"] == 40 and state["deadline_seconds"] is None  # no deadline yet
    ready_all(table.pk, players)
    seen = set()
    for _ in range(400):
        table, hand, eh = current(table.pk)
        assert hand.status == "playing", "the hand ended before a claim window"
        state = state_of(table.pk)
        if table.deadline_kind == "turn":
            assert table.deadline == frozen + timedelta(seconds=20)
            assert state["deadline_seconds"] == 20 and state["deadline_kind"] == "turn"
            seen.add("turn")
        if table.deadline_kind == "claim":
            assert table.deadline == frozen + timedelta(seconds=40)
            assert state["deadline_seconds"] == 40 and state["deadline_kind"] == "claim"
            seen.add("claim")
        if seen == {"turn", "claim"}:
            break
        seat = eh.to_act()[0]
        action = bot_choose(eh, seat, kind="greedy")
        play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action=action.to_wire())
    assert seen == {"turn", "claim"}


@pytest.mark.django_db
def test_piao_window_and_bot_deadlines_in_the_state(players, make_template, frozen):
    template = make_template(piao_choices=(0, 1), hands=1, piao=True)
    table = open_full(players, template)
    ready_all(table.pk, players)
    state = state_of(table.pk)
    assert state["deadline_kind"] == "piao" and state["deadline_seconds"] == PIAO_SECONDS
    # a bot's own deadline (its turn) has no countdown; in a claim window everyone sees the window
    table = Table.objects.get(pk=table.pk)
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    table.deadline, table.deadline_kind, table.deadline_info = frozen, "bot", {"seats": [1], "mark": 1}
    assert table_state(table, seats, None, None, 0)["deadline_seconds"] is None
    table.deadline_info["window"] = frozen.isoformat()
    state = table_state(table, seats, None, None, 0)
    assert state["deadline_kind"] == "claim" and state["deadline_seconds"] == table.claim_seconds == 15


@pytest.mark.django_db
def test_arranged_tables_take_the_rules_claim_seconds(club, players):
    rules = RuleTemplate(club=club, name="排好", preset="full", players=3)
    table = arranged.arranged_open(club=club, users=players, rules=rules, hands=1, name="排好的桌", hold=True)
    assert table.claim_seconds == 15 and table.arranged
    rules.claim_seconds = 7
    quick = arranged.arranged_open(club=club, users=players, rules=rules, hands=1, name="快桌", hold=True)
    assert Table.objects.get(pk=quick.pk).claim_seconds == 7


@pytest.mark.django_db
def test_claim_seconds_has_database_bounds(club, template):
    for value in (2, 121):
        with pytest.raises(IntegrityError), transaction.atomic():
            RuleTemplate.objects.filter(pk=template.pk).update(claim_seconds=value)
        with pytest.raises(IntegrityError), transaction.atomic():
            Table.objects.create(club=club, name="t", preset="full", claim_seconds=value)
    RuleTemplate.objects.filter(pk=template.pk).update(claim_seconds=120)


@pytest.mark.django_db
def test_table_page_has_the_rules_in_words(client, players, make_template):
    template = make_template(preset="full", hands=3, turn_seconds=25)
    template.claim_seconds = 9
    template.save()
    table = open_full(players, template)
    client.force_login(players[1])
    response = client.get(reverse("tables:detail", args=[table.pk]))
    lines = response.context["rules_lines"]
    assert lines[0] == "全名堂，3人。" and "限时：出牌25秒，吃碰胡选择9秒。" in lines and "每场3局。" in lines
