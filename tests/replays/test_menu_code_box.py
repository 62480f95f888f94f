"""Issue 24: the 回放码 box is in the menu of every signed-in page (sign-in lands on /clubs/, not on
"/"), and it is the one form of the share_enter view: a code typed there opens the replay, a bad
one gets the view's clear error, and its lookups count against the same rate limit."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from apps.replays.models import ShareCode


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


MENU_BOX = re.compile(
    r'<nav class="nav" id="site-menu"[^>]*>.*?<form method="get" action="(?P<action>[^"]+)" class="menu-code"'
    r'.*?<label for="menu-code-input">回放码</label>.*?<input id="menu-code-input" name="code"', re.S)


def signed_in_pages(world) -> list[str]:
    club = world.club.pk
    return [
        reverse("clubs:list"), reverse("clubs:detail", args=[club]), reverse("ledgers:mine", args=[club]),
        reverse("ledgers:leaderboard", args=[club]), reverse("matches:list", args=[club]),
        reverse("matches:mine"), reverse("accounts:profile"), reverse("replays:hand", args=[world.hand.pk]),
        reverse("replays:table_hands", args=[world.table.pk]), "/",
    ]


def test_every_signed_in_page_has_the_box_in_its_menu(world, client):
    client.force_login(world.players[0])
    for url in signed_in_pages(world):
        response = client.get(url)
        assert response.status_code == 200, url
        match = MENU_BOX.search(response.content.decode())
        assert match, f"no 回放码 box in the menu of {url}"
        assert match.group("action") == reverse("replays:share_enter")


def test_anonymous_pages_have_no_box(client, world):
    for url in ("/", reverse("accounts:login"), reverse("accounts:signup")):
        html = client.get(url).content.decode()
        assert 'id="menu-code-input"' not in html and "menu-code" not in html


def test_the_menu_box_opens_a_replay_and_refuses_a_bad_code(world, client):
    client.force_login(world.players[0])
    client.post(reverse("replays:share_create", args=[world.hand.pk]), {"expiry": "7d"})
    share = ShareCode.objects.get()
    client.force_login(world.outsider)  # a signed-in user of no club
    html = client.get(reverse("clubs:list")).content.decode()
    action = MENU_BOX.search(html).group("action")
    typed = f"{share.code[:5].lower()}-{share.code[5:]}"
    response = client.get(action, {"code": typed})
    assert response["Location"] == reverse("replays:share_open", args=[share.code])
    assert client.get(response["Location"]).status_code == 200
    bad = client.get(action, {"code": "0OIL1"})
    assert bad.status_code == 400 and "不含 0" in bad.content.decode()


def test_the_menu_box_shares_the_views_rate_limit(world, client, settings):
    client.force_login(world.outsider)
    action = MENU_BOX.search(client.get(reverse("clubs:list")).content.decode()).group("action")
    codes = [client.get(action, {"code": "0000"}).status_code for _ in range(40)]
    assert 429 in codes  # the same counter as the home page's box
