"""Issue #47, the table life: "same network, close together" (apps/tables/read/nearby.py).

- Two seated players seen at one IP address in the last 7 days are named to everyone seated (the
  state sent at connect and the updates after a seating change), never to a spectator, never the
  address; an address shared 8 days ago names nobody; a move computes nothing.
- 共享位置 stores only a distance class per pair (no coordinate in any column), refuses bad numbers
  and forgets the pair when a player leaves or the table ends; the cached coordinates go when their
  player leaves (or is re-seated elsewhere), when the session starts and when it ends.
- The rule-template options 同IP禁止同桌 / 距离过近禁止同桌 refuse a seat, and nothing changes.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django.utils.translation import override

from apps.accounts.services import address_seen
from apps.tables.models import Seat, SeatDistance, TableEvent
from apps.tables.read import nearby
from apps.tables.transaction.snapshot import table_snapshot
from apps.tables.verbs import services
from apps.tables.verbs.services import TableError
from tests.tables.helpers import play_hand_via_services, ready_all

pytestmark = pytest.mark.django_db

HOME = (28.228000, 112.938800)
FIFTY_M_EAST = (28.228000, 112.939310)  # ~50 m along the parallel
TWO_KM_NORTH = (28.246000, 112.938800)


@pytest.fixture(autouse=True)
def _no_positions():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def seen(user, ip="10.0.0.7", days_ago=0):
    address_seen(user=user, ip=ip, at=timezone.now() - timedelta(days=days_ago))


def state_of(table_id, viewer):
    return table_snapshot(table_id=table_id, viewer=viewer)["state"]


def test_shared_address_in_last_7_days_named_to_every_seat(full_table, players):
    seen(players[0], days_ago=2)
    seen(players[2], days_ago=1)
    seen(players[1], ip="10.9.9.9")
    for viewer in (0, 1, 2):
        near = state_of(full_table.pk, viewer)["nearby"]
        assert near["network"] == [{"users": sorted([players[0].pk, players[2].pk]),
                                    "names": ["玩家0", "玩家2"]}]
        assert "10.0.0.7" not in str(near)


def test_shared_address_8_days_ago_names_nobody(full_table, players):
    seen(players[0], days_ago=8)
    seen(players[1], days_ago=8)
    assert state_of(full_table.pk, 0)["nearby"] == {"network": [], "distance": []}


def test_spectator_never_gets_it(full_table, players, captured, django_capture_on_commit_callbacks):
    seen(players[0])
    seen(players[1])
    assert "nearby" not in state_of(full_table.pk, None)
    with django_capture_on_commit_callbacks(execute=True):
        services.table_leave(user=players[2], table_id=full_table.pk)  # a seating change: recomputed
    message = captured[-1]
    assert '"nearby"' not in message["views"]["spectator"]
    assert '"nearby":{"network":[{"users"' in message["views"]["0"]


def test_a_move_computes_nothing(full_table, players, monkeypatch):
    seen(players[0])
    seen(players[1])
    ready_all(full_table.pk, players)
    calls = []
    monkeypatch.setattr(nearby, "table_nearby", lambda *a, **k: calls.append(a) or {})
    monkeypatch.setattr(nearby, "shared_address_pairs", lambda **k: calls.append(k) or {})
    play_hand_via_services(full_table.pk, players, rng=random.Random(3))
    assert calls == []


def columns_of(model) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {model._meta.db_table}")
        return cursor.fetchall()


def test_share_keeps_only_a_class_never_coordinates(full_table, players):
    services.position_share(user=players[0], table_id=full_table.pk, lat=HOME[0], lon=HOME[1])
    close = services.position_share(user=players[1], table_id=full_table.pk, lat=FIFTY_M_EAST[0],
                                    lon=FIFTY_M_EAST[1])
    services.position_share(user=players[2], table_id=full_table.pk, lat=TWO_KM_NORTH[0], lon=TWO_KM_NORTH[1])
    assert close == ["玩家0"]
    rows = columns_of(SeatDistance)
    assert len(rows) == 3
    for row in rows:
        for value in row:
            text = str(value)
            assert "28.2" not in text and "112.9" not in text
            assert not isinstance(value, float)
    for event in TableEvent.objects.filter(table=full_table, type="nearby.share"):
        assert set(event.payload) == {"seat"}
    near = state_of(full_table.pk, 2)["nearby"]
    assert near["distance"] == [{"users": sorted([players[0].pk, players[1].pk]), "names": ["玩家0", "玩家1"],
                                 "closeness": "m100"}]
    assert "nearby" not in state_of(full_table.pk, None)

    services.table_leave(user=players[1], table_id=full_table.pk)  # his pairs go with him
    assert SeatDistance.objects.filter(table=full_table).count() == 1


@pytest.mark.parametrize("lat, lon", [(91, 0), (0, 181), ("abc", 1), (None, None), ("nan", 3), (True, 1), ("", "")])
def test_bad_position_refused_and_nothing_changes(full_table, players, lat, lon):
    before = TableEvent.objects.filter(table=full_table).count()
    with pytest.raises(TableError) as err:
        services.position_share(user=players[0], table_id=full_table.pk, lat=lat, lon=lon)
    assert err.value.code == "bad_position"
    assert TableEvent.objects.filter(table=full_table).count() == before
    assert not SeatDistance.objects.exists()


def test_share_over_http_refused_for_bad_input_and_for_others(client, full_table, players, make_user):
    client.force_login(players[0])
    url = f"/tables/{full_table.pk}/nearby/"
    res = client.post(url, {"lat": "200", "lon": "1"}, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert res.status_code == 400 and "纬度" in res.json()["message"]
    assert client.post(url, {"lat": "28.2", "lon": "112.9"}, HTTP_ACCEPT="application/json").json() == {"ok": True}
    client.force_login(make_user(username="outsider"))
    res = client.post(url, {"lat": "28.2", "lon": "112.9"}, HTTP_ACCEPT="application/json")
    assert res.status_code == 400


def positions(table, users) -> list:
    """What the cache still holds of these players' positions at ``table`` (None: nothing)."""
    from django.core.cache import cache

    return [cache.get(nearby.position_key(table.pk, u.pk)) for u in users]


