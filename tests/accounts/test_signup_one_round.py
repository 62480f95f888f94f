"""Issue #46, owners: sign-up says every mistake in one answer (before: a taken username, then a
weak password, then a password like the username, one submit each), and 注册并加入 of an invite
makes the account and the join request in one step."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.accounts.models import User
from apps.clubs import services
from apps.clubs.models import JoinRequest, Membership
from tests.language import VisibleText, problems

pytestmark = pytest.mark.django_db

GOOD = "Xk7-signup-pass"


def _errors(response) -> dict[str, list[str]]:
    return {name: [str(e) for e in errors] for name, errors in response.context["form"].errors.items()}


def _text(response) -> str:
    page = VisibleText()
    page.feed(response.content.decode())
    return page.text


def _post(client, url, **fields):
    data = {"username": "", "display_name": "", "password1": "", "password2": ""}
    return client.post(url, {**data, **fields})


@pytest.mark.parametrize("url_name", ["signup", "join_signup"])
def test_a_taken_name_and_a_weak_password_are_said_together(client, make_user, make_club, url_name):
    owner = make_user("laowang")
    club = make_club("牌友会", owner=owner)
    invite = services.invite_create(club=club, by=owner)
    url = reverse("accounts:signup") if url_name == "signup" else reverse("clubs:join_signup", args=[invite.code])
    response = _post(client, url, username="LaoWang", password1="123", password2="124")
    assert response.status_code == 200
    errors = _errors(response)
    assert errors["username"] == ["已存在一位使用该名字的用户。"]
    assert "密码太短，至少要 8 个字符。" in errors["password1"] and "密码只包含数字。" in errors["password1"]
    assert errors["password2"] == ["输入的两个密码不一致。"]
    text = _text(response)
    assert "已存在一位使用该名字的用户" in text and "密码太短" in text and "不一致" in text
    assert not problems(text, chinese=True, names=("laowang",))
    # a password like the (taken) username is said the first time too, not after the name is fixed
    like = _errors(_post(client, url, username="laowang", password1="laowang88", password2="laowang88"))
    assert like["username"] and any("太相似" in e for e in like["password1"])
    # every empty field at once (the form asks the browser not to stop at the first one)
    assert set(_errors(_post(client, url))) == {"username", "password1", "password2"}
    assert 'novalidate' in client.get(url).content.decode()
    assert User.objects.count() == 1 and not JoinRequest.objects.exists()


def test_english_sign_up_errors_are_english(client, make_user):
    make_user("taken")
    response = client.post(reverse("accounts:signup"), {"username": "taken", "password1": "123", "password2": "12"},
                           HTTP_ACCEPT_LANGUAGE="en")
    assert not problems(_text(response), chinese=False)
    assert "too short" in _text(response)


def test_sign_up_and_join_makes_the_request_in_the_same_step(client, make_user, make_club):
    owner = make_user("boss", display_name="老王")
    club = make_club("湘江俱乐部", owner=owner)
    invite = services.invite_create(club=club, by=owner, max_uses=3)
    url = reverse("clubs:join_signup", args=[invite.code.lower()])
    page = client.get(url)
    text = _text(page)
    assert page.status_code == 200 and "湘江俱乐部" in text and "老王 邀请你加入这个俱乐部" in text
    assert not problems(text, chinese=True, names=(invite.code,))
    # two mistakes, both said; nothing made
    wrong = _post(client, url, username="boss", display_name="新人", password1="12345678", password2="1234567")
    assert set(_errors(wrong)) == {"username", "password1", "password2"}
    assert not JoinRequest.objects.filter(club=club).exists()
    # fixed: the account, signed in, and its request, in one POST
    done = _post(client, url, username="newbie", display_name="新人", password1=GOOD, password2=GOOD)
    assert done.status_code == 302 and done["Location"] == reverse("clubs:list")
    newbie = User.objects.get(username="newbie")
    assert JoinRequest.objects.get(club=club, user=newbie).status == "pending"
    assert not Membership.objects.filter(club=club, user=newbie).exists()
    invite.refresh_from_db()
    assert invite.uses == 1
    mine = _text(client.get(reverse("clubs:list")))
    assert "你加入「湘江俱乐部」的申请已发出" in mine and "待审核" in mine
    # signed in now: the sign-up address sends him to the invite, which says he waits
    again = client.get(url)
    assert again.status_code == 302 and again["Location"] == reverse("clubs:join", args=[invite.code])


def test_an_invite_spent_meanwhile_makes_no_account(client, make_user, make_club, monkeypatch):
    owner = make_user("boss")
    club = make_club("牌友会", owner=owner)
    invite = services.invite_create(club=club, by=owner, max_uses=1)
    url = reverse("clubs:join_signup", args=[invite.code])
    assert client.get(url).status_code == 200
    real = services.join_request_create

    def spent_first(*, invite, user):  # another visitor used the last place between page and submit
        invite.uses = 1
        invite.save()
        return real(invite=invite, user=user)

    monkeypatch.setattr(services, "join_request_create", spent_first)
    response = _post(client, url, username="late", password1=GOOD, password2=GOOD)
    assert response.status_code == 200 and "该邀请已过期或已被撤销" in _text(response)
    assert not User.objects.filter(username="late").exists() and not JoinRequest.objects.exists()
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("state,status", [("expired", 410), ("forged", 404)])
def test_sign_up_and_join_of_a_dead_invite_offers_no_form(client, make_user, make_club, state, status):
    owner = make_user("boss")
    club = make_club("牌友会", owner=owner)
    invite = services.invite_create(club=club, by=owner)
    if state == "expired":
        services.invite_revoke(invite=invite, by=owner)
    code = invite.code if state == "expired" else "FORGED99"
    response = client.get(reverse("clubs:join_signup", args=[code]))
    assert response.status_code == status and 'id="id_password1"' not in response.content.decode()
    assert _post(client, reverse("clubs:join_signup", args=[code]), username="x1", password1=GOOD,
                 password2=GOOD).status_code == status
    assert not User.objects.filter(username="x1").exists()


def test_sign_up_and_join_is_rate_limited_like_sign_up(client, make_user, make_club, settings):
    owner = make_user("boss")
    club = make_club("牌友会", owner=owner)
    invite = services.invite_create(club=club, by=owner)
    settings.ACCOUNTS_RATES = {**settings.ACCOUNTS_RATES, "signup": {"window": 3600, "ip": 2}}
    url = reverse("clubs:join_signup", args=[invite.code])
    for _ in range(2):
        _post(client, url, username="bad name!")
    throttled = _post(client, url, username="fine", password1=GOOD, password2=GOOD)
    assert throttled.status_code == 429 and not User.objects.filter(username="fine").exists()
