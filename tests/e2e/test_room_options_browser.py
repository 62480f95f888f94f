"""Browser test of the room options at the table (issue #26, RULES.md §3.8 and §8.6): a 4-player
``luzhou`` hand at 390×844 — the last stock card shown on the felt and marked 不能胡 for the player
and for the seat sitting the hand out (who watches), the set-aside count absent (no 抽牌 here) — and
an escape (逃跑) behind the page's confirmation, which states the penalty, then the settlement panel
saying who escaped and what he pays. Screenshots go to /tmp/table-shots/options_*.png.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.e2e_server import serve

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from tests.e2e.browser import PASSWORD, assert_chinese, sign_in  # noqa: E402

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/table-shots")
# A real (not practice) luzhou table for 4 with 逃跑: 老王 in seat 0 (the first dealer), 小李 in
# seat 2 (opposite the dealer: he sits the first hand out), bots (the club account) in 1 and 3.
SEED = """
PASSWORD = "__PASSWORD__"
from apps.accounts.models import User
from apps.clubs.models import Membership, RuleTemplate
from apps.clubs.services import club_create
from apps.tables.models import Table
from apps.tables.verbs.services import table_create
from apps.tables.transaction.transitions import do_add_bot, do_sit
owner = User.objects.create_user(username="ro_p0", password=PASSWORD, display_name="老王")
sitter = User.objects.create_user(username="ro_p1", password=PASSWORD, display_name="小李")
club = club_create(name="泸州俱乐部", owner=owner)
Membership.objects.create(club=club, user=sitter, role="member")
template = RuleTemplate.objects.create(club=club, name="泸州四人逃跑", preset="luzhou", players=4,
                                       hands_per_session=2, turn_seconds=300, claim_seconds=120, base_score=2,
                                       options={"escape_penalty": True})
table = Table(club=club, template=template, name=template.name, hands_per_session=2, created_by=owner)
table.copy_rules(template)
def seating(ctx):
    do_sit(ctx, ctx.seats[0], owner)
    do_sit(ctx, ctx.seats[2], sitter)
    do_add_bot(ctx, ctx.seats[1], "normal")
    do_add_bot(ctx, ctx.seats[3], "normal")
