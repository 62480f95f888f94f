"""Browser test of issue #47, getting people to a table and back to it, at 390×844 (the club page
also at 844×390 and on a desktop), on the real server (Daphne, sockets):

- a seated player finds 继续牌桌 on the home page and is back at his table; tapping his name there
  shows his player card (本月 in the club); his 战绩 (from the site menu) lists last night's session;
- the owner writes a 公告 on the club page; a member's next visit pops it up once, not twice; on a
  practice table in play the board's seat heads open the cards too;
- that member types the table's 桌号 in the club page's box and arrives at the table; a wrong
  number, and a player of another club typing the right one, are told so in Chinese and stay.

Screenshots: /tmp/shots/r-life/life_*.png (and test-output/). Skips when chromium or Playwright is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.e2e.browser import PASSWORD, assert_no_overflow, open_menu, sign_in
from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
SHOTS = [Path("/tmp/shots/r-life"), ROOT / "test-output"]

pytestmark = pytest.mark.e2e

SEED = club_script(
    club="周末牌友会", users=[("tl0", "东家"), ("tl1", "小明"), ("tl2", "小芳"), ("tl3", "外人")],
    password=PASSWORD, members=[1, 2], other_clubs=[(3, "隔壁俱乐部")],
    templates=[dict(name="三人全名堂", preset="full", players=3, hands_per_session=2, turn_seconds=15)],
)

OPEN_TABLE = """
from apps.accounts.models import User
from apps.clubs.models import RuleTemplate
from apps.tables.verbs import services
table = services.table_open(user=User.objects.get(username="tl1"), template=RuleTemplate.objects.get(name="三人全名堂"))
print(f"{table.pk} {table.code}")
"""

# An ended session of last night (two finished hands) for the 战绩 page: tests/tables/test_record.py's.
LAST_NIGHT = """
from apps.accounts.models import User
from apps.clubs.models import Club, RuleTemplate
from tests.tables.sessions import ended_session
users = [User.objects.get(username=u) for u in ("tl1", "tl2", "tl0")]
table = ended_session(Club.objects.get(name="周末牌友会"), RuleTemplate.objects.get(name="三人全名堂"), users, name="昨晚一桌")
print(table.pk)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_table_life") / "life.sqlite3"
    with serve(db, SEED) as (url, club, shell):
        table_id, code = shell(OPEN_TABLE).split()
        yield {"url": url, "club": int(club), "table": int(table_id), "code": code, "last_night": int(shell(LAST_NIGHT))}


def shot(page, name: str, full: bool = True) -> None:
    if full:
        page.evaluate("window.scrollTo(0, 0)")  # the sticky top bar at the top of a full-page shot
    for out in SHOTS:
        out.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out / f"life_{name}.png"), full_page=full)


