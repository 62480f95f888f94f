"""A club's match night across every app, in the browser at 390x844, each person in his own context
and following only what the screen shows (no typed URL after the sign-in page):

- the owner creates a 2-round 定局积分 match with the form; three members register and check in
  from their club's 比赛 tab; 老李 then leaves; at the start the match page takes 阿明 and 小芳 to
  their table by itself, and after round 1 the table page takes them on to the next one; 托管
  plays 老李's seat;
- after round 2 the table leads to the final standings, where 老李 is 缺席 with the reason (托管);
  老李, back later, finds the match in 我的比赛 and his page says why; each prize is in its
  winner's ledger in words (奖金, the match's name);
- 阿明 opens a hand of his from the match page (round 1's seating links his table's hands, the list
  links the replay), makes a 回放码; 小芳 types it in the site menu's 回放码 box (folded behind 菜单
  on a phone) and sees the replay;
- 阿明 files a dispute about the hand from the replay page; the admin finds it in the club's 申诉
  tab and resolves it with an adjustment; 阿明 sees the outcome in 我的申诉 (from the menu, his
  profile) and the adjustment in his ledger as 申诉调整.

The match part is checked in more detail by test_match_journey.py (cancelled countdowns, spectators);
both use match_night.py. Every page on the way is checked for English words (outside the technical
disclosure) and for overflow at 390 px; some are also shot at 844x390 and 1280x800.
Screenshots: test-output/xj_*.png.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.e2e.browser import LATIN_WORD, PASSWORD, assert_no_overflow
from tests.e2e.e2e_server import serve
from tests.e2e.match_night import fill_fixed_match, member, open_match_from_club, play_round
from tests.e2e.seeds import WIN_SEED, club_script
from tests.language import ALLOWED

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"
MATCH = "周五夜赛"

pytestmark = pytest.mark.e2e

# Short time limits so the absent player's turns time out quickly (5 s a turn, 3 s a claim).
SEED = club_script(
    club="周五俱乐部", users=[("cn0", "东家"), ("cn1", "阿华"), ("cn2", "阿明"), ("cn3", "小芳"), ("cn4", "老李")],
    password=PASSWORD, admins=[1], members=[2, 3, 4], credit=100, credit_reason="开赛前上分",
    templates=[dict(name="快赛三人", preset="full", players=3, hands_per_session=1, turn_seconds=5, claim_seconds=3)],
)

# The clock "jumps" (the test cannot wait ten minutes): only the match's times move.
OPEN_CHECKIN = f"""
from django.utils import timezone
from apps.matches.models import Match
Match.objects.filter(name="{MATCH}").update(checkin_opens_at=timezone.now())
"""

START = f"""
from datetime import timedelta
from django.utils import timezone
from apps.matches.models import Match
now = timezone.now()
Match.objects.filter(name="{MATCH}").update(registration_closes_at=now + timedelta(seconds=1),
                                           starts_at=now + timedelta(seconds=3), checkin_opens_at=now)
