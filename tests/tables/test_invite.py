"""Issue #47: 邀请 at a waiting table (apps/tables/verbs/invite.py, /tables/<id>/invite/): a seated
player lists the club's online members not at the table and invites them; the invitation is a
notice whose 加入 seats the member through the table's join form (or says plainly that the seat
went). Bad input, forged ids, non-members, started tables and floods are refused and change
nothing."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.urls import reverse

from apps.accounts import notices
from apps.accounts.models import Notice
from apps.tables.models import Seat
from apps.tables.transaction.context import TableError
from apps.tables.verbs import invite, services

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counts():
    cache.clear()  # (the rate limit's counters; user ids come back in the next test's database)


@pytest.fixture
def waiting(club, players, template, make_user, make_club):
    """p0 opened a table and sits there; p1 and the admin are online, p2 is not; an outsider is
    online in another club."""
    table = services.table_open(user=players[0], template=template)
    outsider = make_user(username="outsider", display_name="外人")
    make_club(name="别的会", owner=outsider)
    for user in (players[1], club.admin_user, outsider, players[0]):
        notices.socket_opened(user_id=user.pk)
    return table, outsider


def post(client, table, body, raw=False):
    return client.post(reverse("tables:invite", args=[table.pk]), body if raw else json.dumps(body),
                       content_type="application/json", HTTP_ACCEPT="application/json")


def test_the_list_is_online_members_not_at_the_table(waiting, club, players, client, django_assert_num_queries):
    table, _outsider = waiting
    with django_assert_num_queries(4):
        listed = invite.invite_candidates(user=players[0], table_id=table.pk)
    assert {m["id"] for m in listed} == {players[1].pk, club.admin_user.pk}
    notices.socket_closed(user_id=club.admin_user.pk)  # he closed his last page
    client.force_login(players[0])
    answer = client.get(reverse("tables:invite", args=[table.pk])).json()
    assert answer == {"ok": True, "members": [{"id": players[1].pk, "name": "玩家1"}]}
    client.force_login(players[1])  # not seated here: may not invite
    refused = client.get(reverse("tables:invite", args=[table.pk]))
    assert refused.status_code == 403 and refused.json()["message"] == "只有在这张桌上入座的玩家才能邀请。"


def test_an_invitation_is_a_notice_whose_join_seats_him(waiting, club, players, client):
    table, _outsider = waiting
    client.force_login(players[0])
    answer = post(client, table, {"user": players[1].pk})
    assert answer.status_code == 200 and answer.json() == {"ok": True, "message": "已邀请 玩家1。"}
    notice = Notice.objects.get()
    assert (notice.recipient, notice.kind, notice.url) == (players[1], "table_invite", f"/tables/{table.pk}/join/")
    assert notices.render(notices.facts(notice))["text"] == f"玩家0 邀请你到 牌友会 的 {table.code} 号桌"
    again = post(client, table, {"user": players[1].pk})
    assert again.status_code == 409 and again.json()["code"] == "already_invited"
    assert post(client, table, {"user": club.admin_user.pk}).status_code == 200
    client.force_login(players[1])
    assert client.post(notice.url).url == f"/tables/{table.pk}/"
    assert Seat.objects.filter(table=table, user=players[1]).exists()
    services.table_join(user=players[2], table_id=table.pk)  # the last seat goes meanwhile
    client.force_login(club.admin_user)
    page = client.post(f"/tables/{table.pk}/join/", follow=True).content.decode()
    assert "没有空座位了。" in page
    assert not Seat.objects.filter(table=table, user=club.admin_user).exists()
    client.force_login(players[0])  # a full table takes no more invitations
    full = post(client, table, {"user": players[1].pk})
    assert full.status_code == 409 and full.json()["message"] == "这张桌已经没有空座位了。"


@pytest.mark.parametrize("body", [{"user": "7"}, {"user": True}, {"user": None}, {}, [1], "{nope", "3"])
def test_bad_input_is_refused_and_sends_nothing(waiting, players, client, body):
    table, _outsider = waiting
    client.force_login(players[0])
    answer = post(client, table, body, raw=isinstance(body, str))
    assert answer.status_code == 400 and answer.json()["code"] == "bad_invitee"
    assert not Notice.objects.exists()


def test_forged_ids_non_members_and_the_seated_are_refused(waiting, players, client):
    table, outsider = waiting
    client.force_login(players[0])
    for user_id, code in ((outsider.pk, "not_member"), (999_999, "not_member"), (players[0].pk, "already_seated")):
        answer = post(client, table, {"user": user_id})
        assert answer.status_code == 400 and answer.json()["code"] == code
    missing = client.post(reverse("tables:invite", args=[999_999]), json.dumps({"user": players[1].pk}),
                          content_type="application/json")
    assert missing.status_code == 404
    client.force_login(outsider)
    assert post(client, table, {"user": players[1].pk}).status_code == 403
    assert not Notice.objects.exists()


def test_a_started_table_takes_no_invitations(waiting, players):
    table, _outsider = waiting
    table.status = "playing"
    table.save(update_fields=["status"])
    with pytest.raises(TableError) as refused:
        invite.table_invite(user=players[0], table_id=table.pk, invitee_id=players[1].pk)
    assert refused.value.code == "not_waiting"


def test_invitations_are_rate_limited_per_inviter(waiting, club, players, client, make_user, monkeypatch):
    table, _outsider = waiting
    monkeypatch.setitem(invite.INVITE_RATE, "user", 2)
    client.force_login(players[0])
    assert post(client, table, {"user": players[1].pk}).status_code == 200
    assert post(client, table, {"user": players[2].pk}).status_code == 200
    over = post(client, table, {"user": club.admin_user.pk})
    assert over.status_code == 429 and over.json()["message"] == "邀请太频繁了，请等一分钟。"
    assert Notice.objects.count() == 2


def test_a_notice_made_in_a_table_sockets_thread_is_sent_from_its_loop(players, django_capture_on_commit_callbacks):
    """A notice made inside a table's move (a match's next round seated by the last hand) goes out
    as the move's own updates do: collected in the socket's database thread, published by its loop."""
    from apps.tables.transaction.outbox import deferred_sends

    with deferred_sends() as box, django_capture_on_commit_callbacks(execute=True):
        notices.notify(recipient_id=players[1].pk, kind="match_soon", key="m:1:soon", params={"match": "周赛"})
    assert [(group, message["type"]) for group, message in box] == [(f"user.{players[1].pk}", "notice.new")]
