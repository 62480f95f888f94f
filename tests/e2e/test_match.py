"""Browser test of a scheduled match: three players register and check in on the match page, the
test server's beat (tests/e2e/e2e_asgi.py runs the periodic runner inside Daphne) starts the match
and seats them, each page shows "go to my table" from its poll (no reload), they play the hand by
clicking (the deal is seeded with tests/e2e/seeds.py's WIN_SEED), and an admin watching the match
page sees the live standings change without a reload. Phone 390x844 first, one desktop shot;
screenshots land in test-output/match_*.png.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tests.e2e.browser import LATIN_WORD, PASSWORD, assert_no_overflow, play_step, sign_in
from tests.e2e.e2e_server import serve
from tests.e2e.seeds import WIN_SEED

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"
# The match is seeded to start in 10 minutes (check-in opens at once: the default window is the 10
# minutes before the start); once everyone has checked in, the clock "jumps": START moves the start
# (and the close of registration) to a few seconds from now, and the server's beat does the rest.
START_IN = 600

pytestmark = pytest.mark.e2e

SEED = """
from datetime import timedelta
from django.utils import timezone
from apps.accounts.models import User
from apps.clubs.models import Membership, RuleTemplate
from apps.clubs.services import club_create
from apps.ledgers.services import adjustment_create
from apps.matches import services
PASSWORD = "__PASSWORD__"
users = [User.objects.create_user(username=f"m2e{i}", password=PASSWORD, display_name=n)
         for i, n in enumerate(["老王", "小李", "阿张", "裁判"])]
club = club_create(name="跑胡子俱乐部", owner=users[0])
for u in users[1:3]:
    Membership.objects.create(club=club, user=u, role="member")
Membership.objects.create(club=club, user=users[3], role="admin")
for u in users[:3]:
    adjustment_create(club=club, member=Membership.objects.get(club=club, user=u), amount=100,
                      reason="e2e", by=users[0])
template = RuleTemplate.objects.create(club=club, name="全名堂三人", preset="full", players=3,
                                       hands_per_session=8, turn_seconds=300)
match = services.match_create(
    club=club, by=users[0], name="周六积分赛", description="三人一桌，一轮一局。", template=template,
    format="fixed", starts_at=timezone.now() + timedelta(seconds=__START_IN__), min_entrants=3,
    max_entrants=9, entry_fee=10, prize_scheme={"kind": "percent", "percents": [70, 30]},
    hands_per_round=1, rounds=1,
)
print(club.pk, match.pk)
""".replace("__PASSWORD__", PASSWORD).replace("__START_IN__", str(START_IN))


START = """
from datetime import timedelta
from django.utils import timezone
from apps.matches.models import Match
now = timezone.now()
Match.objects.filter(pk=__MATCH__).update(registration_closes_at=now + timedelta(seconds=1),
                                          starts_at=now + timedelta(seconds=3), checkin_opens_at=now)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_match") / "match.sqlite3"
    with serve(db, SEED, E2E_TABLE_SEEDS=WIN_SEED) as (url, seed, shell):
        club_id, match_id = (int(v) for v in seed.split())

        def start_soon():
            shell(START.replace("__MATCH__", str(match_id)))

        yield {"url": url, "club": club_id, "match": match_id, "start_soon": start_soon}


def sign_in_as(browser, base, username):
    page = sign_in(browser, base, username.replace("e2e", "m2e"))
    page.on("dialog", lambda dialog: dialog.accept())  # the data-confirm of register / withdraw
    return page


def assert_chinese(text: str) -> None:
    # Latin allowed on the match page: hex seeds, and the recompute command with its algorithm names.
    text = re.sub(r"[0-9a-f]{64}", "", text)
    words = [w for w in LATIN_WORD.findall(text) if w not in ("sha", "python", "apps", "matches", "seating",
                                                             "recompute", "players", "ids", "table", "size",
                                                             "seed", "RULES", "Fisher", "Yates")]
    assert not words, f"English on the zh-hans page: {words}"


