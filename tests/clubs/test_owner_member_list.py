"""Issue #46, owners: the club page's member list shows its owner and admins each member's balance
(the ledger) and online state (what the platform records: a connected seat, the last sighting),
searched by name or username on the server, a page at a time, for a fixed number of queries;
and the box of the club list where a signed-in user types an invite code."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import SeenAddress
from apps.clubs import selectors, services
from apps.clubs.models import Invite, JoinRequest, Membership
from apps.ledgers.services import adjustment_create
from apps.tables.models import Seat, Table
from tests.language import VisibleText, problems

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    page = VisibleText()
    page.feed(response.content.decode())
    return page.text


def _member_items(html: str) -> dict[str, str]:
    """username -> the visible text of his row of the member list."""
    rows = {}
    for m in re.finditer(r'<li class="member" data-username="([^"]+)">(.*?)</li>', html, re.S):
        page = VisibleText()
        page.feed(m.group(2))
        rows[m.group(1)] = page.text
    return rows


def _table(club, owner, status="waiting") -> Table:
    return Table.objects.create(club=club, name="晚场", preset="full", options={}, players=3, base_score=1,
                                piao_choices=[], ruleset={}, created_by=owner, hands_per_session=8, status=status)


@pytest.fixture
def club_with_facts(make_user, make_club):
    owner = make_user("boss", display_name="老王")
    admin = make_user("helper", display_name="小李")
    online = make_user("ming", display_name="阿明")
    away = make_user("qiang", display_name="阿强")
    never = make_user("fang", display_name="阿芳")
    club = make_club("牌友会", owner=owner, admins=[admin], members=[online, away, never])
    adjustment_create(club=club, member=Membership.objects.get(club=club, user=online), amount=120,
                      reason="充值", by=owner)
    adjustment_create(club=club, member=Membership.objects.get(club=club, user=away), amount=-30,
                      reason="下分", by=owner)
    table = _table(club, owner)
    Seat.objects.create(table=table, index=0, user=online, online=True, seen_at=timezone.now())
    old = _table(club, owner, status="finished")  # an ended table's seat says nothing of now
    Seat.objects.create(table=old, index=0, user=away, online=True, seen_at=timezone.now() - timedelta(hours=3))
    SeenAddress.objects.create(user=away, ip="10.0.0.2", first_seen=timezone.now() - timedelta(days=2),
                               last_seen=timezone.now() - timedelta(hours=2))
    return {"club": club, "owner": owner, "admin": admin, "online": online, "away": away, "never": never}


def test_managers_see_balance_and_online_state_of_each_member(client, club_with_facts):
    w = club_with_facts
    url = reverse("clubs:detail", args=[w["club"].pk])
    for manager in (w["owner"], w["admin"]):
        client.force_login(manager)
        response = client.get(url)
        rows = _member_items(response.content.decode())
        assert "在线（牌桌上）" in rows["ming"] and "余额 120" in rows["ming"]
        assert "2 小时前在线" in rows["qiang"].replace("\xa0", " ") and "余额 -30" in rows["qiang"]
        assert "还没上过线" in rows["fang"] and "余额 0" in rows["fang"]
        assert f'href="{reverse("ledgers:member", args=[w["club"].pk, w["online"].pk])}"' in response.content.decode()
        assert not problems(_text(response), chinese=True, names=("boss", "helper", "ming", "qiang", "fang"))
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    rows = _member_items(english.content.decode())
    assert "Online, at a table" in rows["ming"] and "Last seen 2" in rows["qiang"].replace("\xa0", " ")


def test_a_plain_member_sees_the_list_and_search_but_no_balances(client, club_with_facts):
    w = club_with_facts
    client.force_login(w["never"])
    html = client.get(reverse("clubs:detail", args=[w["club"].pk])).content.decode()
    rows = _member_items(html)
    assert set(rows) == {"boss", "helper", "ming", "qiang", "fang"}
    assert "余额" not in " ".join(rows.values()) and "在线" not in " ".join(rows.values())
    assert 'name="q"' in html


def test_search_by_display_name_or_username_in_any_case(client, club_with_facts):
    w = club_with_facts
    client.force_login(w["owner"])
    url = reverse("clubs:detail", args=[w["club"].pk])
    assert set(_member_items(client.get(url, {"q": "阿强"}).content.decode())) == {"qiang"}
    found = client.get(url, {"q": "MING"})
    assert set(_member_items(found.content.decode())) == {"ming"}
    assert "找到 1 位成员符合「MING」。" in _text(found) and "成员 (5)" in _text(found)
    nobody = client.get(url, {"q": "路人"})
    assert _member_items(nobody.content.decode()) == {} and "没有符合的成员。" in _text(nobody)


def _big_club(make_user, make_club, n: int):
    owner = make_user(f"own{n}", display_name="群主")
    users = [make_user(f"p{n}_{i:03d}", display_name=f"玩家{i:03d}") for i in range(n)]
    club = make_club(f"俱乐部{n}", owner=owner, members=users)
    table = _table(club, owner)
    for i, user in enumerate(users[:3]):
        Seat.objects.create(table=table, index=i, user=user, online=i == 0, seen_at=timezone.now())
    for user in users[::2]:
        adjustment_create(club=club, member=Membership.objects.get(club=club, user=user), amount=10,
                          reason="充值", by=owner)
        SeenAddress.objects.create(user=user, ip="10.1.0.1", first_seen=timezone.now(), last_seen=timezone.now())
    _matches(club, owner, users, 2 if n < 10 else 8)
    return club, owner, users


def _matches(club, owner, users, count: int) -> None:
    """Matches announced at the top of the page (running, checking in, registering, drafts), the
    owner entered in each, and as many finished ones that the page does not show."""
    from apps.clubs.models import RuleTemplate
    from apps.matches import services as match_services
    from apps.matches.models import Entrant, Match

    template = RuleTemplate.objects.create(club=club, name="比赛", preset="full", players=3)
    states = ["running", "checking_in", "registering", "draft"]
    for i in range(count):
        match = match_services.match_create(
            club=club, by=owner, name=f"周赛{i}", template=template, format="fixed",
            starts_at=timezone.now() + timedelta(hours=2 + i), min_entrants=3, max_entrants=30, entry_fee=0,
            prize_scheme={"kind": "percent", "percents": [100]}, hands_per_round=1, rounds=1)
        Entrant.objects.create(match=match, user=owner, status="registered", registered_order=1)
        Match.objects.filter(pk=match.pk).update(state=states[i % 4] if i < 4 else "finished")


def test_the_page_costs_the_same_queries_for_a_small_and_a_big_club(client, make_user, make_club,
                                                                   django_assert_max_num_queries):
    """The whole club page as its owner sees it (its matches, tables, templates, tab bar, members
    with their balances and presence): the same count for 4 members and for 75 (a page of 30
    shown), for 2 matches and for 8."""
    counts = {}
    for size in (4, 75):
        club, owner, users = _big_club(make_user, make_club, size)
        client.force_login(owner)
        url = reverse("clubs:detail", args=[club.pk])
        client.get(url)  # the session and the content types warmed
        for query in ({}, {"q": "玩家00"}):
            with django_assert_max_num_queries(QUERIES) as captured:
                response = client.get(url, query)
            counts[size, bool(query)] = len(captured)
            # the club's running and coming matches are announced at the top (at most ANNOUNCED_MAX)
            assert response.content.decode().count('match-card match-now') == (2 if size < 10 else 4)
            rows = _member_items(response.content.decode())
            if query:
                assert set(rows) == {f"p{size}_{i:03d}" for i in range(min(size, 10))}
            else:
                assert len(rows) == min(size + 1, selectors.MEMBER_PAGE)
                assert "余额 10" in rows[users[0].username] and "在线（牌桌上）" in rows[users[0].username]
    assert counts[4, False] == counts[75, False] and counts[4, True] == counts[75, True], counts


# 19 (with 继续牌桌, issue #47), one more to count what a search found, and two for the matches
# announced at the top (the matches, the viewer's entries in them); equal at both sizes
QUERIES = 22


def test_pages_of_members_follow_each_other_without_gaps(client, make_user, make_club):
    club, owner, users = _big_club(make_user, make_club, 70)
    client.force_login(owner)
    url = reverse("clubs:detail", args=[club.pk])
    seen, query = [], {"q": "玩家"}
    while True:
        response = client.get(url, query)
        seen += list(_member_items(response.content.decode()))
        older = response.context["member_page"].older
        if not older:
            break
        assert "下一页" in _text(response)
        query = {"q": "玩家", "older": older}
    assert seen == [u.username for u in users]  # in the order they joined, each once


# --- the invite-code box ------------------------------------------------------------------


def test_a_typed_code_opens_its_invite_and_one_tap_sends_the_request(client, world):
    client.force_login(world.outsider)
    lists = reverse("clubs:list")
    page = client.get(lists)
    assert "有邀请码？在这里输入" in _text(page) and not problems(_text(page), chinese=True, names=("outsider",))
    for typed in (world.invite.code.lower(), f" {world.invite.code[:4]} {world.invite.code[4:]} ",
                  f"http://example.com/clubs/join/{world.invite.code}/"):
        response = client.get(lists, {"code": typed})
        assert response.status_code == 302 and response["Location"] == reverse("clubs:join", args=[world.invite.code])
    assert client.post(reverse("clubs:join", args=[world.invite.code]))["Location"] == lists
    assert JoinRequest.objects.filter(club=world.club, user=world.outsider, status="pending").exists()


@pytest.mark.parametrize("case,words", [
    ("forged", "没有这个邀请码"), ("empty", "这个字段是必填项"), ("expired", "已过期或已被撤销"),
    ("revoked", "已过期或已被撤销"), ("used_up", "使用次数已满"),
])
def test_a_wrong_or_spent_code_is_said_in_the_box_and_changes_nothing(client, world, case, words):
    code = {"forged": "FORGED99", "empty": "  "}.get(case)
    if code is None:
        invite = services.invite_create(club=world.club, by=world.owner, max_uses=1)
        if case == "expired":
            invite.expires_at = timezone.now() - timedelta(minutes=1)
        elif case == "revoked":
            invite.revoked_at = timezone.now()
        else:
            invite.uses = 1
        invite.save()
        code = invite.code
    client.force_login(world.outsider)
    before = (JoinRequest.objects.count(), Membership.objects.count(), list(Invite.objects.values_list("uses")))
    response = client.get(reverse("clubs:list"), {"code": code})
    assert response.status_code == 200
    text = _text(response)
    assert words in text and world.club.name not in text
    assert not problems(text, chinese=True, names=("outsider", code))
    assert (JoinRequest.objects.count(), Membership.objects.count(), list(Invite.objects.values_list("uses"))) == before
    english = _text(client.get(reverse("clubs:list"), {"code": code}, HTTP_ACCEPT_LANGUAGE="en"))
    assert not problems(english, chinese=False, names=(code,))


def test_the_code_box_is_for_signed_in_users(client, world):
    response = client.get(reverse("clubs:list"), {"code": world.invite.code})
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]
