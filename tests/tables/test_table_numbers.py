"""Issue #47: a table's 桌号, the 输入桌号 box (home and club page) and 继续牌桌.

A member's number goes to the table's page; a non-member, an unknown or ended number, a bad one
and too many tries get a clear refusal in Chinese and change nothing.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages
from django.db import IntegrityError, transaction
from django.urls import reverse

from apps.clubs.models import Membership
from apps.tables.models import Table, TableStatus
from apps.tables.read.codes import normalise, table_in_play
from apps.tables.verbs import services

pytestmark = pytest.mark.django_db

GO = reverse("tables:by_number")


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_every_table_gets_six_digits_unique_among_open_tables(players, template):
    a = services.table_open(user=players[0], template=template)
    b = services.table_open(user=players[1], template=template)
    assert re.fullmatch(r"[1-9]\d{5}", a.code) and re.fullmatch(r"[1-9]\d{5}", b.code)
    assert a.code != b.code
    # The database refuses a second open table with the same number...
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=b.pk).update(code=a.code)
    # ...but an ended table's number may come back.
    Table.objects.filter(pk=a.pk).update(status=TableStatus.FINISHED)
    Table.objects.filter(pk=b.pk).update(code=a.code)


def test_a_new_table_drawing_a_taken_number_draws_another(players, template, monkeypatch):
    first = services.table_open(user=players[0], template=template)
    draws = iter([first.code, "654321"])  # the retry draws the taken number once more, then a free one
    monkeypatch.setattr("apps.tables.models.new_table_code", lambda: next(draws))
    second = Table(club=template.club, template=template, name="再开一桌", code=first.code)
    second.copy_rules(template)
    with transaction.atomic():  # inside a caller's transaction, which goes on
        second.save()
        assert Table.objects.filter(pk=second.pk, code="654321").exists()
    assert Table.objects.get(pk=first.pk).code == first.code


def test_normalise_takes_what_players_paste():
    assert normalise(" 123 456 ") == "123456"
    assert normalise("桌号：６５４３２１") == "654321"
    assert normalise("12345") == normalise("1234567") == normalise("abc") == ""


def test_a_member_goes_to_the_table_by_its_number(client, club, players, template):
    table = services.table_open(user=players[0], template=template)
    client.force_login(players[1])
    response = client.get(GO, {"code": f"桌号 {table.code[:3]} {table.code[3:]}",
                                "next": reverse("clubs:detail", args=[club.pk])})
    assert response.status_code == 302 and response["Location"] == reverse("tables:detail", args=[table.pk])
    assert client.get(response["Location"]).status_code == 200


def test_the_club_page_and_the_table_page_show_the_number(client, club, players, template):
    table = services.table_open(user=players[0], template=template)
    client.force_login(players[1])
    html = client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    assert f"桌号 <b>{table.code}</b>" in html and 'id="table-number-input"' in html
    html = client.get(reverse("tables:detail", args=[table.pk])).content.decode()
    assert f"桌号 </span><b>{table.code}</b>" in html


NOT_FOUND = "没有找到这个桌号的牌桌"


def test_a_non_member_gets_the_same_answer_as_an_unknown_number(client, players, template, make_user, make_club):
    table = services.table_open(user=players[0], template=template)
    outsider = make_user(username="outsider")
    make_club(name="别的俱乐部", owner=outsider)
    client.force_login(outsider)
    for code in (table.code, "999999" if table.code != "999999" else "888888"):
        response = client.get(GO, {"code": code, "next": "/"})
        assert response.status_code == 302 and response["Location"] == "/"
        assert any(NOT_FOUND in m for m in _messages(response))


def test_an_ended_table_number_is_not_found(client, players, template):
    table = services.table_open(user=players[0], template=template)
    Table.objects.filter(pk=table.pk).update(status=TableStatus.DISSOLVED)
    client.force_login(players[1])
    response = client.get(GO, {"code": table.code})
    assert response["Location"] == reverse("home")
    assert any(NOT_FOUND in m for m in _messages(response))


def test_bad_input_and_a_foreign_next_are_refused(client, players, template):
    client.force_login(players[1])
    response = client.get(GO, {"code": "12ab", "next": "https://evil.example/"})
    assert response["Location"] == reverse("home")  # never sent off the site
    assert _messages(response) == ["桌号是六位数字，请检查后再输入。"]


def test_a_member_may_not_walk_into_a_hand_in_play(client, club, players, template, make_user, full_table):
    from tests.tables.helpers import ready_all

    ready_all(full_table.pk, players)
    bystander = make_user(username="bystander")
    Membership.objects.create(club=club, user=bystander)
    client.force_login(bystander)
    response = client.get(GO, {"code": Table.objects.get(pk=full_table.pk).code})
    assert any("正在对局中" in m for m in _messages(response))
    client.force_login(club.admin_user)  # an admin watches any table
    response = client.get(GO, {"code": Table.objects.get(pk=full_table.pk).code})
    assert response["Location"] == reverse("tables:detail", args=[full_table.pk])


def test_guesses_are_rate_limited_per_user(client, players, template, settings):
    settings.TABLE_CODE_RATE = {"user": 3}
    table = services.table_open(user=players[0], template=template)
    client.force_login(players[1])
    for _ in range(3):
        client.get(GO, {"code": "000000"})
    response = client.get(GO, {"code": table.code})  # even a right number, once over the limit
    assert response["Location"] == reverse("home") and int(response["Retry-After"]) > 0
    assert _messages(response)[-1] == "输入桌号的次数太多了，请等一分钟再试。"
    client.force_login(players[2])  # per user: another player still may
    assert client.get(GO, {"code": table.code})["Location"] == reverse("tables:detail", args=[table.pk])


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(GO, {"code": "123456"})
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]


def test_continue_the_table_on_home_and_club_page_in_one_query(client, club, players, template,
                                                                django_assert_num_queries):
    table = services.table_open(user=players[1], template=template)
    with django_assert_num_queries(1):
        assert table_in_play(user=players[1]) == table
    with django_assert_num_queries(1):
        assert table_in_play(user=players[1], club_id=club.pk) == table
    with django_assert_num_queries(1):
        assert table_in_play(user=players[2]) is None
    client.force_login(players[1])
    for url in (reverse("home"), reverse("clubs:detail", args=[club.pk])):
        html = client.get(url).content.decode()
        assert f'id="continue-table" href="{reverse("tables:detail", args=[table.pk])}"' in html
        assert "继续牌桌" in html
    client.force_login(players[2])  # not seated anywhere
    assert "继续牌桌" not in client.get(reverse("home")).content.decode()
    Table.objects.filter(pk=table.pk).update(status=TableStatus.FINISHED)
    client.force_login(players[1])  # an ended table is not continued
    assert 'id="continue-table"' not in client.get(reverse("home")).content.decode()


def test_the_box_speaks_english_through_i18n(client, club, players, template, settings):
    table = services.table_open(user=players[1], template=template)
    client.force_login(players[1])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("home")).content.decode()
    assert "Back to my table" in html and "Enter a table number" in html and f"Table no. {table.code}" in html
    assert "继续牌桌" not in html and "输入桌号" not in html
    response = client.get(GO, {"code": "12"})
    assert _messages(response) == ["A table number has six digits."]