def test_table_number_continue_and_announcement(server, browser):
    base, club, table, code = server["url"], server["club"], server["table"], server["code"]

    # 1. 小明 sits at a table; the home page offers 继续牌桌, which takes him back there.
    ming = sign_in(browser, base, "tl1")
    ming.click("header a.brand")
    ming.wait_for_selector("#continue-table")
    assert "继续牌桌" in ming.inner_text("#continue-table")
    assert code in ming.inner_text("#table-number")
    assert_no_overflow(ming)
    shot(ming, "home_continue")
    ming.click("#continue-table")
    ming.wait_for_url(re.compile(rf"/tables/{table}/$"))
    assert code in ming.inner_text("#table-code")
    # His player card: tap his own name in the waiting room's list of seats.
    ming.wait_for_selector("#waiting .seat-list > li")
    ming.click("#waiting .seat-list > li >> nth=0")
    ming.wait_for_selector("dialog.player-card[open]")
    card = ming.inner_text("dialog.player-card")
    assert "小明" in card and "本月在「周末牌友会」的战绩" in card and "局数" in card
    shot(ming, "player_card", full=False)
    ming.click("dialog.player-card .player-card-close")
    ming.wait_for_selector("dialog.player-card", state="detached")  # (the close event comes a task later)
    # His 战绩, from the site menu: last night's session, his result and each hand's replay link.
    ming.goto(f"{base}/")
    open_menu(ming)
    ming.click("#site-menu a[href='/tables/record/']")
    ming.wait_for_selector(f".record-session[data-table='{server['last_night']}']")
    session = " ".join(ming.text_content(f".record-session[data-table='{server['last_night']}']").split())
    assert "昨晚一桌" in session and "成绩 +10" in session and "第 1 局 +5" in session and "第 2 局 +5" in session
    assert ming.locator(f".record-session[data-table='{server['last_night']}'] a.record-hand").count() == 2
    assert_no_overflow(ming)
    shot(ming, "record")

    # 2. The owner writes the 公告 on the club page.
    owner = sign_in(browser, base, "tl0")
    owner.click(f"a[href='/clubs/{club}/']")
    owner.click("#announcement summary")
    owner.fill("#announcement-input", "今晚八点开赛，<b>准时</b>到！")
    owner.click("#announcement button[type=submit]")
    owner.wait_for_selector(".msg-success")
    assert owner.inner_text(".announcement-text") == "今晚八点开赛，<b>准时</b>到！"  # plain text, escaped
    assert owner.locator("#announcement-toast").count() == 0  # the writer is not told his own words
    shot(owner, "owner_announcement")
    # On a practice table in play, the board's seat heads open the cards: a bot's, then his own.
    owner.check("input[name=practice]")
    owner.click("form.open-table button[type=submit]")
    owner.wait_for_selector("#waiting:not([hidden]) .act-ready")
    owner.click("#waiting .act-ready")
    owner.wait_for_function("() => window.tableApp.state && window.tableApp.state.stage === 'hand'")
    owner.click("#opponents [data-seat] .avatar >> nth=0")
    owner.wait_for_selector("dialog.player-card[open]")
    assert "机器人" in owner.inner_text("dialog.player-card")
    owner.keyboard.press("Escape")
    owner.click("#mine .seat-name")
    owner.wait_for_selector("dialog.player-card[open] .player-card-record")
    assert "东家" in owner.inner_text("dialog.player-card")
    shot(owner, "player_card_in_play", full=False)
    owner.keyboard.press("Escape")

    # 3. 小芳's next visit pops it up once.
    fang = sign_in(browser, base, "tl2")
    fang.click(f"a[href='/clubs/{club}/']")
    fang.wait_for_selector("#announcement-toast")
    assert "今晚八点开赛，<b>准时</b>到！" in fang.inner_text("#announcement-toast")
    assert_no_overflow(fang)
    shot(fang, "announcement_toast", full=False)
    fang.click("#announcement-toast [data-toast-close]")
    assert fang.locator("#announcement-toast").count() == 0
    fang.reload()
    fang.wait_for_selector(".announcement-text")
    assert fang.locator("#announcement-toast").count() == 0  # once only

    # 4. She types a wrong number, then the table's, in the club page's box.
    fang.fill("#table-number-input", "12")
    fang.click("#table-number button[type=submit]")
    fang.wait_for_selector(".msg-error")
    assert "桌号是六位数字" in fang.inner_text(".msg-error")
    assert fang.url.rstrip("/").endswith(f"/clubs/{club}")
    shot(fang, "number_wrong")
    for label, (w, h) in (("landscape", (844, 390)), ("desktop", (1280, 800))):
        fang.set_viewport_size({"width": w, "height": h})
        assert_no_overflow(fang)
        shot(fang, f"club_{label}", full=False)
    fang.set_viewport_size({"width": 390, "height": 844})
    fang.fill("#table-number-input", f"{code[:3]} {code[3:]}")
    shot(fang, "number_typed", full=False)
    fang.click("#table-number button[type=submit]")
    fang.wait_for_url(re.compile(rf"/tables/{table}/$"))
    fang.wait_for_selector("#waiting .seat-list > li")
    assert code in fang.inner_text("#table-code")
    shot(fang, "arrived", full=False)
    fang.click("#waiting .seat-list > li >> nth=0")  # a spectator member reads 小明's card too
    fang.wait_for_selector("dialog.player-card[open]")
    assert "小明" in fang.inner_text("dialog.player-card")
    fang.keyboard.press("Escape")

    # 5. A player of another club types the right number on the home page: told, and stays.
    outsider = sign_in(browser, base, "tl3")
    outsider.click("header a.brand")
    outsider.fill("#table-number-input", code)
    outsider.click("#table-number button[type=submit]")
    outsider.wait_for_selector(".msg-error")
    assert "没有找到这个桌号的牌桌" in outsider.inner_text(".msg-error")
    assert outsider.url.rstrip("/") == base
    shot(outsider, "outsider_refused")
    for page in (ming, owner, fang, outsider):
        page.context.close()
