"""Sign-in throttling (django-axes + apps.accounts.signin), sign-up and password-change rate limits."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone, translation

from apps.accounts import signin
from apps.accounts.models import SignInLockout

PASSWORD = "Xk7-paohuzi-pass"
LIMIT = 5  # failures of one username from one address
ADDRESS_LIMIT = 8  # failures from one address, any usernames
COOL_OFF = 300


@pytest.fixture(autouse=True)
def _throttle(settings):
    settings.SIGNIN_FAILURE_LIMIT = settings.AXES_FAILURE_LIMIT = LIMIT
    settings.SIGNIN_ADDRESS_FAILURE_LIMIT = ADDRESS_LIMIT
    settings.SIGNIN_COOLOFF_SECONDS = COOL_OFF
    settings.SIGNIN_COOLOFF_MAX_SECONDS = 3600
    settings.BEHIND_TLS_PROXY = False



def _sign_in(client, username, password, ip="10.0.0.1", **extra):
    return client.post(reverse("accounts:login"), {"username": username, "password": password},
                       REMOTE_ADDR=ip, **extra)


def _fail(client, username, times, ip="10.0.0.1", **extra):
    return [_sign_in(client, username, "wrong-password", ip, **extra) for _ in range(times)]


def test_nth_wrong_password_is_locked_out_and_right_password_refused_until_cool_off_ends(client, make_user, later):
    user = make_user("demo_a", password=PASSWORD)
    answers = _fail(client, "demo_a", LIMIT)
    assert [r.status_code for r in answers[:-1]] == [200] * (LIMIT - 1)  # ordinary failed sign-ins
    locked = answers[-1]
    assert locked.status_code == 429 and 0 < int(locked["Retry-After"]) <= COOL_OFF
    assert "Too many failed sign-ins" in locked.content.decode() or "登录失败次数过多" in locked.content.decode()

    right = _sign_in(client, "demo_a", PASSWORD)
    assert right.status_code == 429 and "_auth_user_id" not in client.session
    later(COOL_OFF - 30)
    assert _sign_in(client, "demo_a", PASSWORD).status_code == 429  # tries while locked do not help
    later(31)
    done = _sign_in(client, "demo_a", PASSWORD)
    assert done.status_code == 302 and client.session["_auth_user_id"] == str(user.pk)


def test_lockout_answer_does_not_tell_whether_the_username_exists(client, make_user):
    make_user("real_one", password=PASSWORD)
    real = _fail(client, "real_one", LIMIT, ip="10.0.1.1")
    ghost = _fail(client, "nobody_here", LIMIT, ip="10.0.1.2")
    assert [r.status_code for r in real] == [r.status_code for r in ghost]
    # the pages differ only in the username typed back and the CSRF token
    token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')

    def page(response, name):
        return token.sub("", response.content.decode().replace(name, "X"))

    assert page(real[-1], "real_one") == page(ghost[-1], "nobody_here")  # the lockout answer
    assert page(real[1], "real_one") == page(ghost[1], "nobody_here")  # an ordinary failure


def test_another_address_is_limited_separately(client, make_user):
    make_user("li", password=PASSWORD)
    make_user("wu", password=PASSWORD)
    for i in range(ADDRESS_LIMIT):  # one address tries many usernames: the address is locked
        _sign_in(client, f"guess{i}", "x", ip="10.0.2.1")
    assert _sign_in(client, "li", PASSWORD, ip="10.0.2.1").status_code == 429
    assert _sign_in(client, "li", PASSWORD, ip="10.0.2.2").status_code == 302  # another address: its own count
    client.logout()
    _fail(client, "wu", LIMIT - 1, ip="10.0.2.3")
    assert _sign_in(client, "wu", PASSWORD, ip="10.0.2.3").status_code == 302


def test_a_username_alone_is_not_locked_by_failures_from_other_addresses(client, make_user):
    """Failures lock the (username, address) pair, never the username for every address."""
    make_user("zhou", password=PASSWORD)
    for i in range(LIMIT):
        _sign_in(client, "zhou", "x", ip=f"10.0.3.{i + 1}")
    assert _sign_in(client, "zhou", PASSWORD, ip="10.0.3.99").status_code == 302
    assert not SignInLockout.objects.exists()


def test_spoofed_forwarded_header_does_not_help_when_not_behind_a_proxy(client, make_user):
    make_user("qian", password=PASSWORD)
    for i in range(ADDRESS_LIMIT):
        _sign_in(client, f"spray{i}", "x", ip="10.0.4.1", HTTP_X_FORWARDED_FOR=f"192.0.2.{i + 1}")
    answer = _sign_in(client, "qian", PASSWORD, ip="10.0.4.1", HTTP_X_FORWARDED_FOR="192.0.2.200")
    assert answer.status_code == 429
    assert SignInLockout.objects.get(scope="address").key == "10.0.4.1"


def test_behind_the_proxy_the_forwarded_address_counts(client, make_user, settings):
    settings.BEHIND_TLS_PROXY = True
    settings.SECURE_SSL_REDIRECT = False  # the test client speaks http; the address is what matters
    make_user("feng", password=PASSWORD)
    for i in range(ADDRESS_LIMIT):
        _sign_in(client, f"spray{i}", "x", ip="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert SignInLockout.objects.get(scope="address").key == "198.51.100.7"
    # another client behind the same proxy is not locked out with it
    assert _sign_in(client, "feng", PASSWORD, ip="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.8").status_code == 302


@pytest.mark.parametrize(("lang", "words"), [("zh-hans", "登录失败次数过多"), ("en", "Too many failed sign-ins")])
def test_lockout_message_in_the_users_language_says_when(client, db, lang, words, later):
    client.cookies["django_language"] = lang
    answer = _fail(client, "sun", LIMIT, HTTP_ACCEPT_LANGUAGE=lang)[-1]
    html = answer.content.decode()
    until = timezone.localtime(SignInLockout.objects.get(scope="pair").until)
    assert answer.status_code == 429 and words in html
    same_day = until.date() == timezone.localtime().date()
    assert (until.strftime("%H:%M") if same_day else str(until.year)) in html  # the day too after midnight
    assert ("5 分钟" if lang == "zh-hans" else "5 minutes") in html


def test_lockout_message_names_the_day_when_it_ends_another_day():
    now = timezone.localtime().replace(hour=23, minute=58)
    with translation.override("en"):
        text = signin.lockout_message(now + timedelta(minutes=10), now=now)
    assert "10 minutes" in text and str((now + timedelta(minutes=10)).year) in text


def test_lockout_and_its_end_are_in_the_audit_trail(client, db, later):
    _fail(client, "zhao", LIMIT, ip="10.0.5.1")
    _fail(client, "zhao", 2, ip="10.0.5.1")  # refused while locked: still one lockout
    _fail(client, "zhu", ADDRESS_LIMIT - LIMIT, ip="10.0.5.1")  # the address reaches its own limit
    row = SignInLockout.objects.get(scope="pair", key="zhao 10.0.5.1")
    assert row.ended_at is None and row.username == "zhao" and row.ip == "10.0.5.1" and row.cool_off_seconds == COOL_OFF
    assert abs((row.until - row.started_at).total_seconds() - COOL_OFF) < 5
    assert SignInLockout.objects.get(scope="address", key="10.0.5.1").ended_at is None
    later(COOL_OFF + 1)
    from apps.accounts.tasks import close_ended_lockouts

    assert close_ended_lockouts() == 2
    row.refresh_from_db()
    assert row.end == "expired" and row.ended_at == row.until


def test_cool_off_grows_with_each_lockout(client, db, later):
    lengths = []
    for _ in range(3):
        _fail(client, "kong", LIMIT, ip="10.0.6.1")
        row = SignInLockout.objects.filter(scope="pair", key="kong 10.0.6.1").first()
        lengths.append(row.cool_off_seconds)
        later(row.cool_off_seconds + 1)
    assert lengths == [COOL_OFF, 2 * COOL_OFF, 4 * COOL_OFF]
    assert signin.cool_off_for("kong", "10.0.6.1").total_seconds() == 8 * COOL_OFF
    assert signin.cool_off_for("kong", "10.0.6.2").total_seconds() == COOL_OFF  # another address: its own
    later(24 * 3600)  # a day later it starts small again
    assert signin.cool_off_for("kong", "10.0.6.1").total_seconds() == COOL_OFF


def test_cool_off_is_capped(db, settings):
    settings.SIGNIN_COOLOFF_MAX_SECONDS = 1000
    now = timezone.now()
    for i in range(5):
        SignInLockout.objects.create(scope="address", key="10.0.6.9", started_at=now - timedelta(minutes=10 + i),
                                     until=now - timedelta(minutes=1), cool_off_seconds=1,
                                     ended_at=now - timedelta(minutes=1), end="expired")
    assert signin.cool_off_for("cap", "10.0.6.9").total_seconds() == 1000


def test_unlock_command_lifts_the_lockout_and_records_it(client, make_user):
    make_user("chen", password=PASSWORD)
    _fail(client, "chen", LIMIT, ip="10.0.7.1")
    _fail(client, "chu", ADDRESS_LIMIT - LIMIT, ip="10.0.7.1")
    assert _sign_in(client, "chen", PASSWORD, ip="10.0.7.1").status_code == 429
    call_command("unlock_signin", "--username", "chen", "--address", "10.0.7.1")
    assert _sign_in(client, "chen", PASSWORD, ip="10.0.7.1").status_code == 302
    rows = SignInLockout.objects.filter(end="unlocked")
    # the pair and the address, and the mark the username's daily ceiling counts from
    assert {(r.scope, r.key) for r in rows} == {("pair", "chen 10.0.7.1"), ("address", "10.0.7.1"),
                                                ("username", "chen")}
    assert all(r.ended_at is not None for r in rows)
    # the unlock starts the growth afresh
    assert signin.cool_off_for("chen", "10.0.7.1").total_seconds() == COOL_OFF


def test_unlock_command_refuses_bad_input(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("unlock_signin")
    with pytest.raises(CommandError):
        call_command("unlock_signin", "--address", "not-an-ip")


def test_admin_sign_in_is_throttled_too(client, make_user):
    make_user("boss", password=PASSWORD, is_staff=True, is_superuser=True)
    for _ in range(LIMIT):
        client.post("/admin/login/", {"username": "boss", "password": "x"}, REMOTE_ADDR="10.0.8.1")
    answer = client.post("/admin/login/", {"username": "boss", "password": PASSWORD}, REMOTE_ADDR="10.0.8.1")
    assert answer.status_code == 429 and "_auth_user_id" not in client.session


def test_success_does_not_reset_an_address_count(client, make_user):
    """A guesser with an account of its own cannot clear its address's failures by signing in."""
    make_user("own", password=PASSWORD)
    for i in range(ADDRESS_LIMIT - 1):
        _sign_in(client, f"victim{i}", "x", ip="10.0.9.1")
    assert _sign_in(client, "own", PASSWORD, ip="10.0.9.1").status_code == 302
    client.logout()
    assert _sign_in(client, "victim9", "x", ip="10.0.9.1").status_code == 429


