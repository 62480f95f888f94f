"""Browser test of the audit pages: the owner reads the collusion report and a pair's hands; a
player files a dispute, the owner reviews and resolves it with an adjustment, the player sees the
outcome. Phone (390×844) first, then a desktop look; screenshots in test-output/audit_*.png.
Skips (never errors) when chromium or Playwright is missing."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from apps.accounts.services import address_seen
from apps.ledgers import services as ledger_services
from apps.ledgers.models import Transaction
from apps.replays.audit.models import Dispute
from apps.replays.audit.tasks import record_hand
from tests.replays.audit.helpers import TableWriter, days_ago, feeder, honest, taker

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

OUT = Path(__file__).resolve().parents[3] / "test-output"
PASSWORD = "Paohuzi-e2e-2024"

pytestmark = pytest.mark.e2e


def new_page(browser, width=390, height=844):
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=2,
                                  locale="zh-CN")
    context.set_default_timeout(15000)
    return context.new_page()


def sign_in(page, base, username):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/clubs/"))


def shot(page, name, full_page=True):
    page.screenshot(path=str(OUT / f"audit_{name}.png"), full_page=full_page)


def test_audit_pages_in_a_browser(browser, live_server, transactional_db, make_user, make_club):
    owner = make_user("owner_e2e", password=PASSWORD, display_name="老王")
    a = make_user("col_a", password=PASSWORD, display_name="阿强")
    b = make_user("col_b", password=PASSWORD, display_name="阿伟")
    c, d, e = (make_user(n, password=PASSWORD, display_name=dn) for n, dn in
               (("hon_c", "小陈"), ("hon_d", "小丁"), ("hon_e", "小鹅")))
    club = make_club("长沙跑胡子俱乐部", owner=owner, members=[a, b, c, d, e])
    for user in (a, b):
        address_seen(user=user, ip="10.0.0.7")
    rng = random.Random(5)
    hands = []
    for t in range(8):
        writer = TableWriter(club, [a, b, (c, d, e)[t % 3]], start=days_ago(t % 4), join_gaps=[0, 3, 400])
        hands += [writer.play([feeder(1), taker(0), honest], f"e2e-{t}-{n}", rng) for n in range(8)]
    writer = TableWriter(club, [c, d, e], start=days_ago(1), join_gaps=[0, 300, 600])
    hands += [writer.play([honest] * 3, f"e2e-h-{n}", rng) for n in range(8)]
    for hand in hands:
        record_hand.delay(hand.pk)
    base = live_server.url

    page = new_page(browser)
    sign_in(page, base, "owner_e2e")
    page.goto(f"{base}/audit/clubs/{club.pk}/collusion/")
    first = page.locator("tr.pair").first
    assert "阿强" in first.inner_text() and "阿伟" in first.inner_text()
    assert "flagged" in (first.get_attribute("class") or "")
    assert "合谋报告" in page.content()
    shot(page, "01_collusion_phone")
    shot(page, "01_collusion_phone_top", full_page=False)
    first.locator("a").first.click()
    page.wait_for_url(re.compile(r"/collusion/\d+/\d+/"))
    assert page.locator("tr[data-hand]").count() == 50  # 64 hands together, first page
    shot(page, "02_pair_phone")
    shot(page, "02_pair_phone_top", full_page=False)
    desktop = new_page(browser, 1280, 900)
    sign_in(desktop, base, "owner_e2e")
    desktop.goto(f"{base}/audit/clubs/{club.pk}/collusion/")
    shot(desktop, "03_collusion_desktop")
    shot(desktop, "03_collusion_desktop_top", full_page=False)

    # A player files a dispute on a hand he played.
    player_page = new_page(browser)
    sign_in(player_page, base, "hon_c")
    hand = next(h for h in hands if h.players["2"] == c.pk)
    assert ledger_services.settle_hand(hand_id=hand.pk).status == "posted"  # its ledger lines
    player_page.goto(f"{base}/audit/disputes/new/{hand.pk}/")
    player_page.click("main button[type=submit]")  # empty: the browser's own check stops it
    assert not Dispute.objects.exists()
    player_page.check("input[name=kind][value=score]")  # 算分错误
    player_page.fill("#id_reason", "这局的胡息算错了")
    shot(player_page, "04_dispute_new_phone")
    player_page.click("main button[type=submit]")
    player_page.wait_for_url(re.compile(r"/audit/disputes/$"))
    assert "这局的胡息算错了" in player_page.content()
    dispute = Dispute.objects.get()

    # The owner handles it: review, then resolve with a +5 adjustment.
    page.goto(f"{base}/audit/clubs/{club.pk}/disputes/")
    assert page.locator(f"[data-dispute='{dispute.pk}']").count() == 1
    lines = Transaction.objects.get(idempotency_key=f"hand:{hand.pk}").entries.count()
    assert lines >= 3 and page.locator(f"[data-dispute='{dispute.pk}'] .ledger-lines tbody tr").count() == lines
    shot(page, "05_queue_phone")
    page.click(f"[data-dispute='{dispute.pk}'] a.btn")
    page.click("text=开始审核")
    page.wait_for_load_state()
    page.fill("#id_outcome", "已核实，补 5 分")
    page.select_option("#id_member", str(c.pk))
    page.fill("#id_amount", "5")
    shot(page, "06_resolve_phone")
    page.click("form[action$='/resolve/'] button[type=submit]")
    page.wait_for_load_state()
    assert page.locator("[data-testid=outcome]").inner_text() == "已核实，补 5 分"
    shot(page, "07_resolved_phone")
    assert Transaction.objects.filter(idempotency_key=f"dispute:{dispute.pk}").count() == 1

    player_page.goto(f"{base}/audit/disputes/")
    assert player_page.locator("[data-testid=outcome]").inner_text() == "已核实，补 5 分"
    shot(player_page, "08_my_disputes_phone")


def test_a_dispute_points_at_a_marked_step_and_the_judge_sees_a_badge(browser, live_server, transactional_db,
                                                                        make_user, make_club):
    """Issue #46, on a phone: the replay marks a time-out's automatic action; 对这一步申诉 carries
    the step on screen into the form; the owner, who did not play, sees the open dispute counted
    on the club's tab bar and the step it points at."""
    from django.urls import reverse

    from apps.tables.models import TableEvent
    from apps.tables.storage.eventlog import hand_events

    owner = make_user("judge_owner", password=PASSWORD, display_name="老王")
    c, d, e = (make_user(n, password=PASSWORD, display_name=dn) for n, dn in
               (("step_c", "小陈"), ("step_d", "小丁"), ("step_e", "小鹅")))
    club = make_club("申诉测试", owner=owner, members=[c, d, e])
    hand = TableWriter(club, [c, d, e], start=days_ago(1)).play([honest] * 3, "e2e-step", random.Random(9))
    first = hand_events(hand, ("action",))[0]
    TableEvent.objects.filter(table=hand.table, seq=first.seq).update(payload={**first.payload, "by": "timeout"})
    base = live_server.url

    player = new_page(browser)
    sign_in(player, base, "step_c")
    player.goto(base + reverse("replays:hand", args=[hand.pk]))
    marked = player.locator("#moves .move").nth(1)
    assert "超时，系统自动操作" in marked.inner_text()
    marked.locator("button").click()
    assert "超时，系统自动操作" in player.locator(".replay-felt .banner").inner_text()
    shot(player, "09_replay_auto_mark_phone", full_page=False)
    player.locator("#moves .move").nth(2).locator("button").click()
    player.click("#dispute-link")
    player.wait_for_url(re.compile(r"/audit/disputes/new/\d+/\?step=2$"))
    assert player.input_value("#id_step") == "2"
    player.check("input[name=kind][value=timeout]")
    player.fill("#id_reason", "我没有超时，是系统替我出的牌")
    shot(player, "10_dispute_with_step_phone")
    player.click("main button[type=submit]")
    player.wait_for_url(re.compile(r"/audit/disputes/$"))
    dispute = Dispute.objects.get()
    assert (dispute.kind, dispute.step) == ("timeout", 2)

    judge = new_page(browser)
    sign_in(judge, base, "judge_owner")
    judge.goto(base + reverse("clubs:detail", args=[club.pk]))
    assert judge.locator("[data-testid=open-disputes]").inner_text() == "1"
    judge.click(".club-tabs a[href$='/disputes/']")
    judge.locator(f"[data-dispute='{dispute.pk}'] a.btn").click()
    assert judge.locator("[data-testid=kind]").inner_text() == "超时"
    assert judge.locator("[data-testid=step]").inner_text() == "第 2 步"
    shot(judge, "11_dispute_detail_phone")
