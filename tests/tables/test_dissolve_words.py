"""Issue #46, the server side of what a table says: a match table is never dissolved (a clear
refusal, nothing changes); a refusal to sit at an ended table says how it ended, in the reader's
language; a member who watched a waiting table still sees it once it was dissolved before a deal."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.clubs.models import Membership, RuleTemplate
from apps.tables.models import Table, TableEvent
from apps.tables.read.selectors import access_for, access_of
from apps.tables.transaction.context import TableError
from apps.tables.verbs import arranged, dissolve, services
from tests.tables.helpers import ready_all

pytestmark = pytest.mark.django_db


def test_a_match_table_refuses_dissolve_from_players_and_managers(club, players):
    rules = RuleTemplate(club=club, name="比赛规则", preset="full", players=3)
    table = arranged.arranged_open(club=club, users=players, rules=rules, hands=1, name="第1轮第1桌", hold=False)
    assert Table.objects.get(pk=table.pk).status == "playing"  # (its players were dealt in at once)
    before = TableEvent.objects.filter(table_id=table.pk).count()
    for call in (lambda: dissolve.dissolve_vote(user=players[1], table_id=table.pk, vote=True),
                 lambda: dissolve.table_force_dissolve(user=club.admin_user, table_id=table.pk)):
        with pytest.raises(TableError) as refused:
            call()
        assert refused.value.code == "match_no_dissolve"
    table = Table.objects.get(pk=table.pk)
    assert table.status == "playing" and table.dissolve_by is None
    assert TableEvent.objects.filter(table_id=table.pk).count() == before


def test_the_match_table_page_offers_no_dissolve_and_the_post_is_refused_in_chinese(client, club, players):
    rules = RuleTemplate(club=club, name="比赛规则", preset="full", players=3)
    table = arranged.arranged_open(club=club, users=players, rules=rules, hands=1, name="第1轮第1桌", hold=False)
    client.force_login(players[0])
    page = client.get(reverse("tables:detail", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    config = page.context["config"]
    assert config["arranged"] is True and "dissolve" not in config["urls"]
    refused = client.post(f"/tables/{table.pk}/dissolve/", HTTP_ACCEPT="application/json",
                          HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert refused.status_code == 400
    assert refused.json()["message"] == "比赛牌桌不能解散，本轮比赛结束时牌桌自动结束。"
    assert Table.objects.get(pk=table.pk).status != "dissolved"


@pytest.mark.parametrize("lang, dissolved, finished", [
    ("zh-hans", "牌桌已解散。", "牌局已结束。"),
    ("en", "This table has been dissolved.", "This table's session is over."),
])
def test_sitting_at_an_ended_table_says_how_it_ended(client, club, players, template, make_user, lang,
                                                      dissolved, finished):
    table = services.table_open(user=players[0], template=template)
    dissolve.dissolve_vote(user=players[0], table_id=table.pk, vote=True)
    client.force_login(players[1])
    answer = client.post(f"/tables/{table.pk}/join/", HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE=lang)
    assert answer.status_code == 400 and answer.json()["message"] == dissolved
    assert "started" not in answer.json()["message"]
    Table.objects.filter(pk=table.pk).update(status="finished")
    answer = client.post(f"/tables/{table.pk}/join/", HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE=lang)
    assert answer.json()["message"] == finished
    assert not Table.objects.get(pk=table.pk).seats.filter(user=players[1]).exists()


def test_a_member_still_sees_a_table_dissolved_before_a_deal_but_not_one_with_a_hand(client, club, players,
                                                                                      template, full_table,
                                                                                      make_user):
    waiting = services.table_open(user=club.admin_user, template=template)
    dissolve.dissolve_vote(user=club.admin_user, table_id=waiting.pk, vote=True)
    member = players[2]
    client.force_login(member)
    page = client.get(reverse("tables:detail", args=[waiting.pk]))
    assert page.status_code == 200  # the ended state, not a 404, after a reload
    assert access_of(user=member, table_id=waiting.pk) == access_for(user=member, table=Table.objects.get(pk=waiting.pk))
    assert access_of(user=member, table_id=waiting.pk).seat is None

    # A table dissolved with a hand dealt keeps its cards to its players and managers.
    ready_all(full_table.pk, players)
    dissolve.table_force_dissolve(user=club.admin_user, table_id=full_table.pk)
    watcher = make_user(username="watcher", password="pw-secret-123")
    Membership.objects.create(club=club, user=watcher, role="member")
    client.force_login(watcher)
    assert client.get(reverse("tables:detail", args=[full_table.pk])).status_code == 404
    assert access_of(user=watcher, table_id=full_table.pk) is None
    assert access_for(user=watcher, table=Table.objects.get(pk=full_table.pk)) is None