# --- sign-up and password change -------------------------------------------------------------


def test_signup_is_rate_limited_per_address(client, db, settings):
    settings.ACCOUNTS_RATES = {**settings.ACCOUNTS_RATES, "signup": {"ip": 2, "window": 3600}}
    from django.contrib.auth import get_user_model

    for name in ("s1", "s2"):
        client.post(reverse("accounts:signup"), {"username": name, "password1": PASSWORD, "password2": PASSWORD},
                    REMOTE_ADDR="10.1.0.1")
        client.logout()
    answer = client.post(reverse("accounts:signup"), {"username": "s3", "password1": PASSWORD, "password2": PASSWORD},
                         REMOTE_ADDR="10.1.0.1")
    assert answer.status_code == 429 and int(answer["Retry-After"]) > 0
    assert not get_user_model().objects.filter(username="s3").exists()
    with translation.override("en"):
        assert "Too many attempts" in client.post(reverse("accounts:signup"), {"username": "s4"},
                                                  REMOTE_ADDR="10.1.0.1", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    ok = client.post(reverse("accounts:signup"), {"username": "s5", "password1": PASSWORD, "password2": PASSWORD},
                     REMOTE_ADDR="10.1.0.2")
    assert ok.status_code == 302


def test_password_change_is_rate_limited_per_user(client, make_user, settings):
    settings.ACCOUNTS_RATES = {**settings.ACCOUNTS_RATES, "password_change": {"user": 3, "ip": 100, "window": 900}}
    user = make_user("he", password=PASSWORD)
    client.force_login(user)
    url = reverse("accounts:password_change")
    for i in range(3):
        assert client.post(url, {"old_password": f"guess{i}", "new_password1": "N3w-pass-word",
                                 "new_password2": "N3w-pass-word"}, REMOTE_ADDR=f"10.2.0.{i}").status_code == 200
    answer = client.post(url, {"old_password": PASSWORD, "new_password1": "N3w-pass-word",
                               "new_password2": "N3w-pass-word"}, REMOTE_ADDR="10.2.0.9")
    assert answer.status_code == 429
    user.refresh_from_db()
    assert user.check_password(PASSWORD)  # nothing changed
    zh = client.post(url, {}, REMOTE_ADDR="10.2.0.9", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "尝试次数过多" in zh
