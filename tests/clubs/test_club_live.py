"""Issue #46/#47, "pages keep themselves true": the club page follows its club over the page's own
socket (members only); a table's seats, start and end and the join requests nudge it after their
commit (once per transaction, never for a rollback), and the page refetches its open tables and
the managers' pending count in a fixed number of queries (clubs.views.club_live)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.clubs import services as club_services
from apps.clubs.models import RuleTemplate
from apps.tables.transaction.context import TableError
from apps.tables.verbs import services as table_services
from config.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True)]

ORIGIN = [(b"origin", b"http://testserver")]


@pytest.fixture
def club_world(make_user, make_club):
    owner, a, b, outsider = (make_user(n, display_name=d) for n, d in
                             (("lo", "东家"), ("la", "阿明"), ("lb", "小红"), ("lx", "外人")))
    club = make_club("夜场会", owner=owner, members=[a, b])
    template = RuleTemplate.objects.create(club=club, name="三人全名堂", preset="full", options={}, players=3,
                                           base_score=1, hands_per_session=2, turn_seconds=15)
    return club, template, owner, a, b, outsider


async def follow(user, club_id):
    comm = WebsocketCommunicator(application, f"/ws/me/?lang=zh-hans&club={club_id}", headers=ORIGIN)
    comm.scope["user"] = user
    assert (await comm.connect())[0]
    assert (await comm.receive_json_from(timeout=2))["type"] == "hello"
    return comm


async def nudges(comm) -> int:
    count = 0
    while not await comm.receive_nothing(timeout=0.3):
        message = await comm.receive_json_from(timeout=2)
        assert message["type"] == "nudge" and message["what"] == "club"
        count += 1
    return count


@pytest.mark.asyncio
async def test_members_pages_are_nudged_once_per_change_outsiders_never(club_world):
    club, template, owner, a, b, outsider = club_world
    member_page, outsider_page = await follow(a, club.pk), await follow(outsider, club.pk)
    table = await sync_to_async(table_services.table_open)(user=owner, template=template)
    assert await nudges(member_page) == 1
    await sync_to_async(table_services.table_join)(user=b, table_id=table.pk)
    assert await nudges(member_page) == 1
    with pytest.raises(TableError):  # a refused join (already seated) changes nothing and nudges nobody
        await sync_to_async(table_services.table_join)(user=b, table_id=table.pk)
    assert await nudges(member_page) == 0
    await sync_to_async(table_services.table_leave)(user=b, table_id=table.pk)
    assert await nudges(member_page) == 1
    assert await nudges(outsider_page) == 0  # not a member: his page never joined the club's group
    for comm in (member_page, outsider_page):
        await comm.disconnect()


@pytest.mark.asyncio
async def test_join_requests_nudge_the_managers_count(club_world):
    club, _template, owner, _a, _b, outsider = club_world
    page = await follow(owner, club.pk)

    @sync_to_async
    def ask_and_approve():
        invite = club_services.invite_create(club=club, by=owner)
        request = club_services.join_request_create(invite=invite, user=outsider)
        club_services.join_request_approve(join_request=request, by=owner)

    await ask_and_approve()
    messages = []
    while not await page.receive_nothing(timeout=0.3):
        messages.append(await page.receive_json_from(timeout=2))
    # Two nudges (asked, approved) and, the owner being a manager, the notice of the request
    # (what his requests page and tab bar refresh on).
    assert [m["type"] for m in messages].count("nudge") == 2
    assert [m["notice"]["kind"] for m in messages if m["type"] == "notice"] == ["join_requested"]
    await page.disconnect()


def test_the_refetch_costs_a_fixed_number_of_queries(club_world, client):
    club, template, owner, a, b, outsider = club_world
    client.force_login(owner)
    url = reverse("clubs:live", args=[club.pk])
    table_services.table_open(user=a, template=template)
    with CaptureQueriesContext(connection) as one:
        first = client.get(url).json()
    assert "阿明" in first["tables"] and first["pending"] == 0
    for user in (b, owner):
        table_services.table_open(user=user, template=template)
    with CaptureQueriesContext(connection) as three:
        third = client.get(url).json()
    assert third["tables"].count('class="card"') == 3
    assert len(three.captured_queries) == len(one.captured_queries)
    client.force_login(a)  # a member: the list, no count
    assert client.get(url).json()["pending"] is None
    client.force_login(outsider)
    assert client.get(url).status_code == 404


def test_the_requests_page_costs_the_same_for_one_request_or_three(club_world, client, make_user):
    """What the managers' requests page refetches when a join request comes (its data-live-refresh
    part and the tab bar's count): a fixed number of queries, the count in the tab bar."""
    club, _template, owner, _a, _b, outsider = club_world
    invite = club_services.invite_create(club=club, by=owner)
    club_services.join_request_create(invite=invite, user=outsider)
    client.force_login(owner)
    url = reverse("clubs:requests", args=[club.pk])
    with CaptureQueriesContext(connection) as one:
        page = client.get(url).content.decode()
    assert 'id="join-requests" data-live-refresh="join_requested"' in page and "外人" in page
    for name in ("new1", "new2"):
        club_services.join_request_create(invite=invite, user=make_user(name))
    with CaptureQueriesContext(connection) as three:
        page = client.get(url).content.decode()
    assert page.count('class="join-request"') == 3
    assert '<span class="count">3</span>' in page
    assert len(three.captured_queries) == len(one.captured_queries)