table = table_create(user=owner, table=table, template_name=template.name, seating=seating)
print(table.pk)
""".replace("__PASSWORD__", PASSWORD)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_options") / "options.sqlite3"
    with serve(db, SEED, TABLES_BOT_DELAY="0.05") as (url, table_id, shell):
        yield {"url": url, "table": int(table_id), "shell": shell}


def open_table(browser, base: str, username: str, table: int):
    page = sign_in(browser, base, username)
    page.goto(f"{base}/tables/{table}/")
    page.wait_for_function("() => window.tableApp && window.tableApp.state")
    return page


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"options_{name}.png"
    page.screenshot(path=str(path))


def test_luzhou_four_players_shown_last_card_and_an_escape_with_its_confirmation(server, browser):
    base, table = server["url"], server["table"]
    player = open_table(browser, base, "ro_p0", table)
    sitter = open_table(browser, base, "ro_p1", table)
    for page in (player, sitter):
        page.wait_for_selector("#waiting:not([hidden]) .act-ready")
        page.click("#waiting .act-ready")
    for page in (player, sitter):
        page.wait_for_function("() => window.tableApp.state.hand && window.tableApp.state.hand.status === 'playing'")
        page.wait_for_selector(".center .bottom-card .card")

    # §3.8: no reveal card; the last stock card lies face up for everyone, marked as not winnable.
    state = player.evaluate("() => window.tableApp.state")
    bottom = state["hand"]["view"]["bottom_card"]
    assert bottom and state["hand"]["view"]["reveal"] is None
    for page in (player, sitter):
        box = page.locator(".center .bottom-card")
        assert box.is_visible()
        assert box.locator(".card").get_attribute("data-card") == page.evaluate(
            "() => window.tableApp.state.hand.view.bottom_card")
        assert "底牌" in box.text_content() and "不能胡" in box.text_content()
        assert page.locator(".set-aside").count() == 0  # no 抽牌 at this table
        box_rect = box.bounding_box()
        assert box_rect["x"] >= 0 and box_rect["x"] + box_rect["width"] <= 390
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 390

    # The sitter plays no part in this hand: he watches, with no 逃跑 and no decisions.
    sitter_state = sitter.evaluate("() => window.tableApp.state")
    assert sitter_state["me"] == 2 and sitter_state["hand"]["view"]["legal_actions"] == [] and "escape" not in sitter_state["hand"]
    assert not sitter.locator("#escape-btn").is_visible()
    assert "本局你休息" in sitter.text_content("#mine .sitting-out")
    shot(sitter, "sitter_watching")

    # 逃跑 is offered to the player, with the least it costs him from what he sees (his own copy of
    # the state: his view's bound times the base, RULES.md §8.6).
    player.wait_for_selector("#escape-btn:not([hidden])")
    pays = player.evaluate("() => window.tableApp.state.hand.escape.at_least")
    assert pays >= 8 * 2  # base 2: at least 8 × base (RULES.md §8.6)
    shot(player, "luzhou_player")
    assert_chinese(player.text_content("#felt"))
    # With 托管, 逃跑 and 解散 in the top strip the table's name is still whole on a phone.
    assert player.evaluate("() => { const e = document.querySelector('.table-name');"
                           " return e.clientWidth > 0 && e.scrollWidth <= e.clientWidth; }")
    # On a desktop the shown last card sits by the stock too, inside the centre.
    player.set_viewport_size({"width": 1280, "height": 800})
    player.wait_for_timeout(300)
    rect, center = player.locator(".center .bottom-card").bounding_box(), player.locator("#center").bounding_box()
    assert rect["x"] >= center["x"] and rect["x"] + rect["width"] <= center["x"] + center["width"] + 0.5
    assert rect["y"] + rect["height"] <= 800
    shot(player, "luzhou_player_desktop")
    player.set_viewport_size({"width": 390, "height": 844})

    # The confirmation states the formula and the least he would pay; cancelling changes nothing.
    player.click("#escape-btn")
    dialog = player.locator("dialog.confirm-dialog")
    dialog.wait_for()
    assert f"至少 {pays} 分" in dialog.text_content() and "逃跑" in dialog.text_content()
    assert "（其他玩家胡息−12）÷3＋8 倍底分" in dialog.text_content() and "实数在本局结束时算出" in dialog.text_content()
    shot(player, "escape_confirm")
    dialog.locator(".confirm-cancel").click()
    player.wait_for_timeout(300)
    assert player.evaluate("() => window.tableApp.state.hand.status") == "playing"

    player.click("#escape-btn")
    player.locator("dialog.confirm-dialog .confirm-ok").click()
    player.wait_for_selector("#settlement:not([hidden]) .escape-line")
    state = player.evaluate("() => window.tableApp.state")
    totals = state["hand"]["totals"]["total"]
    exact = -totals["0"]  # the exact amount, known at the hand's end: never below the bound he was told
    assert exact >= pays and sum(totals.values()) == 0 and totals["2"] == 0  # the sitter pays nothing
    for page in (player, sitter):
        page.wait_for_selector("#settlement:not([hidden]) .escape-line")
        line = page.text_content("#settlement .escape-line")
        assert "老王逃跑" in line and f"赔付 {exact} 分" in line, line
        assert_chinese(page.text_content("#settlement .result-line") + page.text_content("#settlement .deltas"))
    assert state["dealer"] == 0  # the dealer keeps the deal (RULES.md §8.6)
    shot(player, "escape_settlement")
    shot(sitter, "escape_settlement_sitter")

    # The replay viewer: the shown last card by the stock, the escape in the moves and the panel.
    player.click("#settlement .act-replay")
    player.wait_for_selector("#replay-app")
    assert player.locator("#center .bottom-card").is_visible()
    assert "不能胡" in player.text_content("#center .bottom-card")
    player.click("#btn-end")
    player.wait_for_selector("#settlement:not([hidden]) .escape-line")
    assert "老王逃跑" in player.text_content("#settlement .escape-line")
    assert "逃跑" in player.text_content("#moves")
    assert_chinese(player.text_content("#moves") + player.text_content("#center"))
    shot(player, "escape_replay")


def test_the_template_form_offers_each_option_only_where_it_applies(server, browser):
    """template_form.js: 底牌明示 only with 4 players one sitting out (and on by default there for
    luzhou), 抽牌 only with 2; unchecking 底牌明示 is saved as an override."""
    base = server["url"]
    club = int(server["shell"]("from apps.clubs.models import Club; print(Club.objects.get(name='泸州俱乐部').pk)"))
    page = open_table(browser, base, "ro_p0", server["table"])
    page.goto(f"{base}/clubs/{club}/templates/new/")
    page.select_option("#id_preset", "luzhou")
    bottom = page.locator("#id_opt_luzhou_bottom_shown")
    remove = page.locator("#id_opt_luzhou_remove_cards")
    for word in ("起胡", "封顶", "有胡必胡", "逃跑"):
        assert page.locator('fieldset[data-preset-only="luzhou"]').get_by_text(word).first.is_visible(), word
    assert not bottom.is_visible() and not remove.is_visible()  # 3 players: neither applies
    page.select_option("#id_players", "4")
    assert bottom.is_visible() and bottom.is_checked() and not remove.is_visible()
    page.select_option("#id_opt_luzhou_four_player_mode", "deal_all")
    assert not bottom.is_visible() and not bottom.is_checked()
    page.select_option("#id_players", "2")
    assert remove.is_visible() and not bottom.is_visible()
    page.select_option("#id_players", "4")
    page.select_option("#id_opt_luzhou_four_player_mode", "sit_out")
    assert bottom.is_checked() and not remove.is_visible()
    bottom.uncheck()
    page.check("#id_opt_luzhou_escape_penalty")
    page.fill("#id_opt_luzhou_score_cap", "20")
    page.fill("#id_name", "泸州四人不亮底")
    page.screenshot(path=str(SHOTS / "options_template_form.png"), full_page=True)
    page.click("button[type=submit].btn-primary")
    page.wait_for_load_state()
    saved = server["shell"]("from apps.clubs.models import RuleTemplate; "
                            "print(sorted(RuleTemplate.objects.get(name='泸州四人不亮底').options.items()))")
    assert saved.strip() == str(sorted({"bottom_shown": False, "escape_penalty": True, "score_cap": 20}.items()))
