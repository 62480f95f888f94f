"""Issue #47: the 战绩 page. A player's own sessions (every club), a member's sessions in one club
for its owner and admins; keyset pages whose cost does not grow with the history."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.clubs.models import Membership
from apps.tables.models import Hand, Table
from tests.tables.sessions import ended_session

pytestmark = pytest.mark.django_db

MINE = reverse("tables:record")


def _tables_on(html: str) -> list[int]:
    return [int(t) for t in re.findall(r'class="card record-session" data-table="(\d+)"', html)]


def test_my_record_lists_my_sessions_with_results_and_replay_links(client, club, players, template):
    old = ended_session(club, template, players, name="昨晚一桌")
    new = ended_session(club, template, [players[1], players[0], players[2]], name="今晚一桌", hands=1)
    Table.objects.create(club=club, name="等人中", **{f: getattr(template, f) for f in ("preset", "players")})
    client.force_login(players[0])
    html = client.get(MINE).content.decode()
    assert _tables_on(html) == [new.pk, old.pk]  # newest first; a table with no hand dealt is no session
    assert "我的战绩" in html and "昨晚一桌" in html and club.name in html
    first_hand = Hand.objects.get(table=old, number=1)
    assert f'href="{reverse("replays:hand", args=[first_hand.pk])}"' in html
    old_card = html[html.index(f'data-table="{old.pk}"'):]
    assert '成绩 <span class="pos">+10</span>' in old_card  # his session total
    new_card = html[html.index(f'data-table="{new.pk}"'):html.index(f'data-table="{old.pk}"')]
    assert '第 1 局 <span class="neg">-2</span>' in new_card  # his own hand total, from the hand's seats


def test_pages_follow_each_other_with_the_shared_pager(client, club, players, template):
    tables = [ended_session(club, template, players, name=f"桌{i}", hands=1) for i in range(23)]
    client.force_login(players[0])
    first = client.get(MINE).content.decode()
    assert _tables_on(first) == [t.pk for t in reversed(tables)][:20]
    older = re.search(r'href="(\?older=[^"]+)" rel="next"', first).group(1)
    second = client.get(MINE + older.replace("&amp;", "&")).content.decode()
    assert _tables_on(second) == [t.pk for t in reversed(tables)][20:]
    assert client.get(MINE, {"older": "x.1"}).status_code == 400  # a forged cursor


def _count(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_a_page_costs_the_same_for_a_short_and_a_long_history(client, club, players, template, make_user):
    short, long_ = make_user("short"), make_user("long")
    Membership.objects.create(club=club, user=short)
    Membership.objects.create(club=club, user=long_)
    ended_session(club, template, [short, players[1], players[2]], name="一桌", hands=1)
    for i in range(45):
        ended_session(club, template, [long_, players[1], players[2]], name=f"桌{i}", hands=3)
    counts = {}
    for user in (short, long_):
        client.force_login(user)
        client.get(MINE)  # session and user warmed
        counts[user.username] = _count(client, MINE)
    assert counts["short"] == counts["long"], counts
    client.force_login(long_)
    first = client.get(MINE).content.decode()
    older = re.search(r'href="(\?older=[^"]+)" rel="next"', first).group(1).replace("&amp;", "&")
    assert _count(client, MINE + older) == counts["long"]  # a deep page too
    client.force_login(club.admin_user)
    url = reverse("tables:member_record", args=[club.pk, short.pk])
    client.get(url)
    assert _count(client, url) == _count(client, reverse("tables:member_record", args=[club.pk, long_.pk]))


def test_a_manager_sees_a_members_record_in_his_club_only(client, club, players, template, make_user, make_club):
    here = ended_session(club, template, players, name="本会一桌")
    other_owner = make_user("other_owner")
    other = make_club("别家", owner=other_owner, members=[players[1]])
    from apps.clubs.models import RuleTemplate

    other_template = RuleTemplate.objects.create(club=other, name="别家规则", preset="full", players=3,
                                                 base_score=1, hands_per_session=2, turn_seconds=15)
    there = ended_session(other, other_template, [players[1], other_owner, make_user("x")], name="别家一桌")
    url = reverse("tables:member_record", args=[club.pk, players[1].pk])
    client.force_login(club.admin_user)
    html = client.get(url).content.decode()
    assert _tables_on(html) == [here.pk] and there.pk not in _tables_on(html)
    assert "玩家1 的战绩" in html
    client.force_login(players[2])  # a plain member
    assert client.get(url).status_code == 403
    client.force_login(other_owner)  # another club's owner, through a forged club id
    assert client.get(url).status_code == 404
    client.force_login(other_owner)  # his own club, a user who is not his member
    assert client.get(reverse("tables:member_record", args=[other.pk, players[2].pk])).status_code == 404
    client.force_login(club.admin_user)
    assert client.get(reverse("tables:member_record", args=[club.pk, 999999])).status_code == 404


def test_linked_from_the_nav_the_profile_and_the_member_list(client, club, players):
    client.force_login(players[0])  # the owner
    assert f'href="{MINE}"' in client.get(reverse("accounts:profile")).content.decode()
    html = client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    assert f'href="{MINE}">战绩</a>' in html
    assert reverse("tables:member_record", args=[club.pk, players[1].pk]) in html
    client.logout()
    assert client.get(MINE).status_code == 302