def share_all(table, users) -> None:
    for user, (lat, lon) in zip(users, (HOME, FIFTY_M_EAST, TWO_KM_NORTH), strict=False):
        services.position_share(user=user, table_id=table.pk, lat=lat, lon=lon)


def test_table_end_forgets_the_pairs_and_the_positions(full_table, players):
    share_all(full_table, players)
    assert SeatDistance.objects.count() == 3
    assert None not in positions(full_table, players)
    from apps.tables.verbs import dissolve

    dissolve.dissolve_vote(user=players[0], table_id=full_table.pk, vote=True)  # the creator, waiting
    assert SeatDistance.objects.count() == 0
    assert positions(full_table, players) == [None, None, None]


def test_a_player_who_leaves_takes_his_position(full_table, players):
    share_all(full_table, players[:2])
    services.table_leave(user=players[1], table_id=full_table.pk)
    assert positions(full_table, players[:2]) == [HOME, None]  # the table still waits: his goes
    services.table_join(user=players[1], table_id=full_table.pk)
    services.position_share(user=players[1], table_id=full_table.pk, lat=HOME[0], lon=HOME[1])
    assert SeatDistance.objects.get(table=full_table).closeness == "m100"  # measured afresh


def test_positions_go_when_the_session_starts_the_classes_when_it_ends(players, make_template):
    table = services.table_open(user=players[0], template=make_template(hands=1))
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    share_all(table, players)
    ready_all(table.pk, players)  # the session starts: no one shares any more
    assert positions(table, players) == [None, None, None]
    assert SeatDistance.objects.filter(table=table).count() == 3  # shown for the whole session
    play_hand_via_services(table.pk, players, rng=random.Random(4))
    table.refresh_from_db()
    assert table.status == "finished"
    assert not SeatDistance.objects.filter(table=table).exists()
    assert positions(table, players) == [None, None, None]


