"""Browser test: an owner creates a club and an invite; a newcomer joins through the link.

Phone viewport (390x844), Debian chromium through Playwright's sync API. Screenshots land in
test-output/ for a human look. Skips (never errors) when chromium or Playwright is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.e2e.browser import open_menu

# Playwright's sync API runs an event loop in this thread; Django's ORM refuses that by default.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

OUT = Path(__file__).resolve().parents[2] / "test-output"
PASSWORD = "Paohuzi-e2e-2024"

pytestmark = pytest.mark.e2e


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, locale="zh-CN")
    context.set_default_timeout(15000)
    yield context.new_page()
    context.close()


def shot(page, name: str) -> None:
    page.screenshot(path=str(OUT / f"onboarding_{name}.png"), full_page=True)


def sign_up(page, base: str, username: str, display_name: str) -> None:
    page.fill("#id_username", username)
    page.fill("#id_display_name", display_name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("button[type=submit].btn-primary")


def sign_out(page) -> None:
    open_menu(page)
    page.click("header form[action$='/logout/'] button")


def test_club_onboarding(page, live_server, transactional_db):
    base = live_server.url

    # The owner signs up and creates a club.
    page.goto(f"{base}/")
    shot(page, "01_home")
    page.click("a.btn-primary")  # 注册
    sign_up(page, base, "owner1", "老王")
    page.wait_for_url(re.compile(r"/clubs/$"))
    page.click("a[href$='/clubs/new/']")
    page.fill("#id_name", "长沙跑胡子俱乐部")
    page.click("button[type=submit].btn-primary")
    page.wait_for_url(re.compile(r"/clubs/\d+/$"))
    assert page.locator("h1").inner_text() == "长沙跑胡子俱乐部"
    club_url = page.url
    shot(page, "02_club")

    # An invite.
    page.click("nav.tabs a[href$='/invites/']")
    page.click("form.form button[type=submit]")
    link = page.locator("a.invite-link").first.get_attribute("href")
    assert link and "/clubs/join/" in link
    shot(page, "03_invites")
    sign_out(page)

    # The newcomer opens the link signed out: the club and who invites, then sign-up, back to the invite.
    page.goto(f"{base}{link}")
    assert page.locator("h1").inner_text() == "长沙跑胡子俱乐部"
    assert "老王 邀请你加入这个俱乐部" in page.locator("main").inner_text()
    shot(page, "04_invite_signed_out")
    page.click("main a:has-text('注册并加入')")
    shot(page, "05_join")
    sign_up(page, base, "guest1", "小张")  # the join request goes with the account (#46)
    page.wait_for_url(re.compile(r"/clubs/$"))
    assert "待审核" in page.locator("main").inner_text()
    shot(page, "06_my_requests")
    sign_out(page)

    # The owner approves.
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "owner1")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit].btn-primary")
    page.goto(club_url)
    page.click("nav.tabs a[href$='/requests/']")
    assert "小张" in page.locator(".join-request").first.inner_text()
    shot(page, "07_requests")
    page.click(".join-request form[action$='/approve/'] button")
    page.wait_for_selector(".msg")
    assert "小张" in page.locator(".msg").inner_text()

    # The club page lists him; the audit log shows the approval.
    page.goto(club_url)
    assert "小张" in page.locator("#members").inner_text()
    page.click("nav.tabs a[href$='/audit/']")
    entries = page.locator(".audit-entry").all_inner_texts()
    assert any("老王 批准 小张 加入俱乐部。" in e for e in entries), entries
    shot(page, "08_audit")

    # The same page in English.
    open_menu(page)
    page.click("header .lang-switch button")
    page.wait_for_selector(".audit-entry >> text=let 小张 join the club")
    shot(page, "09_audit_en")
    open_menu(page)
    page.click("header .lang-switch button")  # back to Chinese
    page.wait_for_selector(".audit-entry >> text=加入俱乐部")

    # The newcomer now sees the club among his clubs.
    sign_out(page)
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "guest1")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit].btn-primary")
    page.wait_for_url(re.compile(r"/clubs/$"))
    assert "长沙跑胡子俱乐部" in page.locator("main").inner_text()
    assert "已通过" in page.locator("main").inner_text()
    shot(page, "10_member_clubs")
