"""Share codes (回放码): format and alphabet, who makes and revokes them, opening one from another
club (read-only, nothing of the club), normalised lookups, revoked/expired codes, the rate limit."""

from __future__ import annotations

import json
import math
import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from apps.replays import services
from apps.replays.models import CODE_ALPHABET, CODE_LENGTH, ShareCode


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def make_code(client, user, hand, expiry="7d") -> ShareCode:
    client.force_login(user)
    before = set(ShareCode.objects.values_list("pk", flat=True))
    response = client.post(reverse("replays:share_create", args=[hand.pk]), {"expiry": expiry})
    assert response.status_code == 302, response.status_code
    (new,) = ShareCode.objects.exclude(pk__in=before)
    return new


def test_codes_are_random_unambiguous_and_at_least_40_bits():
    assert not set("0O1IL") & set(CODE_ALPHABET)
    assert len(set(CODE_ALPHABET)) == len(CODE_ALPHABET) == 31
    assert CODE_LENGTH * math.log2(len(CODE_ALPHABET)) >= 40
    codes = [services.new_code() for _ in range(2000)]
    assert len(set(codes)) == len(codes)
    assert all(re.fullmatch(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}", c) for c in codes)
    # Every symbol turns up: the codes use the whole alphabet.
    assert set("".join(codes)) == set(CODE_ALPHABET)


@pytest.mark.parametrize("raw,expected", [
    ("ABCDE-FGHJK", "ABCDEFGHJK"), (" abcde fghjk ", "ABCDEFGHJK"), ("abcde—fghjk", "ABCDEFGHJK"),
    ("ＡＢＣＤＥＦＧＨＪＫ", "ABCDEFGHJK"), ("ABCDE0GHJK", ""), ("", ""), ("<script>", ""),
])
def test_lookups_are_normalised(raw, expected):
    assert services.normalise(raw) == expected


@pytest.mark.parametrize("expiry,days", [("1d", 1), ("7d", 7), ("never", None)])
def test_a_player_makes_a_code_with_an_expiry(world, client, expiry, days):
    share = make_code(client, world.players[1], world.hand, expiry)
    assert share.created_by == world.players[1] and share.hand == world.hand
    if days is None:
        assert share.expires_at is None
    else:
        assert abs((share.expires_at - share.created_at) - timedelta(days=days)) < timedelta(seconds=1)
    page = client.get(reverse("replays:hand", args=[world.hand.pk])).content.decode()
    assert share.display in page and reverse("replays:share_open", args=[share.code]) in page
    assert "data-copy=" in page  # the copy button (navigator.clipboard, prompt() fallback in confirm.js)


def test_a_bad_expiry_changes_nothing(world, client):
    client.force_login(world.players[0])
    response = client.post(reverse("replays:share_create", args=[world.hand.pk]), {"expiry": "forever"})
    assert response.status_code == 302
    assert not ShareCode.objects.exists()


@pytest.mark.parametrize("role,allowed", [("admin", True), ("owner", True), ("member", False), ("staff", False),
                                          ("outsider", False), ("other_admin", False)])
def test_who_else_may_make_a_code(world, client, role, allowed):
    client.force_login(getattr(world, role))
    response = client.post(reverse("replays:share_create", args=[world.hand.pk]), {"expiry": "7d"})
    assert response.status_code == (302 if allowed else 404)
    assert ShareCode.objects.exists() == allowed


def test_a_user_of_another_club_opens_it_read_only_and_sees_nothing_of_the_club(world, client):
    share = make_code(client, world.players[0], world.hand)
    client.force_login(world.other_member)
    response = client.get(reverse("replays:share_open", args=[share.code]))
    assert response.status_code == 200
    html = response.content.decode()
    app = html[html.index('id="replay-app"'):]
    assert world.club.name not in html
    assert f"/clubs/{world.club.pk}" not in html and "/tables/" not in app
    assert "club_id" not in html and '"club"' not in html
    assert 'id="share"' not in html and "share_create" not in html and "/revoke/" not in html
    assert reverse("replays:table_hands", args=[world.table.pk]) not in html
    assert "/audit/" not in app  # no dispute link either
    data = json.loads(html.split('id="replay-data" type="application/json">')[1].split("</script>")[0])
    assert data["me"] is None and len(data["frames"]) >= 2
    # Its download leaves the club out too.
    export = client.get(reverse("replays:share_export", args=[share.code]))
    assert export.status_code == 200 and export["Content-Disposition"].startswith("attachment;")
    doc = json.loads(export.content)
    assert doc["format"] == "paohuzi-hand/1" and "club" not in doc["table"]
    # Opening a code writes nothing to the club audit log.
    from apps.clubs.models import AuditLog

    assert not AuditLog.objects.filter(club=world.club, action="replay.view").exists()


def test_the_home_box_normalises_the_typed_code(world, client):
    share = make_code(client, world.players[0], world.hand)
    client.force_login(world.outsider)
    home = client.get("/").content.decode()
    assert 'id="replay-code-input"' in home and "输入回放码" in home
    typed = f"  {share.code[:5].lower()} - {share.code[5:]} "
    response = client.get(reverse("replays:share_enter"), {"code": typed})
    assert response.status_code == 302 and response["Location"] == reverse("replays:share_open", args=[share.code])
    assert client.get(response["Location"]).status_code == 200
    bad = client.get(reverse("replays:share_enter"), {"code": "0OIL1"})
    assert bad.status_code == 400 and "不含 0" in bad.content.decode()


def test_the_home_box_is_for_signed_in_users(client):
    assert 'id="replay-code-input"' not in client.get("/").content.decode()


def test_anonymous_is_sent_to_sign_in_and_back(world, client):
    share = make_code(client, world.players[0], world.hand)
    client.logout()
    url = reverse("replays:share_open", args=[share.code])
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login")) and url in response["Location"]


def test_unknown_codes_say_so(world, client):
    client.force_login(world.outsider)
    response = client.get(reverse("replays:share_open", args=["ABCDEFGHJK"]))
    assert response.status_code == 404 and "没有这个回放码" in response.content.decode()


def test_revoked_by_its_creator_or_an_admin_and_then_closed(world, client):
    share = make_code(client, world.players[0], world.hand)
    # Another player of the hand may not revoke it, a stranger neither.
    for user in (world.players[1], world.outsider, world.staff):
        client.force_login(user)
        assert client.post(reverse("replays:share_revoke", args=[share.pk])).status_code == 404
    share.refresh_from_db()
    assert share.revoked_at is None
    client.force_login(world.players[0])
    assert client.post(reverse("replays:share_revoke", args=[share.pk])).status_code == 302
    share.refresh_from_db()
    assert share.status == "revoked" and share.revoked_by == world.players[0]
    client.force_login(world.other_member)
    response = client.get(reverse("replays:share_open", args=[share.code]))
    assert response.status_code == 410 and "已被撤销" in response.content.decode()
    assert world.hand.seed not in response.content.decode()
    assert client.get(reverse("replays:share_export", args=[share.code])).status_code == 410
    # An admin revokes a player's code.
    second = make_code(client, world.players[2], world.hand)
    client.force_login(world.admin)
    assert client.post(reverse("replays:share_revoke", args=[second.pk])).status_code == 302
    second.refresh_from_db()
    assert second.status == "revoked" and second.revoked_by == world.admin


def test_expired_codes_say_so(world, client):
    share = make_code(client, world.players[0], world.hand, "1d")
    ShareCode.objects.filter(pk=share.pk).update(created_at=timezone.now() - timedelta(days=3),
                                                 expires_at=timezone.now() - timedelta(days=2))
    client.force_login(world.outsider)
    response = client.get(reverse("replays:share_open", args=[share.code]))
    assert response.status_code == 410 and "已过期" in response.content.decode()
    assert world.hand.seed not in response.content.decode()


def test_lookups_are_rate_limited_per_user(world, client, settings):
    settings.REPLAYS_SHARE_RATE = {"user": 3, "ip": 100, "window": 60}
    share = make_code(client, world.players[0], world.hand)
    client.force_login(world.outsider)
    for _ in range(3):
        assert client.get(reverse("replays:share_open", args=["ZZZZZZZZZZ"])).status_code == 404
    limited = client.get(reverse("replays:share_open", args=[share.code]))  # even a good code now
    assert limited.status_code == 429 and "一分钟后再试" in limited.content.decode()
    assert int(limited["Retry-After"]) > 0
    assert world.hand.seed not in limited.content.decode()
    assert client.get(reverse("replays:share_enter"), {"code": "0000"}).status_code == 429
    share.refresh_from_db()
    assert share.status == "active"  # nothing else changes
    # Another user (another address too) is not limited by this one's tries.
    client.force_login(world.other_member)
    assert client.get(reverse("replays:share_open", args=[share.code]), REMOTE_ADDR="10.0.0.9").status_code == 200


def test_lookups_are_rate_limited_per_address(world, client, settings):
    settings.REPLAYS_SHARE_RATE = {"user": 100, "ip": 4, "window": 60}
    share = make_code(client, world.players[0], world.hand)
    users = [world.outsider, world.other_member, world.other_admin, world.member]
    for user in users:
        client.force_login(user)
        assert client.get(reverse("replays:share_open", args=[share.code]), REMOTE_ADDR="10.1.1.1").status_code == 200
    client.force_login(world.staff)
    assert client.get(reverse("replays:share_open", args=[share.code]), REMOTE_ADDR="10.1.1.1").status_code == 429
    assert client.get(reverse("replays:share_open", args=[share.code]), REMOTE_ADDR="10.1.1.2").status_code == 200


def test_lookups_from_one_ipv6_64_count_as_one_address(world, client, settings):
    """One subscriber holds a whole /64: each of its addresses is not a fresh limit (#41)."""
    settings.REPLAYS_SHARE_RATE = {"user": 100, "ip": 3, "window": 60}
    share = make_code(client, world.players[0], world.hand)
    client.force_login(world.outsider)
    url = reverse("replays:share_open", args=[share.code])
    for n in range(3):
        assert client.get(url, REMOTE_ADDR=f"2001:db8:7:9::{n + 1}").status_code == 200
    assert client.get(url, REMOTE_ADDR="2001:db8:7:9:ffff::42").status_code == 429
    assert client.get(url, REMOTE_ADDR="2001:db8:7:a::1").status_code == 200
