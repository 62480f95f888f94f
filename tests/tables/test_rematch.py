"""再来一局 (issue #11): POST /tables/<id>/rematch/ opens the same table again with the same seats,
once per ended table, and refuses everyone and everything else with a JSON message."""

from __future__ import annotations

import random

import pytest

from apps.clubs.models import AuditLog, Membership, RuleTemplate
from apps.tables.models import Seat, Table
from apps.tables.transaction.context import TableError
from apps.tables.verbs import arranged, dissolve, rematch, services
from tests.tables.helpers import play_hand_via_services, ready_all

JSON = {"HTTP_ACCEPT": "application/json"}
SNAPSHOT = ("club_id", "template_id", "name", "preset", "options", "players", "base_score", "piao_choices",
            "hands_per_session", "turn_seconds", "claim_seconds", "fee", "fee_payer", "ruleset", "practice")


def url(table_id):
    return f"/tables/{table_id}/rematch/"


def finished_table(players, template):
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    if table.piao_choices:
        for user in players:
            services.piao_choose(user=user, table_id=table.pk, value=table.piao_choices[-1])
    play_hand_via_services(table.pk, players, rng=random.Random(4))
    table = Table.objects.get(pk=table.pk)
    assert table.status == "finished" and table.stage == "over"
    return table


@pytest.fixture
def ended(players, make_template):
    template = make_template(hands=1, piao_choices=(0, 2), piao=True)
    template.fee, template.claim_seconds = 2, 9  # not the defaults: the rematch must copy them
    template.save()
    return finished_table(players, template)


def post(client, user, table_id, **extra):
    client.force_login(user)
    return client.post(url(table_id), **extra)


@pytest.mark.django_db
def test_rematch_opens_the_same_table_with_the_same_seats_not_ready(client, players, ended):
    response = post(client, players[1], ended.pk, **JSON)
    assert response.status_code == 200
    new = Table.objects.get(rematch_of=ended)
    assert response.json() == {"url": f"/tables/{new.pk}/"}
    assert new.pk != ended.pk and new.status == "waiting" and new.stage == "seating" and new.hands_played == 0
    for field in SNAPSHOT:
        assert getattr(new, field) == getattr(ended, field), field
    assert (new.fee, new.claim_seconds, new.piao_choices) == (2, 9, [0, 2])
    assert new.created_by_id == players[1].pk
    seats = list(Seat.objects.filter(table=new).order_by("index"))
    assert [s.user_id for s in seats] == [p.pk for p in players]
    assert not any(s.ready for s in seats) and all(s.score == 0 and s.wins == 0 for s in seats)
    log = AuditLog.objects.filter(club=ended.club, action="table.open").order_by("-id").first()
    assert log.detail["table"] == new.pk and log.detail["rematch_of"] == ended.pk
    assert new.events.filter(type="table.open", payload__rematch_of=ended.pk).exists()


@pytest.mark.django_db
def test_rematch_takes_the_ended_tables_snapshot_not_the_templates_current_rules(client, players, ended):
    template = ended.template
    template.base_score, template.hands_per_session = 9, 7
    template.save()
    post(client, players[0], ended.pk, **JSON)
    new = Table.objects.get(rematch_of=ended)
    assert (new.base_score, new.hands_per_session) == (ended.base_score, ended.hands_per_session) == (1, 1)


@pytest.mark.django_db
def test_two_players_asking_get_one_and_the_same_table(client, players, ended):
    first = post(client, players[1], ended.pk, **JSON).json()
    second = post(client, players[2], ended.pk, **JSON).json()
    again = post(client, players[1], ended.pk, **JSON).json()
    assert first == second == again
    assert Table.objects.filter(rematch_of=ended).count() == 1
    assert Table.objects.count() == 2
    assert rematch.table_rematch(user=players[0], table_id=ended.pk)[1] is False


@pytest.mark.django_db
def test_a_second_rematch_row_is_refused_by_the_database(players, ended):
    from django.db import IntegrityError, transaction

    new, created = rematch.table_rematch(user=players[0], table_id=ended.pk)
    assert created
    other = services.table_open(user=players[0], template=ended.template)
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=other.pk).update(rematch_of=ended)


