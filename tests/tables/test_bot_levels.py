"""Bot levels at live tables: a practice table's creator picks the bots' level (a form field of the
club page), 托管 plays at level hard within the settings' search budget, and bad input changes nothing."""

from __future__ import annotations

import random

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from apps.engine.bots.choose import LEVELS
from apps.engine.bots.search import Budget
from apps.tables.models import TUOGUAN_LEVEL, BotLevel, Seat, Table, TableEvent
from apps.tables.transaction import bots
from apps.tables.transaction.context import TableError
from apps.tables.verbs import services
from tests.tables.helpers import play_hand_via_services


def test_the_platform_levels_are_the_engines():
    assert tuple(BotLevel.values) == LEVELS
    assert TUOGUAN_LEVEL == "hard"


@pytest.mark.django_db
def test_the_club_page_offers_the_level_in_chinese(client, players, club, template):
    client.force_login(players[0])
    page = client.get(f"/clubs/{club.pk}/").content.decode()
    assert "机器人水平（练习桌）" in page
    assert 'name="bot_level"' in page
    for value, label in (("easy", "简单"), ("normal", "普通"), ("hard", "困难")):
        assert f'value="{value}"' in page and label in page
    assert '<option value="normal" selected>' in page


@pytest.mark.django_db
def test_opening_a_practice_table_with_hard_bots_plays_through(client, players, club, template):
    client.force_login(players[0])
    response = client.post(reverse("tables:open", args=[club.pk]),
                           {"template": template.pk, "practice": "1", "bot_level": "hard"})
    table = Table.objects.get(club=club)
    assert response.status_code == 302 and response.url == f"/tables/{table.pk}/"
    assert [s.bot for s in Seat.objects.filter(table=table).order_by("index")] == ["", "hard", "hard"]
    services.seat_ready(user=players[0], table_id=table.pk)
    hand = play_hand_via_services(table.pk, players, random.Random(3))
    assert hand.status == "finished"
    by_bot = TableEvent.objects.filter(table=table, type="action", payload__by="bot")
    assert {e.payload["seat"] for e in by_bot} <= {1, 2} and by_bot.exists()


@pytest.mark.django_db
def test_an_unknown_level_is_refused_and_nothing_is_opened(client, players, club, template):
    with pytest.raises(TableError) as err:
        services.table_open(user=players[0], template=template, practice=True, bot_level="expert")
    assert err.value.code == "bad_bot"
    client.force_login(players[0])
    response = client.post(reverse("tables:open", args=[club.pk]),
                           {"template": template.pk, "practice": "1", "bot_level": "greedy"}, follow=True)
    assert "未知的机器人水平。" in response.content.decode()
    assert not Table.objects.filter(club=club).exists()


@pytest.mark.django_db
def test_a_seat_holds_only_known_bot_kinds(players, template):
    table = services.table_open(user=players[0], template=template)
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.filter(table=table, index=1).update(bot="expert")


@pytest.mark.django_db
def test_an_added_bot_takes_the_level_of_the_others(players, template):
    table = services.table_open(user=players[0], template=template, practice=True, bot_level="easy")
    Seat.objects.filter(table=table, index=2).update(bot="")
    seat = services.seat_add_bot(user=players[0], table_id=table.pk)
    assert (seat.index, Seat.objects.get(pk=seat.pk).bot) == (2, "easy")
    with pytest.raises(TableError) as err:
        services.seat_add_bot(user=players[0], table_id=table.pk, kind="expert")
    assert err.value.code in ("bad_bot", "table_full")


@pytest.mark.django_db
def test_tuoguan_plays_at_level_hard_within_the_budget(players, full_table, settings, monkeypatch):
    settings.TABLES_BOT_SEARCH_MS = 3
    settings.TABLES_BOT_SEARCH_WORLDS = 5
    calls = []
    real = bots.bot_choose

    def spy(hand, seat, kind="greedy", rng=None, budget=None):
        calls.append((seat, kind, budget))
        return real(hand, seat, kind, rng, budget)

    monkeypatch.setattr(bots, "bot_choose", spy)
    for user in players:
        services.seat_ready(user=user, table_id=full_table.pk)
    services.seat_set_tuoguan(user=players[1], table_id=full_table.pk, on=True)  # in the hand
    humans = [players[0], None, players[2]]
    hand = play_hand_via_services(full_table.pk, humans, random.Random(7))
    assert hand.status == "finished"
    mine = [c for c in calls if c[0] == 1]
    assert mine and all(kind == "hard" for _, kind, _ in mine)
    assert all(b == Budget(worlds=5, cpu_ms=3.0, wall_ms=100.0) for _, _, b in mine)
    tuoguan = TableEvent.objects.filter(table=full_table, type="action", payload__by="tuoguan")
    assert tuoguan.exists() and {e.payload["seat"] for e in tuoguan} == {1}
