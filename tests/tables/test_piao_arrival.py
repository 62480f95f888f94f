"""An arranged table's first piao window counts from each player's arrival (issue #46: players
moved to their next match table arrived with 8 s and 3 s of the 飘 choice left).

Each player gets PIAO_SECONDS from his socket's first connect; one who never comes is waited for
PIAO_ARRIVAL_SECONDS at most, then the usual default applies (RULES.md §11.6). Tables a player
opened himself (he is there when piao opens) keep the plain window.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.clubs.models import RuleTemplate
from apps.tables.models import PIAO_ARRIVAL_SECONDS, PIAO_SECONDS, Seat, Table
from apps.tables.read.presenters import table_state
from apps.tables.transaction import session
from apps.tables.verbs import arranged, play, presence, services
from tests.tables.helpers import current


class Clock:
    def __init__(self):
        self.at = timezone.now()

    def __call__(self):
        return self.at

    def advance(self, seconds: float):
        self.at += timedelta(seconds=seconds)
        return self.at


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(session, "now", c)
    return c


def open_arranged(club, players, hands=2) -> Table:
    rules = RuleTemplate(club=club, name="飘桌", preset="full", players=3, piao_choices=[0, 1, 2],
                         options={"piao": True})
    return arranged.arranged_open(club=club, users=players, rules=rules, hands=hands, name="第2轮 第1桌")


def table(pk) -> Table:
    return Table.objects.get(pk=pk)


def _state(pk) -> dict:
    t, hand, eh = current(pk)
    return table_state(t, list(Seat.objects.filter(table=t).order_by("index")), hand, eh, 0)


@pytest.mark.django_db
def test_each_player_gets_the_full_piao_time_from_his_arrival(club, players, clock):
    t0 = clock.at
    t = open_arranged(club, players)
    assert table(t.pk).stage == "piao"
    # nobody has come yet: the window waits for them, up to the bound
    assert table(t.pk).deadline == t0 + timedelta(seconds=PIAO_ARRIVAL_SECONDS)

    clock.advance(12)  # the first player arrives 12 s later (the old window had 3 s left)
    services.socket_open(user=players[0], table_id=t.pk)
    assert table(t.pk).deadline == t0 + timedelta(seconds=PIAO_ARRIVAL_SECONDS)  # two still away
    state = _state(t.pk)  # the page says who is still on his way, the ring counts the whole wait
    assert state["arriving"] == [1, 2] and state["deadline_seconds"] == PIAO_ARRIVAL_SECONDS
    clock.advance(3)
    services.socket_open(user=players[1], table_id=t.pk)
    clock.advance(5)  # the last one at 20 s, through the presence touch (a socket of another process)
    presence.set_online(table_id=t.pk, index=2, online=True, reason="seen")
    assert table(t.pk).deadline == t0 + timedelta(seconds=20 + PIAO_SECONDS)
    assert _state(t.pk)["arriving"] == []
    # a reconnect later is no new arrival
    services.seat_set_online(user=players[2], table_id=t.pk, online=False)
    clock.advance(4)
    services.socket_open(user=players[2], table_id=t.pk)
    assert table(t.pk).deadline == t0 + timedelta(seconds=20 + PIAO_SECONDS)

    # the last to come chooses: the window now ends with the others' own full time
    services.piao_choose(user=players[2], table_id=t.pk, value=2)
    assert table(t.pk).deadline == t0 + timedelta(seconds=15 + PIAO_SECONDS)
    # nothing fires before a player's own time is up
    assert not play.deadline_fire(table_id=t.pk, at=t0 + timedelta(seconds=15 + PIAO_SECONDS - 1))
    assert table(t.pk).stage == "piao"
    services.piao_choose(user=players[0], table_id=t.pk, value=1)
    services.piao_choose(user=players[1], table_id=t.pk, value=0)
    assert table(t.pk).stage == "hand"


@pytest.mark.django_db
def test_an_absent_player_is_waited_for_a_bounded_time_then_the_default_applies(club, players, clock):
    t0 = clock.at
    t = open_arranged(club, players)
    clock.advance(2)
    services.socket_open(user=players[0], table_id=t.pk)
    services.piao_choose(user=players[0], table_id=t.pk, value=1)
    clock.advance(1)
    services.socket_open(user=players[1], table_id=t.pk)
    services.piao_choose(user=players[1], table_id=t.pk, value=2)
    bound = t0 + timedelta(seconds=PIAO_ARRIVAL_SECONDS)
    assert table(t.pk).deadline == bound
    assert not play.deadline_fire(table_id=t.pk, at=bound - timedelta(seconds=1))
    assert play.deadline_fire(table_id=t.pk, at=bound)
    assert table(t.pk).stage == "hand"
    assert [s.piao for s in Seat.objects.filter(table_id=t.pk).order_by("index")] == [1, 2, 0]
    # one who comes after the wait is over finds the hand dealt (no window reopens)
    clock.advance(PIAO_ARRIVAL_SECONDS)
    services.socket_open(user=players[2], table_id=t.pk)
    assert table(t.pk).stage == "hand"


@pytest.mark.django_db
def test_only_the_first_hand_of_an_arranged_table_waits(club, players, make_template, clock):
    t0 = clock.at
    template = make_template(piao_choices=(0, 1), hands=1, piao=True)
    mine = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=mine.pk)
    for user in players:
        services.seat_ready(user=user, table_id=mine.pk)
    assert table(mine.pk).stage == "piao"
    assert table(mine.pk).deadline == t0 + timedelta(seconds=PIAO_SECONDS)
    assert "arrive_by" not in table(mine.pk).deadline_info
    assert _state(mine.pk)["arriving"] == [] and _state(mine.pk)["deadline_seconds"] == PIAO_SECONDS
