"""The match journey in the browser, at 390x844, every player in his own context, following only
what the screen shows (no typed URL after the start page):

the owner creates a 2-round 定局积分 match with the form; three members find it from their club
page and register; check-in opens and 签到 appears on their open pages without a reload; they
check in; one of them (老李) then leaves and never opens his table; the clock "jumps" to the start
(the shell steps only move the match's times: the test cannot wait ten minutes) and the match page
takes each present player to his table by itself, after a countdown; the owner, not playing,
watches a table from the live standings and is never moved; the players play the round by
clicking (tests/e2e/browser.py's step), 老李's seat times out and 托管 plays it; the table page then
offers 返回比赛 and takes 阿明 on to his round-2 table by itself, while 小芳 cancels the countdown,
goes back to the match with 返回比赛 and enters her table from the match page; after round 2 the
table leads to the final standings, where 老李 is shown as absent with the reason; each prize is
in its winner's ledger. Screenshots: test-output/journey_*.png.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.e2e.browser import PASSWORD, assert_no_overflow
from tests.e2e.e2e_server import serve
from tests.e2e.match_night import fill_fixed_match, member, open_match_from_club, play_round
from tests.e2e.seeds import WIN_SEED, club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"

pytestmark = pytest.mark.e2e

# Short time limits so an absent player's turns time out quickly (5 s a turn, 3 s a claim).
SEED = club_script(
    club="周四俱乐部", users=[("jrn0", "东家"), ("jrn1", "阿明"), ("jrn2", "小芳"), ("jrn3", "老李")],
    password=PASSWORD, members=[1, 2, 3], credit=100,
    templates=[dict(name="快赛三人", preset="full", players=3, hands_per_session=1, turn_seconds=5, claim_seconds=3)],
)

OPEN_CHECKIN = """
from django.utils import timezone
from apps.matches.models import Match
Match.objects.filter(name="周四晚快赛").update(checkin_opens_at=timezone.now())
"""

START = """
from datetime import timedelta
from django.utils import timezone
from apps.matches.models import Match
now = timezone.now()
match = Match.objects.get(name="周四晚快赛")
Match.objects.filter(pk=match.pk).update(registration_closes_at=now + timedelta(seconds=1),
                                         starts_at=now + timedelta(seconds=3), checkin_opens_at=now)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_journey") / "journey.sqlite3"
    with serve(db, SEED, E2E_TABLE_SEEDS=WIN_SEED) as (url, seed, shell):
        yield {"url": url, "club": int(seed), "start_soon": lambda: shell(START),
               "open_checkin": lambda: shell(OPEN_CHECKIN)}


def shot(page, name: str, full: bool = True) -> None:
    page.screenshot(path=str(OUT / f"journey_{name}.png"), full_page=full)