@pytest.mark.django_db
def test_plain_form_post_redirects_to_the_new_table(client, players, ended):
    response = post(client, players[2], ended.pk)
    new = Table.objects.get(rematch_of=ended)
    assert response.status_code == 302 and response["Location"] == f"/tables/{new.pk}/"


@pytest.mark.django_db
def test_table_page_config_names_the_rematch_url(client, players, ended):
    client.force_login(players[0])
    page = client.get(f"/tables/{ended.pk}/")
    assert page.context["config"]["urls"]["rematch"] == url(ended.pk)


def assert_refused(response, status, code, chinese):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and chinese in body["message"]


@pytest.mark.django_db
def test_not_a_player_of_the_table_is_refused(client, club, ended):
    before = Table.objects.count()
    assert_refused(post(client, club.admin_user, ended.pk, **JSON), 403, "not_seated", "只有这张牌桌的玩家")
    assert Table.objects.count() == before


@pytest.mark.django_db
def test_an_unfinished_table_is_refused(client, players, full_table):
    assert_refused(post(client, players[0], full_table.pk, **JSON), 409, "not_over", "尚未结束")
    ready_all(full_table.pk, players)  # now playing
    assert_refused(post(client, players[1], full_table.pk, **JSON), 409, "not_over", "尚未结束")
    assert not Table.objects.filter(rematch_of__isnull=False).exists()


@pytest.mark.django_db
def test_a_table_dissolved_before_any_hand_is_refused(client, players, full_table):
    dissolve.dissolve_vote(user=players[0], table_id=full_table.pk, vote=True)
    table = Table.objects.get(pk=full_table.pk)
    assert table.status == "dissolved" and table.hands_played == 0
    assert_refused(post(client, players[0], table.pk, **JSON), 409, "not_over", "尚未结束")


@pytest.mark.django_db
def test_a_table_dissolved_after_a_hand_may_be_played_again(players, make_template):
    table = services.table_open(user=players[0], template=make_template(hands=3))
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    play_hand_via_services(table.pk, players, rng=random.Random(1))
    Table.objects.filter(pk=table.pk).update(status="dissolved", stage="over")
    new, created = rematch.table_rematch(user=players[2], table_id=table.pk)
    assert created and new.rematch_of_id == table.pk


@pytest.mark.django_db
def test_a_player_no_longer_in_the_club_is_refused(client, players, ended):
    Membership.objects.filter(club=ended.club, user=players[1]).delete()
    assert_refused(post(client, players[1], ended.pk, **JSON), 403, "not_member", "只有本俱乐部的成员")
    assert not Table.objects.filter(rematch_of=ended).exists()
    # another player may: the one who left is not seated again
    post(client, players[2], ended.pk, **JSON)
    new = Table.objects.get(rematch_of=ended)
    assert [s.user_id for s in Seat.objects.filter(table=new).order_by("index")] == [players[0].pk, None,
                                                                                      players[2].pk]


@pytest.mark.django_db
def test_a_match_table_cannot_be_played_again(client, club, players):
    rules = RuleTemplate(club=club, name="比赛", preset="full", players=3)
    table = arranged.arranged_open(club=club, users=players, rules=rules, hands=1, name="比赛桌", hold=True)
    Table.objects.filter(pk=table.pk).update(status="finished", stage="over", hands_played=1)
    assert_refused(post(client, players[0], table.pk, **JSON), 409, "match_table", "比赛牌桌")
    assert not Table.objects.filter(rematch_of=table).exists()


@pytest.mark.django_db
def test_a_forged_table_id_is_a_404(client, players, ended):
    assert_refused(post(client, players[0], ended.pk + 999, **JSON), 404, "no_table", "牌桌不存在")
    client.force_login(players[0])
    assert client.post(url(ended.pk + 999)).status_code == 404
    with pytest.raises(TableError):
        rematch.table_rematch(user=players[0], table_id=ended.pk + 999)


@pytest.mark.django_db
def test_only_a_logged_in_post(client, players, ended):
    assert client.post(url(ended.pk), **JSON).status_code == 302  # to the login page
    client.force_login(players[0])
    assert client.get(url(ended.pk)).status_code == 405
    assert not Table.objects.filter(rematch_of=ended).exists()


