"""Issue #47: each signed-in page's own socket (/ws/me/, apps/accounts/live.py) and the notices it
carries (apps/accounts/notices.py): anonymous sockets refused, one notice per key whatever the
retries, sent after the commit to every socket of its recipient, worded in the page's language;
presence across processes lives in the database. A flood of frames is refused ``rate_limited``
and a user's fifth socket closed 4429, as at a table (config/ratelimit.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.utils import timezone

from apps.accounts import notices
from apps.accounts.models import LivePresence, Notice
from config.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ORIGIN = [(b"origin", b"http://testserver")]


async def me(user, lang="zh-hans", headers=ORIGIN) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, f"/ws/me/?lang={lang}", headers=headers)
    comm.scope["user"] = user
    connected, _ = await comm.connect()
    assert connected
    return comm


@sync_to_async
def invite(user_id, key="t:1"):
    with transaction.atomic():
        return notices.notify(recipient_id=user_id, kind="table_invite", key=key, url="/tables/1/join/",
                              params={"inviter": "阿明", "table": "1234", "club": "湘西"})


async def test_anonymous_socket_is_closed_4401():
    comm = await me(AnonymousUser())
    out = await comm.receive_output(timeout=2)
    assert out == {"type": "websocket.close", "code": 4401}


async def test_foreign_origin_is_refused(make_user):
    user = await sync_to_async(make_user)()
    comm = WebsocketCommunicator(application, "/ws/me/", headers=[(b"origin", b"http://evil.example")])
    comm.scope["user"] = user
    connected, _ = await comm.connect()
    assert not connected


async def test_notice_once_per_key_to_every_socket_in_its_language(make_user):
    user, other = await sync_to_async(make_user)(), await sync_to_async(make_user)()
    zh, en, stranger = await me(user), await me(user, lang="en"), await me(other)
    for comm in (zh, en, stranger):
        assert (await comm.receive_json_from(timeout=2)) == {"type": "hello", "unread": 0}
    assert await invite(user.pk) is not None
    assert await invite(user.pk) is None  # the same key again: nothing stored, nothing sent
    got_zh = await zh.receive_json_from(timeout=2)
    assert got_zh["type"] == "notice"
    assert got_zh["notice"]["text"] == "阿明 邀请你到 湘西 的 1234 号桌"
    assert got_zh["notice"]["label"] == "加入" and got_zh["notice"]["post"] is True
    assert got_zh["notice"]["url"] == "/tables/1/join/"
    got_en = await en.receive_json_from(timeout=2)
    assert got_en["notice"]["text"] == "阿明 invites you to table 1234 (湘西)"
    for comm in (zh, en, stranger):
        assert await comm.receive_nothing(timeout=0.3)
    assert await sync_to_async(Notice.objects.filter(recipient=user).count)() == 1
    later = await me(user)
    assert (await later.receive_json_from(timeout=2)) == {"type": "hello", "unread": 1}
    for comm in (zh, en, stranger, later):
        await comm.disconnect()


async def test_nothing_is_sent_when_the_senders_transaction_rolls_back(make_user):
    user = await sync_to_async(make_user)()
    comm = await me(user)
    await comm.receive_json_from(timeout=2)

    @sync_to_async
    def rolled_back():
        try:
            with transaction.atomic():
                notices.notify(recipient_id=user.pk, kind="match_soon", key="m:1:soon", params={"match": "周赛"})
                raise RuntimeError
        except RuntimeError:
            pass

    await rolled_back()
    assert await comm.receive_nothing(timeout=0.3)
    assert not await sync_to_async(Notice.objects.exists)()
    await comm.disconnect()


async def test_bad_messages_get_an_error_and_change_nothing(make_user):
    user = await sync_to_async(make_user)()
    comm = await me(user)
    await comm.receive_json_from(timeout=2)
    for text in ("{not json", "[1, 2]", '{"type": "read", "ids": [1]}', "x" * 5000, '"ping"'):
        await comm.send_to(text_data=text)
        assert (await comm.receive_json_from(timeout=2)) == {"type": "error", "code": "bad_message"}
    await comm.send_to(text_data='{"type": "ping"}')
    assert (await comm.receive_json_from(timeout=2)) == {"type": "pong"}
    await comm.disconnect()


async def test_presence_counts_sockets_and_expires_unseen_ones(make_user):
    user = await sync_to_async(make_user)()
    online = sync_to_async(lambda: notices.online_user_ids(user_ids=[user.pk]))
    assert await online() == set()
    one, two = await me(user), await me(user)
    assert await online() == {user.pk}
    await one.disconnect()
    assert await online() == {user.pk}  # the other tab is still open
    await sync_to_async(LivePresence.objects.filter(user=user).update)(
        seen_at=timezone.now() - timedelta(seconds=notices.STALE_SECONDS + 1))
    assert await online() == set()  # a killed process's socket: its heartbeat stopped
    await two.disconnect()
    assert await sync_to_async(lambda: LivePresence.objects.get(user=user).sockets)() == 0


async def test_unknown_kind_is_refused(make_user):
    user = await sync_to_async(make_user)()
    with pytest.raises(ValueError):
        await sync_to_async(notices.notify)(recipient_id=user.pk, kind="nonsense", key="x")


async def test_a_flood_of_frames_is_refused_rate_limited_and_changes_nothing(make_user, monkeypatch):
    from apps.accounts import live

    user = await sync_to_async(make_user)()
    comm = await me(user)
    await comm.receive_json_from(timeout=2)
    for kind, (burst, _rate) in list(live.LIMITS.items()):  # no refill while the test runs, however slow
        monkeypatch.setitem(live.LIMITS, kind, (burst, 0.001))
    seen = []
    monkeypatch.setattr(live, "SEEN_EVERY", 0.0)  # every ping that goes through marks him seen
    monkeypatch.setattr(notices, "socket_seen", lambda **kw: seen.append(kw))
    answers = []
    for _ in range(20):
        await comm.send_to(text_data='{"type": "ping"}')
        answers.append(await comm.receive_json_from(timeout=2))
    burst = live.LIMITS["ping"][0]
    assert answers[:burst] == [{"type": "pong"}] * burst
    assert all(a["type"] == "error" and a["code"] == "rate_limited" and a["retry_after"] > 0
               for a in answers[burst:])
    assert len(seen) == burst  # a refused ping marks nothing
    for _ in range(live.LIMITS["other"][0]):  # garbage has its own bucket: refused as bad first ...
        await comm.send_to(text_data="{not json")
        assert (await comm.receive_json_from(timeout=2))["code"] == "bad_message"
    await comm.send_to(text_data="[" * 1000)  # ... then as too many (and too deep nests nothing)
    assert (await comm.receive_json_from(timeout=2))["code"] == "rate_limited"
    await comm.disconnect()


async def test_a_fifth_socket_of_one_user_is_closed_4429(make_user):
    from apps.accounts import live

    user, other = await sync_to_async(make_user)(), await sync_to_async(make_user)()
    socks = [await me(user) for _ in range(live.MAX_SOCKETS_PER_USER)]
    for comm in socks:
        assert (await comm.receive_json_from(timeout=2)) == {"type": "hello", "unread": 0}
    fifth = await me(user)
    assert (await fifth.receive_output(timeout=2)) == {"type": "websocket.close", "code": 4429}
    presence = sync_to_async(lambda: LivePresence.objects.get(user=user).sockets)
    assert await presence() == live.MAX_SOCKETS_PER_USER  # the refused one never counted
    another = await me(other)  # another user: his own count
    assert (await another.receive_json_from(timeout=2))["type"] == "hello"
    await socks.pop().disconnect()
    again = await me(user)  # a page closed: a new one is welcome
    assert (await again.receive_json_from(timeout=2))["type"] == "hello"
    for comm in (*socks, again, another):
        await comm.disconnect()
    assert user.pk not in live._open and other.pk not in live._open
