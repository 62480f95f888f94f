"""Browser test: the rule template form shows only the chosen preset's description and options
(static/js/clubs/template_form.js), and saves what the fields say. Skips without chromium/Playwright."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

OUT = Path(__file__).resolve().parents[2] / "test-output"

pytestmark = pytest.mark.e2e


def test_template_form_switches_preset_options(browser, live_server, transactional_db, client, make_user,
                                               make_club):
    from apps.clubs.models import RuleTemplate

    owner = make_user("owner_tf")
    club = make_club("规则俱乐部", owner=owner)
    client.force_login(owner)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN")
    context.set_default_timeout(15000)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                          "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}/clubs/{club.pk}/templates/new/")
    chenzhou = page.locator('fieldset[data-preset-only="chenzhou"]')
    basic = page.locator('fieldset[data-preset-only="basic"]')
    page.wait_for_function("() => document.querySelector('fieldset[data-preset-only=chenzhou]').hidden")
    assert basic.is_visible() and not chenzhou.is_visible()
    assert page.locator("textarea[name=options]").count() == 0  # no raw JSON (issue 24)
    enabled = "() => [...document.querySelectorAll('#id_players option')].filter((o) => !o.disabled).map((o) => o.value)"
    # Only the preset's player counts are offered (issue 24): 全名堂 is a 3-player game.
    page.select_option("#id_preset", "chenzhou")
    assert page.evaluate(enabled) == ["2", "3", "4"]
    page.select_option("#id_players", "4")
    page.select_option("#id_preset", "full")
    assert page.evaluate(enabled) == ["3"]
    assert page.input_value("#id_players") == "3"  # a count full does not support moved to one it does
    page.screenshot(path=str(OUT / "template_form_full_players.png"), full_page=True)
    page.select_option("#id_preset", "chenzhou")
    assert chenzhou.is_visible() and not basic.is_visible()
    assert page.locator('p[data-preset-only="chenzhou"]').is_visible()
    page.screenshot(path=str(OUT / "template_form_chenzhou.png"), full_page=True)
    page.fill("#id_name", "郴州快桌")
    page.select_option("#id_players", "3")
    page.fill("#id_piao_choices", "1,2")
    page.select_option("#id_opt_chenzhou_min_huxi", "6")
    page.check("#id_opt_chenzhou_mao_hu")
    page.fill("#id_claim_seconds", "10")
    page.click("button[type=submit].btn-primary")
    page.wait_for_url(f"{live_server.url}/clubs/{club.pk}/")
    template = RuleTemplate.objects.get(club=club, name="郴州快桌")
    assert template.options == {"min_huxi": 6, "mao_hu": True}
    assert (template.piao_choices, template.claim_seconds) == ([1, 2], 10)
    page.click("details.rules-text summary")
    page.screenshot(path=str(OUT / "template_card_rules.png"), full_page=True)
    assert "6胡息起胡" in page.content()
    context.close()