def test_players_register_check_in_get_seated_play_and_watch_standings(server, browser):
    base, club, match_id = server["url"], server["club"], server["match"]
    match_url = f"{base}/matches/{match_id}/"
    players = [sign_in_as(browser, base, f"e2e{i}") for i in range(3)]
    referee = sign_in_as(browser, base, "e2e3")

    # The club page links to its matches; the list shows the match taking entries.
    owner = players[0]
    owner.goto(f"{base}/clubs/{club}/")
    owner.click(f"nav.tabs a[href$='/matches/clubs/{club}/']")
    owner.wait_for_selector("#matches-registering .match-card")
    assert "周六积分赛" in owner.text_content("#matches-registering")
    owner.screenshot(path=str(OUT / "match_00_list.png"), full_page=True)
    assert_no_overflow(owner)

    # An admin's create form: a bad prize split is refused with a clear error, on a phone.
    referee.goto(f"{base}/matches/clubs/{club}/new/")
    referee.screenshot(path=str(OUT / "match_09_form.png"), full_page=True)
    assert_no_overflow(referee)
    referee.fill("#id_name", "周日淘汰赛")
    referee.fill("#id_starts_at", time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() + 7200)))
    referee.select_option("#id_format", "knockout")
    assert referee.is_visible("#id_knockout_top") and not referee.is_visible("#id_points_by_rank")
    referee.fill("#id_prize_values", "50,30")
    referee.click("form.match-form button[type=submit]")
    referee.wait_for_selector(".field.has-error")
    assert "奖励百分比合计必须为 100（现在合计 80）" in referee.inner_text("form.match-form")
    referee.screenshot(path=str(OUT / "match_10_form_error.png"), full_page=True)

    for i, page in enumerate(players):
        page.goto(match_url)
        if i == 0:
            page.screenshot(path=str(OUT / "match_01_before_register.png"), full_page=True)
            text = page.inner_text("main")
            assert "报名中" in text and "距开赛" in text and "比赛分" in text and "报名先后" in text
            assert_chinese(text)
        page.click("#btn-register")
        page.wait_for_selector("#my-status")
        assert "已报名" in page.text_content("#my-status")
        page.click("#btn-check-in")
        page.wait_for_selector("#my-status")
        assert "已签到" in page.text_content("#my-status")
    owner.reload()
    owner.screenshot(path=str(OUT / "match_02_checked_in.png"), full_page=True)
    assert_no_overflow(owner)
    assert "老王" in owner.text_content("#entrants") and "阿张" in owner.text_content("#entrants")
    # the prize for the current number of entrants: 3 x 10 = 30 → 70% / 30%
    assert [a.strip() for a in owner.locator("#prizes .amount").all_text_contents()] == ["21", "9"]

    referee.goto(match_url)
    referee.evaluate("() => { window.__noReload = true; }")
    for page in players:
        page.evaluate("() => { window.__noReload = true; }")

    # The beat starts the match at its time; every player's poll shows "go to my table".
    server["start_soon"]()
    for page in players:
        page.wait_for_selector("#my-table-prompt:not([hidden])", timeout=45000)
        assert page.evaluate("() => window.__noReload === true"), "the prompt must come without a reload"
    owner.screenshot(path=str(OUT / "match_03_seated_prompt.png"))
    assert "第1桌" in owner.text_content("#my-table-prompt")
    assert "秒后带你前往第1桌" in owner.text_content("#move-count")
    referee.wait_for_function("() => window.matchApp && window.matchApp.data && window.matchApp.data.state === 'running'")
    assert referee.evaluate("() => window.__noReload === true")
    # No stale banner: the state badge and the standings follow by themselves.
    referee.wait_for_function("() => document.getElementById('match-state').textContent === '进行中'")
    assert referee.is_visible("#standings") and not referee.locator("#match-changed").count()
    # The round seatings and the revealed seed come too, without a reload.
    referee.wait_for_selector("#standings-body tr")
    referee.wait_for_selector("#seatings:not([hidden]) .seating")
    assert referee.locator("#seatings .seating").count() == 1
    assert len(referee.text_content("#seed").strip()) == 64
    assert referee.evaluate("() => window.__noReload === true")
    assert referee.is_hidden("#register-box"), "a running match has no entry box for someone not in it"
    before = referee.evaluate("() => [...document.querySelectorAll('#standings-body td.gp')].map((td) => td.textContent)")
    assert before == ["0", "0", "0"]
    referee.screenshot(path=str(OUT / "match_04_live_standings.png"), full_page=True)
    console_page = referee.context.new_page()
    console_page.goto(f"{match_url}console/")
    assert "暂停" in console_page.inner_text("#console-pause")
    console_page.screenshot(path=str(OUT / "match_11_console.png"), full_page=True)
    assert_no_overflow(console_page)
    console_page.close()

    # Each player is taken to his table by the page itself (a short countdown he could cancel).
    for page in players:
        page.wait_for_url("**/tables/*/", timeout=30000)
    for page in players:
        page.wait_for_function("() => window.tableApp && window.tableApp.state && window.tableApp.state.stage === 'hand'")
        page.set_default_timeout(3000)
    shot = False
    deadline = time.time() + 240
    while time.time() < deadline:
        stages = [p.evaluate("() => window.tableApp.state.stage") for p in players]
        if all(s in ("settle", "over") for s in stages):
            break
        acted = False
        for page in players:
            if play_step(page):
                acted = True
                page.wait_for_timeout(100)
                if not shot and page is owner:
                    owner.screenshot(path=str(OUT / "match_05_table.png"))
                    shot = True
        if not acted:
            players[0].wait_for_timeout(200)
    else:
        raise AssertionError("the hand did not end")

    for page in players:
        page.set_default_timeout(15000)
    # The referee's standings change without a reload: game points, then the final results.
    referee.wait_for_function(
        "() => [...document.querySelectorAll('#standings-body td.gp')].some((td) => td.textContent !== '0')",
        timeout=30000)
    referee.wait_for_function("() => window.matchApp.data.state === 'finished'", timeout=30000)
    assert referee.evaluate("() => window.__noReload === true"), "standings must update without a reload"
    after = referee.evaluate("() => [...document.querySelectorAll('#standings-body td.gp')].map((td) => Number(td.textContent))")
    assert sum(after) == 0 and max(after) > 0, after  # a win: the winner's points are the others' losses
    ranks = referee.evaluate("() => [...document.querySelectorAll('#standings-body td.rank')].map((td) => td.textContent)")
    assert ranks == ["1", "2", "3"]
    referee.screenshot(path=str(OUT / "match_06_standings_changed.png"), full_page=True)
    assert_no_overflow(referee)

    # The final results page, for the winner, on a phone and on a desktop.
    owner.goto(match_url)
    owner.wait_for_selector("#standings")
    assert "最终成绩" in owner.text_content("#standings")
    assert_chinese(owner.inner_text("main"))
    owner.screenshot(path=str(OUT / "match_07_final.png"), full_page=True)
    owner.set_viewport_size({"width": 1280, "height": 800})
    owner.screenshot(path=str(OUT / "match_08_final_desktop.png"), full_page=True)
    for page in [*players, referee]:
        page.context.close()
