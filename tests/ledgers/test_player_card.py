"""Issue #47: the table page's player card: a seat's player and his record in the table's club this
month (the month's leaderboard line), readable by members of that club only."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.clubs.models import Membership, RuleTemplate
from apps.ledgers import selectors
from apps.ledgers.models import LeaderboardBucket, Span
from apps.tables.models import Seat
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
    with django_assert_max_num_queries(6):  # session, user, table, membership, seat, buckets
        response = _card(client, table.pk, "1")
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
