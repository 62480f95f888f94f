"""Browser test: ledger lines and the audit log read as words on a phone (390x844) and a desktop, in
zh-hans: 报名费 / 退还报名费（退赛）with the match's name, 上分/下分 with the reason, 申诉调整, a hand
with its table and number; the audit log as sentences with local times. Screenshots in test-output/."""

from __future__ import annotations

import os
import random
import re
from datetime import timedelta
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

OUT = Path(__file__).resolve().parents[2] / "test-output"
PASSWORD = "Paohuzi-e2e-2024"

pytestmark = pytest.mark.e2e


def _sign_in(browser, base, username, viewport):
    context = browser.new_context(viewport=viewport, device_scale_factor=2, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    return context, page


def _no_overflow(page):
    assert page.evaluate("() => document.documentElement.scrollWidth") <= page.evaluate("() => window.innerWidth") + 1


def test_ledger_lines_and_audit_log_read_as_words(browser, live_server, transactional_db, make_user, make_club):
    from django.utils import timezone

    from apps.clubs.models import Membership, RuleTemplate
    from apps.ledgers.services import adjustment_create
    from apps.matches import services as matches
    from apps.replays.audit import services as disputes
    from tests.tables.helpers import open_and_play_hand

    owner = make_user("lw_owner", password=PASSWORD, display_name="老王")
    players = [make_user(f"lw_p{i}", password=PASSWORD, display_name=n) for i, n in enumerate(["阿明", "阿强"])]
    admin = make_user("lw_admin", password=PASSWORD, display_name="小李")  # judges: the owner played
    club = make_club("牌友会", owner=owner, admins=[admin], members=players)
    for user in players:
        adjustment_create(club=club, member=Membership.objects.get(club=club, user=user), amount=100,
                          reason="首次充值", by=owner)
    adjustment_create(club=club, member=Membership.objects.get(club=club, user=players[0]), amount=-10,
                      reason="退还多充", by=owner)
    template = RuleTemplate.objects.create(club=club, name="三人", preset="full", options={}, players=3,
                                           base_score=1, piao_choices=[], hands_per_session=1, turn_seconds=15,
                                           fee=1, fee_payer="each")
    hand = open_and_play_hand(template, [owner, *players], rng=random.Random(3), kind="greedy")
    from apps.ledgers.services import settle_hand

    settle_hand(hand_id=hand.pk)
    match = matches.match_create(
        club=club, by=owner, name="周四晚快赛", template=template, format="fixed",
        starts_at=timezone.now() + timedelta(hours=2), min_entrants=3, max_entrants=60, entry_fee=10,
        prize_scheme={"kind": "percent", "percents": [100]}, hands_per_round=1, rounds=1,
    )
    matches.register(match=match, user=players[0])
    matches.register(match=match, user=players[1])
    matches.withdraw(match=match, user=players[1])
    dispute = disputes.dispute_create(user=players[0], hand=hand, reason="我怀疑这一局算错了")
    disputes.dispute_resolve(dispute=dispute, by=admin, outcome="核实后补偿 3 分", member_id=players[0].pk, amount=3)

    for name, viewport in (("phone", {"width": 390, "height": 844}), ("desktop", {"width": 1280, "height": 800})):
        context, page = _sign_in(browser, live_server.url, "lw_owner", viewport)
        page.goto(f"{live_server.url}/ledgers/{club.pk}/")
        text = page.inner_text(".ledger-table")
        for words in ("周四晚快赛：报名费", "周四晚快赛：退还报名费（退赛）", "申诉调整：核实后补偿 3 分",
                      "上分：首次充值", "下分：退还多充", f"{hand.table.name} 第1局", "桌费"):
            assert words in text, (words, text)
        assert "调整:" not in text and "entry fee" not in text
        # The fee goes into the match's pool (escrow), not the club account.
        fee_rows = page.locator(".ledger-table tbody tr", has_text="周四晚快赛：报名费").all_inner_texts()
        assert sum("比赛奖池" in r for r in fee_rows) == 2 and not any("俱乐部账户" in r for r in fee_rows), fee_rows
        assert "退款" in page.inner_text("select[name=kind]")
        _no_overflow(page)
        page.screenshot(path=str(OUT / f"ledger_words_club_{name}.png"), full_page=True)
        page.goto(f"{live_server.url}/clubs/{club.pk}/audit/")
        entries = page.locator(".audit-entry").all_inner_texts()
        assert any("老王 给 阿明 下分 10。原因：退还多充。" in e for e in entries), entries
        assert any("小李 解决了 阿明 的申诉。结果：核实后补偿 3 分。给 阿明 上分 3。" in e for e in entries), entries
        assert all(re.match(r"\d{1,2}月\d{1,2}日 \d{2}:\d{2}", e) for e in entries), entries
        _no_overflow(page)
        page.screenshot(path=str(OUT / f"ledger_words_audit_{name}.png"), full_page=True)
        context.close()

    context, page = _sign_in(browser, live_server.url, "lw_p0", {"width": 390, "height": 844})
    page.goto(f"{live_server.url}/ledgers/{club.pk}/me/")
    text = page.inner_text(".ledger-table")
    assert "周四晚快赛：报名费" in text and "申诉调整：核实后补偿 3 分" in text and "下分：退还多充" in text
    _no_overflow(page)
    page.screenshot(path=str(OUT / "ledger_words_mine_phone.png"), full_page=True)
    context.close()