"""

# Latin words a zh-hans page may show outside <details class="tech">: those of the language walk.
ALLOWED_LATIN = ALLOWED
REPLAY_CODE = re.compile(r"\b[2-9A-Z]{5}-[2-9A-Z]{5}\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_club_night") / "night.sqlite3"
    with serve(db, SEED, E2E_TABLE_SEEDS=WIN_SEED) as (url, seed, shell):
        yield {"url": url, "club": int(seed), "start_soon": lambda: shell(START),
               "open_checkin": lambda: shell(OPEN_CHECKIN)}


def shot(page, name: str, full: bool = True) -> None:
    page.screenshot(path=str(OUT / f"xj_{name}.png"), full_page=full)


def shot_sizes(page, name: str) -> None:
    """The page as a phone held sideways and on a desktop, then back to the phone."""
    for label, (w, h) in (("landscape", (844, 390)), ("desktop", (1280, 800))):
        page.set_viewport_size({"width": w, "height": h})
        assert_no_overflow(page)
        shot(page, f"{name}_{label}", full=False)
    page.set_viewport_size({"width": 390, "height": 844})


def check_page(page, name: str) -> None:
    """One language and no sideways scroll at 390 px; then the screenshot."""
    page.wait_for_load_state()
    text = page.evaluate("""() => {
        const main = document.body.cloneNode(true);
        main.querySelectorAll('details.tech, script, style, template').forEach((el) => el.remove());
        return main.innerText;  // detached: hidden parts are read too
    }""")
    text = REPLAY_CODE.sub("", text)  # a 回放码's letters are a code, not a word
    words = [w for w in LATIN_WORD.findall(text) if w not in ALLOWED_LATIN]
    assert not words, f"English on the zh-hans page {page.url}: {words}"
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", text), f"ISO timestamp on {page.url}"
    assert_no_overflow(page)
    shot(page, name)


def test_a_club_night_match_replay_code_and_dispute_across_the_apps(server, browser):
    base, club = server["url"], server["club"]
    OUT.mkdir(exist_ok=True)

    # 1. The owner creates the match with the form (start in 15 minutes, check-in 10 minutes before).
    owner = member(browser, base, "cn0")
    owner.click(f"a[href='/clubs/{club}/']")
    owner.click(f"nav.tabs a[href$='/matches/clubs/{club}/']")
    owner.click("#match-create")
    starts = datetime.now(ZoneInfo("Asia/Shanghai")) + timedelta(minutes=15)
    fill_fixed_match(owner, MATCH, starts.strftime("%Y-%m-%dT%H:%M"))
    check_page(owner, "00_owner_match_form")
    owner.click("form.match-form button[type=submit]")
    owner.wait_for_url("**/matches/*/")
    assert not owner.locator(".field.has-error, .errorlist").count()
    assert owner.text_content("h1") == MATCH
    check_page(owner, "01_owner_match_created")
    owner.context.close()

    # Members register from their club's 比赛 tab, check-in opens on their open pages, they check in.
    aming, xiaofang, laoli = (member(browser, base, f"cn{i}") for i in (2, 3, 4))
    for page in (aming, xiaofang, laoli):
        open_match_from_club(page, club)
        page.click("#btn-register")
        page.wait_for_selector("#my-status")
        assert page.text_content("#my-status") == "已报名"
    check_page(aming, "02_registered")
    server["open_checkin"]()
    for page in (aming, xiaofang, laoli):
        page.wait_for_selector("#form-check-in:not([hidden])", timeout=20000)
        page.click("#btn-check-in")
        page.wait_for_function("() => document.getElementById('my-status').textContent === '已签到'")
    check_page(xiaofang, "03_checked_in")
    laoli.context.close()  # 老李 never comes to his table: 托管 plays his seat

    # The start: the match page takes each present player to his table after a countdown.
    server["start_soon"]()
    tables = {}
    for page in (aming, xiaofang):
        page.wait_for_url("**/tables/*/", timeout=60000)
        tables[page] = page.url
    assert aming.text_content(".table-name") == f"{MATCH} · 第1轮 · 第1桌"
    play_round([aming, xiaofang])
    shot(aming, "04_round1_over", full=False)
    # ... and the table page on to round 2 (nobody cancels this time).
    for page in (aming, xiaofang):
        assert not page.locator(".act-rematch").count()
        page.wait_for_url(lambda url, p=page: url != tables[p] and "/tables/" in url, timeout=60000)
    assert aming.text_content(".table-name") == f"{MATCH} · 第2轮 · 第1桌"
    # ... and whole on the phone, not cut to "周五夜赛 · …" by the top strip's buttons.
    assert aming.evaluate("() => { const e = document.querySelector('.table-name');"
                          " return e.clientWidth > 0 && e.scrollWidth <= e.clientWidth; }")
    shot(xiaofang, "05_round2_table", full=False)
    play_round([aming, xiaofang])

    # 2. After the last round the table leads to the final standings.
    for page in (aming, xiaofang):
        page.wait_for_selector("#follow .follow-standings", timeout=60000)
    shot(aming, "06_match_over", full=False)
    shot_sizes(aming, "06_match_over")
    for page in (aming, xiaofang):
        page.click("#follow .follow-standings")
        page.wait_for_url("**/matches/*/")
        page.wait_for_selector("#standings:not([hidden])")
    assert aming.text_content("#standings-title") == "最终成绩"
    absent = aming.locator("#standings-body tr", has_text="老李").inner_text()
    assert "缺席" in absent, absent
    entrants = aming.inner_text("#entrants")
    assert "老李" in entrants and "缺席" in entrants and "托管" in entrants, entrants
    check_page(aming, "07_final_standings")
    shot_sizes(aming, "07_final_standings")

    # 老李 comes back later: 我的比赛 (in the menu) shows the match finished, his page explains why
    # he is ranked without having played.
    laoli = member(browser, base, "cn4")
    laoli.click(".menu-toggle")
    laoli.click("#site-menu a[href$='/matches/mine/']")
    card = laoli.locator("#matches-finished .match-card", has_text=MATCH)
    assert "已结束" in card.inner_text() and "缺席" in card.inner_text(), card.inner_text()
    card.locator("a").first.click()
    laoli.wait_for_url("**/matches/*/")
    assert laoli.text_content("#my-status") == "缺席"
    assert "托管" in laoli.text_content("#my-status-reason")
    check_page(laoli, "07c_absent_own_page")
    laoli.context.close()

    prizes = {}
    for row in aming.locator("#standings-body tr").all():
        name = row.locator("td.name").text_content().split(" ")[0].replace("(你)", "").strip()
        prizes[name] = row.locator("td.st").text_content().strip()
    winners = {n: "".join(ch for ch in p if ch.isdigit()) for n, p in prizes.items() if p != "—"}
    assert len(winners) == 2 and "老李" not in winners, prizes

    # Each winner's prize is in his ledger (the club, then 我的积分), in words.
    for page, name in ((aming, "阿明"), (xiaofang, "小芳")):
        page.click(f"nav.tabs a[href='/clubs/{club}/']")
        page.click("a[href$='/me/']")
        page.wait_for_selector(".ledger-table")
        lines = [r.inner_text() for r in page.locator(".ledger-table tbody tr").all()]
        assert any("报名费" in r and MATCH in r and "-10" in r for r in lines), lines
        if name in winners:
            assert any("奖金" in r and MATCH in r and f"+{winners[name]}" in r for r in lines), lines
        check_page(page, f"08_ledger_{name}")
    shot_sizes(aming, "08_ledger_阿明")

    # 3. 阿明 opens a hand of his from the match page (his history): round 1's seating links his
    # table's hands, the list links the replay.
    aming.click(f"nav.tabs a[href$='/matches/clubs/{club}/']")
    aming.click(f"a:has-text('{MATCH}')")
    aming.wait_for_selector("#seatings details.round")
    round1 = aming.locator("#seatings details.round", has_text="第 1 轮")
    round1.locator("summary").click()
    assert round1.locator(".seating.mine .hands-link").count() == 1
    assert aming.locator(".seating:not(.mine) .hands-link").count() == 0
    round1.locator(".seating.mine .hands-link").click()
    aming.wait_for_url("**/replays/tables/*/")
    check_page(aming, "09_table_hands")
    aming.locator("#hands .replay-link").first.click()
    aming.wait_for_url("**/replays/hands/*/")
    aming.wait_for_function("() => window.replayApp && document.querySelector('#moves .move')")
    hand_url = aming.url
    check_page(aming, "10_replay")
    shot_sizes(aming, "10_replay")
    aming.click("#make-code")
    aming.wait_for_selector(".share-code")
    code_text = aming.locator(".share-code .code").first.inner_text()
    shown = REPLAY_CODE.search(code_text)
    assert shown, f"no replay code on the screen: {code_text!r}"
    code = shown.group(0)
    check_page(aming, "11_replay_code_made")

    # 小芳 types it in the menu's 回放码 box: on a phone the menu is folded behind 菜单.
    assert not xiaofang.locator("#menu-code-input").is_visible()
    xiaofang.click(".menu-toggle")
    xiaofang.fill("#menu-code-input", code)
    shot(xiaofang, "12_menu_code_box", full=False)
    xiaofang.click("#menu-code button[type=submit]")
    xiaofang.wait_for_url(re.compile(r"/replays/s/"))
    xiaofang.wait_for_function("() => window.replayApp && document.querySelector('#moves .move')")
    assert xiaofang.locator("#felt").is_visible()
    assert not xiaofang.locator("a[href*='/disputes/new/']").count()  # a code opens the replay only
    check_page(xiaofang, "13_replay_by_code")
    xiaofang.context.close()

    # 4. 阿明 files a dispute about the hand from its replay page.
    aming.click("a[href*='/disputes/new/']")
    aming.wait_for_selector("#id_reason")
    check_page(aming, "14_dispute_form")
    aming.click("label:has-text('算分错误')")  # what it is about: a chip to tap
    aming.fill("#id_reason", "老李托管时少算了我一番，请核对。")
    aming.click("main form button[type=submit]")
    aming.wait_for_url("**/disputes/")
    mine = aming.locator("article.dispute").first
    assert "少算了我一番" in mine.inner_text() and "等待管理员" in mine.inner_text(), mine.inner_text()
    check_page(aming, "15_my_disputes_open")

    # The admin finds it in the club's 申诉 tab and resolves it with an adjustment for 阿明.
    admin = member(browser, base, "cn1")
    admin.click(f"a[href='/clubs/{club}/']")
    admin.click("nav.tabs a[href$='/disputes/']")
    admin.wait_for_selector("text=少算了我一番")
    check_page(admin, "16_admin_disputes")
    admin.locator("a[href*='/disputes/']", has_text="处理").first.click()
    admin.wait_for_selector("#id_outcome")
    check_page(admin, "17_admin_dispute")
    shot_sizes(admin, "17_admin_dispute")
    admin.fill("#id_outcome", "已核对，补给阿明 5 分。")
    admin.select_option("#id_member", label="阿明")
    admin.fill("#id_amount", "5")
    admin.locator("form[action$='/resolve/'] button[type=submit]").click()
    admin.wait_for_selector("[data-testid=outcome]")
    assert admin.text_content("[data-testid=outcome]") == "已核对，补给阿明 5 分。"
    check_page(admin, "18_admin_resolved")
    admin.context.close()

    # 阿明 sees the outcome in 我的申诉 (menu, his name, 我的申诉) and 申诉调整 in his ledger.
    aming.click(".menu-toggle")
    aming.click(".nav-user")
    aming.click("main a[href$='/disputes/']")
    mine = aming.locator("article.dispute").first
    assert "已核对，补给阿明 5 分。" in mine.inner_text(), mine.inner_text()
    check_page(aming, "19_my_disputes_resolved")
    aming.click(".menu-toggle")
    aming.click("#site-menu a[href='/clubs/']")
    aming.click(f"a[href='/clubs/{club}/']")
    aming.click("a[href$='/me/']")
    aming.wait_for_selector(".ledger-table")
    lines = [r.inner_text() for r in aming.locator(".ledger-table tbody tr").all()]
    assert any("申诉调整" in r and "+5" in r for r in lines), lines
    check_page(aming, "20_ledger_adjustment")
    assert hand_url  # the hand the dispute was about was reached by links only
    aming.context.close()
