"""Issue 24: the club page's table links say what they do. A seated player's link reads 进入, a
free seat offers 入座, a spectator's link reads 观战; 开桌 only opens a new table. Practice and
match tables are labelled."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apps.clubs.models import Membership, Role
from apps.tables.verbs import arranged, services
from tests.tables.helpers import ready_all

pytestmark = pytest.mark.django_db


def _card(html: str, table_id: int) -> str:
    start = html.index(f'data-table="{table_id}"')
    return html[start:html.index("</li>", start)]


def _controls(card: str) -> list[str]:
    """The visible words of the card's links and buttons, in order."""
    return re.findall(r"<(?:a|button)\b[^>]*>\s*([^<]+?)\s*</(?:a|button)>", card)


def _page(client, user, club) -> str:
    client.force_login(user)
    response = client.get(reverse("clubs:detail", args=[club.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_each_table_link_says_what_it_does(client, club, players, template, make_user):
    waiting = services.table_open(user=players[0], template=template)  # p0 seated, two free seats
    playing = services.table_open(user=players[1], template=template)
    stranger = make_user(username="m9", display_name="路人")
    Membership.objects.create(club=club, user=stranger, role=Role.MEMBER)
    services.table_join(user=players[0], table_id=playing.pk)
    services.table_join(user=players[2], table_id=playing.pk)
    ready_all(playing.pk, [players[1], players[0], players[2]])

    html = _page(client, players[0], club)  # seated at both
    assert _controls(_card(html, waiting.pk)) == ["进入"]
    assert _controls(_card(html, playing.pk)) == ["进入"]
    tables = html[html.index("tables-list"):html.index('class="form open-table"')]
    assert "开桌" not in tables  # 开桌 is the open form's button only
    assert "开桌" in html[html.index('class="form open-table"'):]

    html = _page(client, stranger, club)  # a plain member with no seat
    assert _controls(_card(html, waiting.pk)) == ["入座", "观战"]
    assert f'action="{reverse("tables:join", args=[waiting.pk])}"' in _card(html, waiting.pk)
    assert _controls(_card(html, playing.pk)) == []  # a member may not watch a table in play

    html = _page(client, club.admin_user, club)  # an admin: may sit down, or watch any table
    assert _controls(_card(html, waiting.pk)) == ["入座", "观战"]
    assert _controls(_card(html, playing.pk)) == ["观战"]


def test_practice_and_match_tables_are_labelled(client, club, players, template):
    practice = services.table_open(user=players[0], template=template, practice=True)
    plain = services.table_open(user=players[1], template=template)
    match = arranged.arranged_open(club=club, users=players, rules=template, hands=1, name="周四晚快赛 · 第1轮",
                                   practice=True, hold=True)
    html = _page(client, players[2], club)
    assert "练习桌" in _card(html, practice.pk) and "比赛桌" not in _card(html, practice.pk)
    assert "比赛桌" in _card(html, match.pk) and "练习桌" not in _card(html, match.pk)
    assert "练习桌" not in _card(html, plain.pk) and "比赛桌" not in _card(html, plain.pk)
    assert _controls(_card(html, match.pk)) == ["进入"]