def test_an_arranged_reseat_takes_the_old_players_position(club, players, make_user, template):
    from apps.clubs.models import Membership
    from apps.tables.verbs import arranged

    table = arranged.arranged_open(club=club, users=players, rules=template, hands=1, name="赛桌", hold=True)
    share_all(table, players)
    newcomer = make_user(username="newcomer")
    Membership.objects.create(club=club, user=newcomer)
    arranged.seat_swap_user(table_id=table.pk, index=1, user=newcomer)
    assert positions(table, players) == [HOME, None, TWO_KM_NORTH]
    assert SeatDistance.objects.filter(table=table).count() == 1


def test_same_network_rule_refuses_a_seat(players, make_template):
    template = make_template(name="同IP禁止")
    template.forbid_same_network = True
    template.save()
    table = services.table_open(user=players[0], template=template)
    seen(players[0])
    seen(players[1])
    with override("zh-hans"), pytest.raises(TableError) as err:
        services.table_join(user=players[1], table_id=table.pk)
    assert err.value.code == "seating_rule"
    assert err.value.message == "你与 玩家0 最近在同一网络登录，本桌规则不允许同桌"
    assert not Seat.objects.filter(table=table, user=players[1]).exists()
    services.table_join(user=players[2], table_id=table.pk)  # another address: welcome
    from apps.clubs.rules_text import describe_table

    with override("zh-hans"):
        assert "同IP禁止同桌（最近7天在同一IP登录）。" in describe_table(table)


def test_same_network_allowed_without_the_rule(players, template):
    table = services.table_open(user=players[0], template=template)
    seen(players[0])
    seen(players[1])
    services.table_join(user=players[1], table_id=table.pk)


def test_near_rule_refuses_the_close_sharer(players, make_template):
    template = make_template(name="距离禁止")
    template.forbid_near = True
    template.save()
    table = services.table_open(user=players[0], template=template)
    services.table_join(user=players[1], table_id=table.pk)
    services.table_join(user=players[2], table_id=table.pk)
    services.position_share(user=players[0], table_id=table.pk, lat=HOME[0], lon=HOME[1])
    services.position_share(user=players[2], table_id=table.pk, lat=TWO_KM_NORTH[0], lon=TWO_KM_NORTH[1])
    with override("zh-hans"), pytest.raises(TableError) as err:
        services.position_share(user=players[1], table_id=table.pk, lat=FIFTY_M_EAST[0], lon=FIFTY_M_EAST[1])
    assert err.value.message == "你与 玩家0 距离过近，本桌规则不允许同桌"
    assert not Seat.objects.filter(table=table, user=players[1]).exists()
    assert not SeatDistance.objects.filter(table=table, user_high=players[1]).exists()
    assert not SeatDistance.objects.filter(table=table, user_low=players[1]).exists()
    services.table_join(user=players[1], table_id=table.pk)  # back in his seat, he is refused again
    with pytest.raises(TableError) as err:
        services.position_share(user=players[1], table_id=table.pk, lat=FIFTY_M_EAST[0], lon=FIFTY_M_EAST[1])
    assert err.value.code == "seating_rule"


def test_template_form_saves_the_options(client, club, players):
    from apps.clubs.models import RuleTemplate
    from tests.clubs.template_form import MAIN, opt

    client.force_login(players[0])
    data = {**MAIN, "preset": "full", **opt("full", min_huxi=15), "forbid_same_network": "on"}
    res = client.post(f"/clubs/{club.pk}/templates/new/", data)
    assert res.status_code in (302, 303), res.content.decode()[:500]
    saved = RuleTemplate.objects.get(club=club, name=MAIN["name"])
    assert saved.forbid_same_network and not saved.forbid_near
    table = services.table_open(user=players[0], template=saved)
    assert table.forbid_same_network and not table.forbid_near


def test_computed_with_one_query_for_the_addresses(full_table, players, django_assert_max_num_queries):
    seen(players[0])
    seen(players[1])
    seats = list(Seat.objects.filter(table=full_table).select_related("user"))
    with django_assert_max_num_queries(2):  # the seats' addresses, and the pairs' distance classes
        near = nearby.table_nearby(full_table.pk, seats)
    assert len(near["network"]) == 1