@pytest.mark.django_db
def test_practice_rematch_readds_the_bots(players, make_template):
    table = services.table_open(user=players[0], template=make_template(hands=1), practice=True)
    Seat.objects.filter(table=table, index=2).update(bot="random")
    Table.objects.filter(pk=table.pk).update(status="finished", stage="over", hands_played=1)
    new, created = rematch.table_rematch(user=players[0], table_id=table.pk)
    seats = list(Seat.objects.filter(table=new).order_by("index"))
    assert created and new.practice
    assert [(s.user_id, s.bot, s.ready) for s in seats] == [(players[0].pk, "", False), (None, "normal", True),
                                                           (None, "random", True)]
    assert new.status == "waiting"


def seen_on_one_network(*users):
    from apps.accounts.services import address_seen

    for user in users:
        address_seen(user=user, ip="10.0.0.7")


@pytest.fixture
def ended_same_network_rule(players, make_template):
    """An ended table whose rules forbid two players from one network (同IP禁止同桌); players 0 and
    2 were seen at one address after it was seated."""
    template = make_template(name="同IP禁止", hands=1)
    template.forbid_same_network = True
    template.save()
    table = finished_table(players, template)
    seen_on_one_network(players[0], players[2])
    return table


def seated(table) -> list:
    return [s.user_id for s in Seat.objects.filter(table=table).order_by("index")]


@pytest.mark.django_db
def test_the_same_network_rule_leaves_a_player_out_and_tells_him_why(client, players, ended_same_network_rule):
    ended = ended_same_network_rule
    response = post(client, players[1], ended.pk, **JSON)
    assert response.status_code == 200
    new = Table.objects.get(rematch_of=ended)
    assert new.forbid_same_network
    assert seated(new) == [players[0].pk, players[1].pk, None]  # seat order: player 2 meets player 0
    assert_refused(post(client, players[2], ended.pk, HTTP_ACCEPT_LANGUAGE="zh-hans", **JSON), 409,
                   "seating_rule", "你与 玩家0 最近在同一网络登录，本桌规则不允许同桌")
    assert seated(new) == [players[0].pk, players[1].pk, None]  # nothing changed
    assert post(client, players[0], ended.pk, **JSON).json() == {"url": f"/tables/{new.pk}/"}
    with pytest.raises(TableError) as err:  # nor may he join it by hand
        services.table_join(user=players[2], table_id=new.pk)
    assert err.value.code == "seating_rule"


@pytest.mark.django_db
def test_the_player_who_asks_is_seated_first(players, ended_same_network_rule):
    new, created = rematch.table_rematch(user=players[2], table_id=ended_same_network_rule.pk)
    assert created and seated(new) == [None, players[1].pk, players[2].pk]
    with pytest.raises(TableError) as err:
        rematch.table_rematch(user=players[0], table_id=ended_same_network_rule.pk)
    assert err.value.code == "seating_rule"


@pytest.mark.django_db
def test_without_the_rule_everyone_is_seated_again(players, ended):
    seen_on_one_network(*players)
    new, created = rematch.table_rematch(user=players[0], table_id=ended.pk)
    assert created and seated(new) == [p.pk for p in players]


@pytest.mark.django_db
def test_a_match_table_drops_the_seating_rules_and_seats_whom_it_is_given(club, players, make_template):
    """A match's seating keeps one network's players apart when it can (matches/selectors.avoid_reasons);
    its table never refuses or unseats one of them (arranged.arranged_open)."""
    template = make_template(name="比赛规则")
    template.forbid_same_network = template.forbid_near = True
    template.save()
    seen_on_one_network(*players)
    table = arranged.arranged_open(club=club, users=players, rules=template, hands=1, name="比赛桌", hold=True)
    assert not table.forbid_same_network and not table.forbid_near
    assert seated(table) == [p.pk for p in players]
    for user in players:  # all within 100 m: nobody loses his seat
        services.position_share(user=user, table_id=table.pk, lat=28.228, lon=112.9388)
    assert seated(table) == [p.pk for p in players]
