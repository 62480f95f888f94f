"""Browser test (issue #41): nobody is locked out of his own account for good.

Phone viewport (390x844), Debian chromium through Playwright's sync API, the live server in this
process and a real SMTP server (aiosmtpd) on loopback:

1. a player confirms an e-mail on his profile, forgets his password, asks for a reset from the
   sign-in page (忘记密码？), follows the mailed link and sets a new one;
2. a club's owner makes a one-time password link for a member who has no e-mail, from the club's
   member list; the member follows it and sets a new password; the link then no longer works.

Screenshots land in /tmp/pz_reset_*.png for a human look. Skips when chromium is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.accounts.smtp_server import LocalSMTP, link_in, use_smtp
from tests.e2e.browser import ALLOWED, PROBE

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

OUT = Path("/tmp")
PASSWORD = "Paohuzi-e2e-2024"
NEW_PASSWORD = "Fresh-paohuzi-2025"

pytestmark = pytest.mark.e2e


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, locale="zh-CN")
    context.set_default_timeout(15000)
    yield context
    context.close()


@pytest.fixture
def smtp(settings):
    with LocalSMTP() as server:
        use_smtp(settings, server.url)
        settings.DEFAULT_FROM_EMAIL = "noreply@paohuzi.test"
        yield server


def shot(page, name: str) -> None:
    page.screenshot(path=str(OUT / f"pz_reset_{name}.png"), full_page=True)


def no_english(page, *allowed: str) -> None:
    """Every word of the page's main part is Chinese but the names, addresses and links given; and
    the page fits the phone: no sideways scrolling, every tap target big enough (the phone layout
    walk's probe, tests/e2e/browser.py)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")
    assert page.evaluate(PROBE, ALLOWED) == []
    text = page.locator("main").inner_text()
    for word in allowed:
        text = text.replace(word, "")
    text = re.sub(r"https?://\S+", "", text)
    leftover = re.findall(r"[A-Za-z]{2,}", text)
    assert not leftover, leftover


def sign_in(page, base, username, password):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit].btn-primary")


def sign_out(page) -> None:
    toggle = page.locator("header .menu-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    page.click("header form[action$='/logout/'] button")


def test_reset_by_email(context, live_server, smtp, make_user):
    base = live_server.url
    user = make_user("laowang", password=PASSWORD, display_name="老王")
    page = context.new_page()

    # He confirms an e-mail on his profile.
    sign_in(page, base, "laowang", PASSWORD)
    page.wait_for_url(re.compile(r"/clubs/$"))
    page.goto(f"{base}/accounts/profile/")
    page.fill("#id_e-email", "laowang@example.com")
    shot(page, "01_profile_email")
    no_english(page, "laowang@example.com", "laowang")
    page.click("form[action$='/accounts/email/'] button[type=submit]")
    page.wait_for_selector(".msg")
    assert "laowang@example.com" in page.locator(".msg").inner_text()
    verify = urlsplit(link_in(smtp.wait(1))).path
    page.goto(f"{base}{verify}")
    page.wait_for_url(re.compile(r"/accounts/profile/$"))
    assert "已验证" in page.locator("main").inner_text()
    shot(page, "02_profile_confirmed")
    no_english(page, "laowang@example.com", "laowang")
    sign_out(page)

    # He forgot his password: from the sign-in page.
    page.goto(f"{base}/accounts/login/")
    shot(page, "03_login_forgot_link")
    assert "忘记密码？" in page.locator("main").inner_text()
    page.click("main a[href$='/accounts/password/reset/']")
    page.wait_for_url(re.compile(r"/accounts/password/reset/$"))
    shot(page, "04_reset_form")
    no_english(page)
    page.fill("#id_email", "laowang")
    page.click("button[type=submit].btn-primary")
    page.wait_for_url(re.compile(r"/accounts/password/reset/sent/$"))
    assert "请查收邮件" in page.locator("h1").inner_text()
    shot(page, "05_reset_sent")
    no_english(page)

    mail = smtp.wait(2)
    assert mail["To"] == "laowang@example.com" and "设置新密码" in mail["Subject"]
    page.goto(link_in(mail))
    page.wait_for_url(re.compile(r"/set-password/$"))
    assert page.locator("h1").inner_text() == "设置新密码"
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    shot(page, "06_reset_new_password")
    no_english(page)
    page.click("button[type=submit].btn-primary")
    page.wait_for_url(re.compile(r"/accounts/password/reset/complete/$"))
    assert "你已登录" in page.locator("main").inner_text()
    shot(page, "07_reset_done")
    no_english(page)
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)

    # The mailed link works once.
    sign_out(page)
    page.goto(link_in(mail))
    assert "已失效" in page.locator("h1").inner_text()
    shot(page, "08_reset_link_spent")
    no_english(page)


def test_owner_made_link(context, browser, live_server, make_user, make_club):
    base = live_server.url
    boss = make_user("boss", password=PASSWORD, display_name="老板")
    member = make_user("xiaoli", password=PASSWORD, display_name="小李")
    club = make_club("长沙跑胡子俱乐部", owner=boss, members=[member])
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    owner = context.new_page()
    owner.on("dialog", lambda dialog: dialog.accept())

    sign_in(owner, base, "boss", PASSWORD)
    owner.wait_for_url(re.compile(r"/clubs/$"))
    owner.goto(f"{base}/clubs/{club.pk}/")
    row = owner.locator("#members li.member", has_text="小李")
    shot(owner, "11_club_members")
    row.locator("form[action$='/reset-link/'] button").click()
    owner.wait_for_selector(".reset-link code")
    link = owner.locator(".reset-link code").inner_text().strip()
    assert "/accounts/password/link/" in link
    owner.click("button[data-copy]")
    owner.wait_for_selector("button[data-copy][data-copied]")
    assert owner.evaluate("navigator.clipboard.readText()") == link
    shot(owner, "12_link_made")
    no_english(owner, "小李")

    # The member, on his own phone, follows it.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, locale="zh-CN")
    try:
        page = phone.new_page()
        page.goto(link)
        page.wait_for_url(re.compile(r"/accounts/password/link/set/$"))
        page.fill("#id_new_password1", NEW_PASSWORD)
        page.fill("#id_new_password2", NEW_PASSWORD)
        shot(page, "13_member_sets_password")
        no_english(page, "xiaoli")
        page.click("button[type=submit].btn-primary")
        page.wait_for_url(re.compile(r"/clubs/$"))
        assert "新密码已设置" in page.locator(".msg").inner_text()
        shot(page, "14_member_signed_in")
        member.refresh_from_db()
        assert member.check_password(NEW_PASSWORD)
        sign_out(page)
        page.goto(link)
        assert "已失效" in page.locator("h1").inner_text()
        shot(page, "15_link_spent")
        no_english(page)
    finally:
        phone.close()

    # The owner's audit log says so.
    owner.goto(f"{base}/clubs/{club.pk}/audit/")
    entries = owner.locator(".audit-entry").all_inner_texts()
    assert any("小李" in e and "重设密码链接" in e for e in entries), entries
    shot(owner, "16_audit")
