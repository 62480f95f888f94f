"""A table whose next hand starts by itself (a match table: ``session_policy`` auto_ready) shows
the hand's result first, with the seconds left before the next hand (issue #46: "who we wait for
between hands, with a countdown where the table starts by itself"): a "next" deadline of
NEXT_HAND_SECONDS that the page counts down; when it passes everyone is readied and the hand
deals; players who all tap 下一局 start it sooner; a table of 托管 seats alone goes on at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.clubs.models import RuleTemplate
from apps.tables.models import NEXT_HAND_SECONDS, Hand, Seat, Table
from apps.tables.read.presenters import table_state
from apps.tables.signals import session_policy
from apps.tables.transaction import session
from apps.tables.verbs import arranged, play, services
from tests.tables.helpers import current, play_hand_via_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def auto_ready():
    """Arranged tables start each next hand by themselves (what the matches app answers)."""
    def policy(sender, table, **kwargs):
        return {"auto_ready": True} if table.arranged else None

    session_policy.connect(policy, dispatch_uid="test.next_hand_countdown")
    yield
    session_policy.disconnect(dispatch_uid="test.next_hand_countdown")


@pytest.fixture
def frozen(monkeypatch):
    at = timezone.now()
    monkeypatch.setattr(session, "now", lambda: at)
    return at


def _open(club, players) -> Table:
    rules = RuleTemplate(club=club, name="自动开局", preset="full", players=3)
    return arranged.arranged_open(club=club, users=players, rules=rules, hands=3, name="比赛桌")


def _state(table_id: int, viewer: int = 0) -> dict:
    table, hand, eh = current(table_id)
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    return table_state(table, seats, hand, eh, viewer)


def test_the_result_shows_with_a_countdown_then_the_next_hand_deals_itself(club, players, auto_ready, frozen):
    table = _open(club, players)
    play_hand_via_services(table.pk, players)
    t = Table.objects.get(pk=table.pk)
    assert t.stage == "settle" and Hand.objects.filter(table=t).count() == 1
    assert t.deadline_kind == "next" and t.deadline == frozen + timedelta(seconds=NEXT_HAND_SECONDS)
    state = _state(table.pk)
    assert state["deadline_kind"] == "next" and state["deadline_seconds"] == NEXT_HAND_SECONDS
    assert state["deadline"] == int(t.deadline.timestamp() * 1000)
    assert state["hand"]["status"] == "finished"  # the result is what the page shows meanwhile

    assert not play.deadline_fire(table_id=table.pk, at=frozen + timedelta(seconds=NEXT_HAND_SECONDS - 1))
    assert Table.objects.get(pk=table.pk).stage == "settle"
    assert play.deadline_fire(table_id=table.pk, at=frozen + timedelta(seconds=NEXT_HAND_SECONDS))
    t = Table.objects.get(pk=table.pk)
    assert t.stage == "hand" and Hand.objects.filter(table=t).count() == 2


def test_players_who_all_tap_next_hand_start_it_sooner(club, players, auto_ready, frozen):
    table = _open(club, players)
    play_hand_via_services(table.pk, players)
    for user in players[:2]:
        services.seat_ready(user=user, table_id=table.pk)
    assert Table.objects.get(pk=table.pk).stage == "settle"  # one still reads his result
    services.seat_ready(user=players[2], table_id=table.pk)
    assert Table.objects.get(pk=table.pk).stage == "hand"


def test_a_table_of_tuoguan_seats_goes_on_at_once(club, players, auto_ready):
    table = _open(club, players)
    for user in players:
        services.seat_set_tuoguan(user=user, table_id=table.pk, on=True)
    for _ in range(20):
        if Table.objects.get(pk=table.pk).status == "finished":
            break
        play.deadline_fire(table_id=table.pk, at=timezone.now() + timedelta(seconds=1))  # (bots' own delays)
    t = Table.objects.get(pk=table.pk)
    assert t.status == "finished" and t.hands_played == 3
