"""Sign-up, sign-in/out, profile, password change, admin access."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

PASSWORD = "Xk7-paohuzi-pass"


def test_user_name_prefers_display_name(make_user):
    assert make_user("zhang").name == "zhang"
    assert make_user("li", display_name="小李").name == "小李"


def test_signup_logs_in_and_sets_display_name(client, db):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "wang", "display_name": "老王", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == reverse("clubs:list")
    user = get_user_model().objects.get(username="wang")
    assert user.display_name == "老王"
    assert client.get(reverse("accounts:profile")).status_code == 200


def test_signup_follows_safe_next_only(client, db):
    data = {"username": "a1", "password1": PASSWORD, "password2": PASSWORD, "next": "/clubs/join/ABCD2345/"}
    assert client.post(reverse("accounts:signup"), data)["Location"] == "/clubs/join/ABCD2345/"
    client.logout()
    data = {**data, "username": "a2", "next": "https://evil.example/"}
    assert client.post(reverse("accounts:signup"), data)["Location"] == reverse("clubs:list")


def test_signup_errors_rerender(client, db):
    response = client.post(reverse("accounts:signup"), {"username": "x", "password1": "a", "password2": "b"})
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="x").exists()


def test_login_and_logout(client, make_user):
    make_user("sun", password=PASSWORD)
    response = client.post(
        reverse("accounts:login"), {"username": "sun", "password": PASSWORD, "next": "/clubs/"}
    )
    assert response.status_code == 302 and response["Location"] == "/clubs/"
    assert client.get(reverse("accounts:logout")).status_code == 405  # POST only
    assert client.post(reverse("accounts:logout")).status_code == 302
    assert client.get(reverse("accounts:profile")).status_code == 302


def test_login_page_links_signup_with_next(client, db):
    html = client.get(reverse("accounts:login") + "?next=/clubs/join/ABC/").content.decode()
    assert reverse("accounts:signup") + "?next=/clubs/join/ABC/" in html.replace("%2F", "/")


@pytest.mark.parametrize("name", ["accounts:profile", "accounts:password_change"])
def test_anonymous_is_sent_to_login(client, db, name):
    response = client.get(reverse(name))
    assert response.status_code == 302 and response["Location"].startswith(reverse("accounts:login"))


def test_profile_edits_display_name(client, make_user):
    user = make_user()
    client.force_login(user)
    assert client.post(reverse("accounts:profile"), {"display_name": "阿龙"}).status_code == 302
    user.refresh_from_db()
    assert user.display_name == "阿龙"


def test_password_change(client, make_user):
    user = make_user("pc", password=PASSWORD)
    client.force_login(user)
    new = "Other-pass-8823"
    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response["Location"] == reverse("accounts:password_change_done")
    user.refresh_from_db()
    assert user.check_password(new)


@pytest.mark.parametrize(("kind", "expected"), [("anonymous", 302), ("user", 302), ("staff", 200)])
def test_admin_is_for_staff_only(client, make_user, kind, expected):
    if kind != "anonymous":
        client.force_login(make_user(is_staff=(kind == "staff"), is_superuser=(kind == "staff")))
    response = client.get("/admin/accounts/user/")
    assert response.status_code == expected
    if expected == 302:
        assert "/admin/login/" in response["Location"]


def test_pages_default_to_chinese_and_switch_to_english(client, db):
    assert "登录" in client.get(reverse("accounts:login")).content.decode()
    response = client.post(reverse("set_language"), {"language": "en", "next": "/accounts/login/"})
    assert response.status_code == 302
    assert "Sign in" in client.get(reverse("accounts:login")).content.decode()
