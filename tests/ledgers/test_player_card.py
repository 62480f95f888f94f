"""Issue #47: the table page's player card: a seat's player and his record in the table's club this
month (the month's leaderboard line), readable by members of that club only; to a seated player,
the card of another seated player adds the table's 同一网络 / 距离 warning about the two of them
(never to a spectator, never metres)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.accounts.services import address_seen
from apps.clubs.models import Membership, Role, RuleTemplate
from apps.ledgers import selectors
from apps.ledgers.models import LeaderboardBucket, Span
from apps.tables.models import Closeness, Seat, SeatDistance
from apps.tables.verbs import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(make_user, make_club):
    owner = make_user("owner", display_name="群主")
    member = make_user("member", display_name="老王")
    club = make_club("牌友会", owner=owner, members=[member])
    template = RuleTemplate.objects.create(club=club, name="三人", preset="full", players=3, base_score=1,
                                           hands_per_session=2, turn_seconds=15)
    table = services.table_open(user=owner, template=template)
    services.table_join(user=member, table_id=table.pk)
    Seat.objects.filter(table=table, index=2).update(bot="normal")  # a bot in the third seat
    today = timezone.localdate()
    LeaderboardBucket.objects.create(club=club, user=member, span=Span.MONTH, day=today.replace(day=1),
                                     points=37, hands=9, wins=4, best_huxi=21, last_at=timezone.now())
    LeaderboardBucket.objects.create(club=club, user=member, span=Span.MONTH,  # last month: not counted
                                     day=(today.replace(day=1) - timezone.timedelta(days=1)).replace(day=1),
                                     points=500, hands=50, wins=30, best_huxi=21, last_at=timezone.now())
    return club, owner, member, table


def _card(client, table_id, seat):
    return client.get(reverse("ledgers:seat_card", args=[table_id, seat]), HTTP_ACCEPT="application/json")


def test_a_member_reads_a_players_month_from_the_leaderboard(client, setup, django_assert_max_num_queries):
    club, owner, member, table = setup
    client.force_login(owner)
    with django_assert_max_num_queries(8):  # session, user, table, membership, seats, buckets,
        response = _card(client, table.pk, "1")  # and (a seated viewer) addresses, distances
    card = response.json()
    board = {row.user_id: row for row in selectors.leaderboard(club=club, period="month")}[member.pk]
    assert card["name"] == "老王" and card["seat"] == 1
    assert card["record"] == {"hands": board.hands, "wins": board.wins, "points": board.points} == \
        {"hands": 9, "wins": 4, "points": 37}
    assert card["title"] == "本月在「牌友会」的战绩"
    assert [label for label, _value in card["lines"]] == ["局数", "胡牌", "积分"]


def test_my_own_seat_a_bot_and_a_fresh_member(client, setup):
    club, owner, member, table = setup
    client.force_login(member)
    assert _card(client, table.pk, "me").json()["seat"] == 1
    bot = _card(client, table.pk, "2").json()
    assert bot["bot"] is True and bot["name"] == "机器人" and bot["record"] is None
    owner_card = _card(client, table.pk, "0").json()
    assert owner_card["record"] == {"hands": 0, "wins": 0, "points": 0}


def test_outsiders_other_clubs_and_forged_ids_get_nothing(client, setup, make_user, make_club):
    club, owner, member, table = setup
    outsider = make_user("outsider")
    other_owner = make_user("other")
    make_club("别家", owner=other_owner)
    staff = make_user("staff", is_staff=True)
    for user in (outsider, other_owner, staff):
        client.force_login(user)
        response = _card(client, table.pk, "1")
        # (not b"37": the 404 page's random tokens, a CSP nonce say, may hold those two digits)
        assert response.status_code == 404 and b'"points"' not in response.content and b'"wins"' not in response.content
    client.force_login(owner)
    for table_id, seat in ((table.pk + 999, "1"), (table.pk, "7"), (table.pk, "-1"), (table.pk, "x1")):
        assert _card(client, table_id, seat).status_code == 404
    Membership.objects.filter(user=member).delete()
    client.force_login(member)  # no longer a member: nothing, even about his own seat
    assert _card(client, table.pk, "me").status_code == 404
    client.logout()
    assert _card(client, table.pk, "1").status_code == 302


def test_the_table_page_loads_the_card_module(client, setup):
    club, owner, member, table = setup
    client.force_login(owner)
    html = client.get(reverse("tables:detail", args=[table.pk])).content.decode()
    assert "js/table/player_card.js" in html


def seen(user, ip="10.0.0.7", days_ago=0):
    address_seen(user=user, ip=ip, at=timezone.now() - timedelta(days=days_ago))


@pytest.fixture
def spectator(setup, make_user):
    club, owner, member, table = setup
    user = make_user("watcher", display_name="看客")  # a member of the club, not seated
    Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    return user


def test_a_seated_player_reads_that_he_shares_a_network_with_the_other(client, setup, spectator,
                                                                       django_assert_max_num_queries):
    club, owner, member, table = setup
    seen(owner)
    seen(member)
    seen(spectator)  # on that network too, but not seated
    client.force_login(owner)
    with django_assert_max_num_queries(8):
        card = _card(client, table.pk, "1").json()
    assert card["nearby"] == ["群主 和 老王 最近在同一网络登录"]  # the table warning's line
    client.force_login(member)
    assert _card(client, table.pk, "0").json()["nearby"] == ["群主 和 老王 最近在同一网络登录"]
    assert _card(client, table.pk, "me").json()["nearby"] == []  # his own card: nothing to say
    assert "nearby" not in _card(client, table.pk, "2").json()  # a bot's card


def test_the_distance_class_never_metres(client, setup):
    club, owner, member, table = setup
    low, high = sorted((owner, member), key=lambda u: u.pk)
    SeatDistance.objects.create(table=table, user_low=low, user_high=high, closeness=Closeness.KM1)
    client.force_login(member)
    card = _card(client, table.pk, "0").json()
    assert card["nearby"] == ["群主 和 老王 距离较近（1公里内）"]
    seen(owner)
    seen(member)
    SeatDistance.objects.filter(table=table).update(closeness=Closeness.M100)
    assert _card(client, table.pk, "0").json()["nearby"] == [
        "群主 和 老王 最近在同一网络登录", "群主 和 老王 距离很近（100米内）"]
    SeatDistance.objects.filter(table=table).update(closeness=Closeness.FAR)  # farther: no warning
    assert _card(client, table.pk, "0").json()["nearby"] == ["群主 和 老王 最近在同一网络登录"]


def test_a_spectator_never_gets_it(client, setup, spectator, django_assert_max_num_queries):
    club, owner, member, table = setup
    for user in (owner, member, spectator):
        seen(user)
    low, high = sorted((owner, member), key=lambda u: u.pk)
    SeatDistance.objects.create(table=table, user_low=low, user_high=high, closeness=Closeness.M100)
    client.force_login(spectator)
    for seat in ("0", "1"):
        with django_assert_max_num_queries(6):  # no address or distance read for him
            response = _card(client, table.pk, seat)
        card = response.json()
        assert card["nearby"] == [] and card["record"] is not None
        assert "同一网络" not in response.content.decode() and "距离" not in response.content.decode()


def test_nothing_when_none_applies(client, setup):
    club, owner, member, table = setup
    seen(owner, ip="10.0.0.7")
    seen(member, ip="10.0.0.8")  # another network
    seen(member, ip="10.0.0.7", days_ago=8)  # the same one, but more than 7 days ago
    client.force_login(owner)
    assert _card(client, table.pk, "1").json()["nearby"] == []
