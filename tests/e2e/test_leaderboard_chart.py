"""Browser test: the leaderboard's points chart (vendored uPlot) draws axes with dates and shows
each player's total under the cursor; phone portrait and desktop screenshots in test-output/."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

OUT = Path(__file__).resolve().parents[2] / "test-output"
PASSWORD = "Paohuzi-e2e-2024"

pytestmark = pytest.mark.e2e


def test_points_chart_has_axes_dates_and_values_on_hover(browser, live_server, transactional_db, make_user, make_club):
    from apps.clubs.models import RuleTemplate
    from tests.tables.helpers import open_and_play_hand

    users = [make_user(f"lb{i}", password=PASSWORD, display_name=f"牌友{i}") for i in range(3)]
    club = make_club("排行俱乐部", owner=users[0], members=users[1:])
    template = RuleTemplate.objects.create(club=club, name="t", preset="full", options={}, players=3, base_score=1,
                                           piao_choices=[], hands_per_session=1, turn_seconds=15)
    wins = 0
    for seed in range(40):  # play until a few hands were won (a draw posts no points)
        hand = open_and_play_hand(template, users, rng=random.Random(seed), kind="greedy")
        wins += (hand.result or {}).get("winner") is not None
        if wins >= 2:
            break
    assert wins >= 2  # the boards were kept by the settlements themselves

    for name, viewport in (("phone", {"width": 390, "height": 844}), ("desktop", {"width": 1280, "height": 800})):
        context = browser.new_context(viewport=viewport, device_scale_factor=2, locale="zh-CN")
        page = context.new_page()
        page.set_default_timeout(15000)
        errors = []
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        page.on("console", lambda msg, errors=errors: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", "lb0")
        page.fill("#id_password", PASSWORD)
        with page.expect_navigation():
            page.click("main button[type=submit]")
        page.goto(f"{live_server.url}/ledgers/{club.pk}/leaderboard/?period=all")
        try:
            page.wait_for_selector("#points-chart-box[data-ready='1'] canvas")
        except Exception:
            page.screenshot(path=str(OUT / f"leaderboard_chart_{name}_failed.png"), full_page=True)
            raise AssertionError(f"chart not drawn; page errors: {errors}; {page.url}") from None
        ticks = page.get_attribute("#points-chart-box", "data-x-ticks") or ""
        assert re.search(r"\d{2}\D\d{2}", ticks), ticks  # times (all hands today) or dates on the x axis
        box = page.locator("#points-chart-box .u-over").bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
        legend = page.locator("#points-chart-box .u-legend").inner_text()
        assert "牌友0" in legend and "牌友2" in legend
        values = page.locator("#points-chart-box .u-legend .u-value").all_inner_texts()
        assert any(v.strip().lstrip("-").isdigit() for v in values[1:]), values  # a total under the cursor
        page.screenshot(path=str(OUT / f"leaderboard_chart_{name}.png"), full_page=True)
        context.close()