def test_a_match_night_from_the_form_to_the_prizes_following_only_the_screen(server, browser):
    base, club = server["url"], server["club"]
    OUT.mkdir(exist_ok=True)

    # The owner creates the match with the form (start in 15 minutes, check-in 10 minutes before).
    owner = member(browser, base, "jrn0")
    owner.click(f"a[href='/clubs/{club}/']")
    owner.click(f"nav.tabs a[href$='/matches/clubs/{club}/']")
    owner.click("#match-create")
    starts = datetime.now(ZoneInfo("Asia/Shanghai")) + timedelta(minutes=15)
    fill_fixed_match(owner, "周四晚快赛", starts.strftime("%Y-%m-%dT%H:%M"))
    shot(owner, "00_form")
    owner.click("form.match-form button[type=submit]")
    owner.wait_for_load_state()
    errors = owner.locator(".field.has-error, .errorlist").all_inner_texts()
    assert not errors, errors
    owner.wait_for_url("**/matches/*/")
    assert owner.text_content("h1") == "周四晚快赛"
    shot(owner, "01_created")

    # Three members register from their club page; check-in is not open yet.
    aming, xiaofang, laoli = (member(browser, base, f"jrn{i}") for i in (1, 2, 3))
    for page in (aming, xiaofang, laoli):
        open_match_from_club(page, club)
        page.click("#btn-register")
        page.wait_for_selector("#my-status")
        assert page.text_content("#my-status") == "已报名"
        assert page.is_hidden("#form-check-in") and "签到" in page.text_content("#why-not")
        page.evaluate("() => { window.__noReload = true; }")
    shot(aming, "02_registered", full=False)
    # Check-in opens (the clock jumps): 签到 appears on each open page without a reload.
    server["open_checkin"]()
    for page in (aming, xiaofang, laoli):
        page.wait_for_selector("#form-check-in:not([hidden])", timeout=20000)
        assert page.evaluate("() => window.__noReload === true")
        assert page.is_hidden("#why-not")
        page.click("#btn-check-in")
        page.wait_for_function("() => document.getElementById('my-status').textContent === '已签到'")
    assert "签到成功" in aming.inner_text(".messages")
    assert aming.is_hidden("#form-check-in") and aming.is_visible("#form-withdraw")
    shot(aming, "03_checked_in")
    assert_no_overflow(aming)
    laoli.context.close()  # 老李 never comes to his table

    # The start: each present player's page (no reload) shows his table, counts down and goes.
    for page in (aming, xiaofang, owner):
        page.evaluate("() => { window.__noReload = true; }")
    server["start_soon"]()
    aming.wait_for_selector("#move-count:not([hidden])", timeout=45000)
    assert aming.evaluate("() => window.__noReload === true")
    assert "秒后带你前往第1桌" in aming.text_content("#move-count")
    assert aming.text_content("#match-state") == "进行中"
    assert not aming.locator(".messages").count(), "the check-in banner must not outlive check-in"
    assert aming.is_hidden("#form-check-in") and aming.is_visible("#standings")
    shot(aming, "04_moving_to_table", full=False)
    # The owner, who does not play, watches the table from the live standings' link.
    owner.wait_for_selector("#standings-body td.tbl a", timeout=20000)
    assert owner.evaluate("() => window.__noReload === true")
    owner.click("#standings-body td.tbl a")
    owner.wait_for_url("**/tables/*/")
    watched = owner.url
    first_tables = {}
    for page in (aming, xiaofang):
        page.wait_for_url("**/tables/*/", timeout=30000)
        first_tables[page] = page.url

    # The table's header names the match, the round and the table, and leads back to the match.
    assert aming.text_content(".table-name") == "周四晚快赛 · 第1轮 · 第1桌"
    assert aming.text_content("#back-link").strip() == "‹ 返回比赛"
    shot(aming, "05_round1_table", full=False)
    play_round([aming, xiaofang])

    # Round 1 is over: the end panel offers 返回比赛 (no 再来一局); the table page takes 阿明 on.
    for page in (aming, xiaofang):
        page.wait_for_selector("#follow .follow-stay", timeout=60000)
        assert not page.locator(".act-rematch").count()
        assert page.locator(".act-back:visible").first.text_content() == "返回比赛"
    shot(xiaofang, "06_round1_over_follow", full=False)
    xiaofang.click("#follow .follow-stay")  # she stays to look at the result
    aming.wait_for_url(lambda url: url != first_tables[aming] and "/tables/" in url, timeout=15000)
    xiaofang.wait_for_timeout(6000)
    assert xiaofang.url == first_tables[xiaofang], "a cancelled countdown must not move her"
    # A spectator is not moved, and his page never asks where the players go next.
    assert owner.url == watched and owner.is_hidden("#follow")
    assert owner.evaluate("() => window.tableFollow.polls") == 0
    # ... then goes back to the match and enters her table from there.
    xiaofang.locator(".act-back:visible").first.click()
    xiaofang.wait_for_url("**/matches/*/")
    xiaofang.wait_for_selector("#my-table-prompt:not([hidden])")
    assert "第 2 / 2 轮" in xiaofang.text_content("#match-round")
    shot(xiaofang, "07_back_at_the_match", full=False)
    xiaofang.click("#go-to-table")
    xiaofang.wait_for_url(lambda url: url != first_tables[xiaofang] and "/tables/" in url)
    assert aming.text_content(".table-name") == "周四晚快赛 · 第2轮 · 第1桌"
    shot(aming, "08_round2_table", full=False)
    play_round([aming, xiaofang])

    # After the last round the table leads to the final standings.
    for page in (aming, xiaofang):
        page.wait_for_selector("#follow .follow-standings", timeout=60000)
    shot(aming, "09_match_over", full=False)
    xiaofang.set_viewport_size({"width": 1280, "height": 800})  # the panels on a desktop
    shot(xiaofang, "09b_match_over_desktop", full=False)
    xiaofang.set_viewport_size({"width": 390, "height": 844})
    for page in (aming, xiaofang):
        page.click("#follow .follow-standings")
        page.wait_for_url("**/matches/*/")
        page.wait_for_selector("#standings:not([hidden])")
    assert aming.text_content("#standings-title") == "最终成绩"
    laoli_row = aming.locator("#standings-body tr", has_text="老李")
    assert "缺席" in laoli_row.text_content()
    assert aming.text_content("#entrant-count") == "3"
    entrants = aming.inner_text("#entrants")
    assert "老李" in entrants and "缺席" in entrants and "托管" in entrants
    shot(aming, "10_final_standings")
    aming.locator("#standings").screenshot(path=str(OUT / "journey_10a_standings.png"))
    aming.locator("#entrants").screenshot(path=str(OUT / "journey_10b_entrants.png"))
    assert_no_overflow(aming)

    # Each prize is in its winner's ledger (from the match page: the club, then 我的积分).
    prizes = {}
    for row in aming.locator("#standings-body tr").all():
        name = row.locator("td.name").text_content().split(" ")[0].replace("(你)", "").strip()
        prize = row.locator("td.st").text_content().strip()
        prizes[name] = prize
    winners = {n: p for n, p in prizes.items() if p != "—"}
    assert len(winners) == 2 and "老李" not in winners, prizes
    for page, name in ((aming, "阿明"), (xiaofang, "小芳")):
        if name not in winners:
            continue
        amount = "".join(ch for ch in winners[name] if ch.isdigit())
        page.click(f"nav.tabs a[href='/clubs/{club}/']")
        page.click("a[href$='/me/']")
        page.wait_for_selector(".ledger-table")
        prize_rows = [r.inner_text() for r in page.locator(".ledger-table tbody tr", has_text="奖金").all()]
        assert any("周四晚快赛" in r and f"+{amount}" in r for r in prize_rows), prize_rows
        shot(page, f"11_ledger_{name}")
    for page in (owner, aming, xiaofang):
        page.context.close()
