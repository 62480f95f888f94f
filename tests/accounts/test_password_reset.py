"""Password reset by e-mail (issue #41): mails through a real SMTP server on loopback, only to
verified addresses, the same answer whether the account exists, rate-limited; the link works once
and lifts the user's sign-in lockouts. The verified e-mail on the profile."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from apps.accounts import emails
from apps.accounts.models import SignInLockout
from tests.accounts.smtp_server import LocalSMTP, link_in, use_smtp

PASSWORD = "Xk7-paohuzi-pass"
NEW_PASSWORD = "Fresh-paohuzi-77"


@pytest.fixture
def smtp(settings):
    with LocalSMTP() as server:
        use_smtp(settings, server.url)
        settings.DEFAULT_FROM_EMAIL = "noreply@paohuzi.test"
        yield server


@pytest.fixture
def verified(make_user):
    return make_user("mailer", password=PASSWORD, email="mailer@example.com", email_verified=True)


def _ask(client, typed, ip="10.3.0.1", **extra):
    return client.post(reverse("accounts:password_reset"), {"email": typed}, REMOTE_ADDR=ip, **extra)


def _path(url: str) -> str:
    return urlsplit(url).path


def test_email_url_parsing():
    from config.settings import _email_settings

    smtp = _email_settings("smtp://us%40er:p%3Ass@mail.example.com:587/?tls=1")
    assert smtp["EMAIL_BACKEND"].endswith("smtp.EmailBackend")
    assert (smtp["EMAIL_HOST"], smtp["EMAIL_PORT"], smtp["EMAIL_HOST_USER"], smtp["EMAIL_HOST_PASSWORD"]) == (
        "mail.example.com", 587, "us@er", "p:ss")
    assert smtp["EMAIL_USE_TLS"] and not smtp["EMAIL_USE_SSL"]
    ssl = _email_settings("smtps://mail.example.com")
    assert ssl["EMAIL_USE_SSL"] and not ssl["EMAIL_USE_TLS"] and ssl["EMAIL_PORT"] == 465
    assert _email_settings("")["EMAIL_BACKEND"].endswith("console.EmailBackend")  # the embedded default
    with pytest.raises(Exception, match="EMAIL_URL"):
        _email_settings("ftp://x")


def test_reset_mail_reaches_smtp_and_its_link_sets_a_password_once(client, smtp, verified):
    # the user had locked his pair out with typos
    for _ in range(5):
        client.post(reverse("accounts:login"), {"username": "mailer", "password": "typo"}, REMOTE_ADDR="10.3.0.9")
    assert SignInLockout.objects.filter(scope="pair", ended_at=None).exists()

    answer = _ask(client, "mailer")
    assert answer.status_code == 302 and answer["Location"] == reverse("accounts:password_reset_done")
    mail = smtp.wait(1)
    assert mail["To"] == "mailer@example.com" and mail["X-Envelope-To"] == "mailer@example.com"
    assert mail["From"] == "noreply@paohuzi.test"
    assert "设置新密码" in mail["Subject"] or "new password" in mail["Subject"]
    link = _path(link_in(mail))
    assert link.startswith("/accounts/password/reset/")

    opened = client.get(link, REMOTE_ADDR="10.3.0.9")  # Django moves the token into the session
    assert opened.status_code == 302
    form_url = opened["Location"]
    assert client.get(form_url).context["validlink"]
    done = client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
                       REMOTE_ADDR="10.3.0.9")
    assert done.status_code == 302 and done["Location"] == reverse("accounts:password_reset_complete")
    verified.refresh_from_db()
    assert verified.check_password(NEW_PASSWORD)
    assert client.session["_auth_user_id"] == str(verified.pk)  # signed in
    assert not SignInLockout.objects.filter(ended_at=None).exists()  # his lockouts are lifted

    # the second use of the same link is refused
    client.logout()
    again = client.get(link)
    page = client.get(again["Location"]) if again.status_code == 302 else again
    assert not page.context["validlink"]
    refused = client.post(again.get("Location", link), {"new_password1": "Other-pass-99", "new_password2": "Other-pass-99"})
    assert refused.status_code == 200 and not refused.context["validlink"]
    verified.refresh_from_db()
    assert verified.check_password(NEW_PASSWORD)


def test_by_email_too(client, smtp, verified):
    assert _ask(client, "Mailer@Example.com").status_code == 302
    assert smtp.wait(1)["To"] == "mailer@example.com"


def test_same_answer_and_no_mail_for_unknown_or_unverified(client, smtp, make_user):
    make_user("unverified", password=PASSWORD, email="unv@example.com", email_verified=False)
    answers = [_ask(client, typed, ip=f"10.3.1.{i}") for i, typed in
               enumerate(["unverified", "unv@example.com", "nobody", "nobody@example.com"])]
    assert {(a.status_code, a["Location"]) for a in answers} == {(302, reverse("accounts:password_reset_done"))}
    done = client.get(reverse("accounts:password_reset_done"))
    assert "如果" in done.content.decode()  # "if an account matches": never says whether one does
    assert smtp.messages == []


def test_reset_requests_are_rate_limited_per_username_and_per_address(client, smtp, verified, settings):
    settings.ACCOUNTS_RATES = {**settings.ACCOUNTS_RATES, "password_reset": {"ident": 2, "ip": 4, "window": 3600}}
    assert [_ask(client, "mailer", ip=f"10.3.2.{i}").status_code for i in range(3)] == [302, 302, 429]
    assert len(smtp.messages) == 2
    # an unknown name is limited the same way (the answer does not tell the two apart)
    unknown = [_ask(client, "ghost", ip=f"10.3.3.{i}").status_code for i in range(3)]
    assert unknown == [302, 302, 429]
    # per address, whatever is typed
    per_ip = [_ask(client, f"name{i}", ip="10.3.4.1").status_code for i in range(5)]
    assert per_ip == [302, 302, 302, 302, 429]
    throttled = _ask(client, "someone", ip="10.3.4.1")
    assert int(throttled["Retry-After"]) > 0 and "尝试次数过多" in throttled.content.decode()


def test_sign_in_page_links_to_reset(client, db):
    html = client.get(reverse("accounts:login")).content.decode()
    assert reverse("accounts:password_reset") in html and "忘记密码？" in html


# --- the verified e-mail on the profile --------------------------------------------------------


def test_email_is_stored_only_when_its_link_is_followed(client, smtp, make_user):
    user = make_user("newmail", password=PASSWORD)
    client.force_login(user)
    answer = client.post(reverse("accounts:email_change"), {"e-email": "me@example.com"}, REMOTE_ADDR="10.3.5.1")
    assert answer.status_code == 302
    user.refresh_from_db()
    assert (user.email, user.email_verified) == ("", False)  # not yet
    mail = smtp.wait(1)
    assert mail["To"] == "me@example.com"
    link = _path(link_in(mail))
    client.logout()
    # a reset now mails nobody: the address is not verified yet
    _ask(client, "newmail")
    assert len(smtp.messages) == 1
    assert client.get(link).status_code == 302
    user.refresh_from_db()
    assert (user.email, user.email_verified) == ("me@example.com", True)
    assert client.get(link).status_code == 400  # spent: it works once
    # ... and does nothing after the e-mail was removed either
    emails.clear(user)
    assert client.get(link).status_code == 400
    user.refresh_from_db()
    assert user.email == ""


def test_email_link_expires_and_cannot_be_forged(client, make_user, monkeypatch):
    user = make_user("oldlink", password=PASSWORD)
    token = emails.make_token(user, "old@example.com")
    real = signing.TimestampSigner.timestamp

    monkeypatch.setattr(signing.TimestampSigner, "timestamp",
                        lambda self: signing.b62_encode(int(timezone.now().timestamp() - 3 * 86400)))
    stale = emails.make_token(user, "old@example.com")
    monkeypatch.setattr(signing.TimestampSigner, "timestamp", real)
    assert client.get(reverse("accounts:email_verify", args=[stale])).status_code == 400
    assert client.get(reverse("accounts:email_verify", args=[token[:-2] + "xx"])).status_code == 400
    user.refresh_from_db()
    assert not user.email_verified
    assert client.get(reverse("accounts:email_verify", args=[token])).status_code == 302
    user.refresh_from_db()
    assert user.email_verified and user.email == "old@example.com"


def test_profile_shows_the_email_form_in_chinese(client, make_user):
    user = make_user("prof", password=PASSWORD)
    client.force_login(user)
    html = client.get(reverse("accounts:profile"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "邮箱" in html and "发送确认链接" in html


def test_the_confirmed_email_is_kept_until_emptied(client, smtp, verified):
    client.force_login(verified)
    profile = client.get(reverse("accounts:profile")).content.decode()
    assert 'value="mailer@example.com"' in profile  # the form shows the confirmed address
    client.post(reverse("accounts:email_change"), {"e-email": "mailer@example.com"}, REMOTE_ADDR="10.3.6.1")
    assert smtp.messages == []  # already confirmed: nothing to mail
    client.post(reverse("accounts:email_change"), {"e-email": "other@example.com"}, REMOTE_ADDR="10.3.6.1")
    assert smtp.wait(1)["To"] == "other@example.com"
    verified.refresh_from_db()
    assert (verified.email, verified.email_verified) == ("mailer@example.com", True)  # until confirmed
    client.post(reverse("accounts:email_change"), {"e-email": ""}, REMOTE_ADDR="10.3.6.1")
    verified.refresh_from_db()
    assert (verified.email, verified.email_verified) == ("", False)


def test_email_verification_mails_are_rate_limited(client, smtp, make_user, settings):
    settings.ACCOUNTS_RATES = {**settings.ACCOUNTS_RATES, "email_verify": {"user": 2, "ip": 20, "window": 3600}}
    user = make_user("spammy", password=PASSWORD)
    client.force_login(user)
    codes = [client.post(reverse("accounts:email_change"), {"e-email": f"x{i}@example.com"},
                         REMOTE_ADDR="10.3.7.1").status_code for i in range(3)]
    assert codes == [302, 302, 429] and len(smtp.messages) == 2
