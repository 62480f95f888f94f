"""Browser test of issue #47, invitations and reminders, on the real server (Daphne with its
in-process beat) at 390×844 portrait, 844×390 landscape and a desktop:

- 李四 is on the club page; 张三, seated at his waiting table, opens 邀请: 李四 is listed (online),
  王五 (never signed in) is not; 张三 invites him; 李四's club page shows the toast 张三 邀请你…
  with 加入, and 加入 seats him at the table (the waiting panel names him, 准备 is his); the
  dialog, the toast and the seated page are each also looked at held sideways and on a desktop
  (in sight, uncovered, no overflow), not replayed;
- the club page keeps itself true: 东家 watching it sees 王五's new table and 赵六's join request
  (the pending count) come without a reload, and so does his open requests page (赵六 listed);
- dispute pages keep themselves true: the 申诉 tab's count, the managers' list, a dispute's own page
  (another judge's review and answer) and the filer's 我的申诉;
- a match reminder (check-in opens), sent by the beat job start_due_matches, appears on 李四's page
  as a toast and in the bell's count; the bell's list shows it, and opening it clears the count.

Screenshots: /tmp/shots/r-bell/bell_*.png (and test-output/). Skips when chromium or Playwright is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.browser import PASSWORD, assert_in_view, assert_no_overflow, assert_on_top, sign_in
from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
OTHER_SIZES = (("landscape", (844, 390)), ("desktop", (1280, 800)))
SHOTS = [Path("/tmp/shots/r-bell"), ROOT / "test-output"]

pytestmark = pytest.mark.e2e

SEED = club_script(
    club="湘西牌友会", users=[("bl0", "东家"), ("bl1", "张三"), ("bl2", "李四"), ("bl3", "王五"), ("bl4", "赵六")],
    password=PASSWORD, members=[1, 2, 3], credit=1000,
    templates=[dict(name="三人全名堂", preset="full", players=3, hands_per_session=2, turn_seconds=15)],
)

OPEN_TABLE = """
from apps.accounts.models import User
from apps.clubs.models import RuleTemplate
from apps.tables.verbs import services
table = services.table_open(user=User.objects.get(username="bl1"), template=RuleTemplate.objects.get(name="三人全名堂"))
print(table.pk)
"""

# A match 李四 registered for; its check-in opens in an hour (the test moves it to "now").
MAKE_MATCH = """
from datetime import timedelta
from django.utils import timezone
from apps.accounts.models import User
from apps.clubs.models import Club, RuleTemplate
from apps.matches import services
club = Club.objects.get(name="湘西牌友会")
match = services.match_create(club=club, by=club.owner, name="周末赛", template=RuleTemplate.objects.get(name="三人全名堂"),
    format="fixed", starts_at=timezone.now() + timedelta(hours=3), min_entrants=3, max_entrants=60, entry_fee=100,
    prize_scheme={"kind": "percent", "percents": [50, 30, 20]}, hands_per_round=1, rounds=2)
services.register(match=match, user=User.objects.get(username="bl2"))
print(match.pk)
"""

OPEN_CHECKIN = """
from datetime import timedelta
from django.utils import timezone
from apps.matches.models import Match
Match.objects.filter(pk={pk}).update(checkin_opens_at=timezone.now() - timedelta(seconds=1))
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_bell") / "bell.sqlite3"
    with serve(db, SEED) as (url, club, shell):
        yield {"url": url, "club": int(club), "table": int(shell(OPEN_TABLE)), "shell": shell}


def shot(page, name: str, full: bool = False) -> None:
    for out in SHOTS:
        out.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out / f"bell_{name}.png"), full_page=full)


def at_other_sizes(page, name: str, *selectors: str) -> None:
    """The page as it stands, held sideways and on a desktop: the parts named are in sight and
    uncovered, nothing overflows; then back to 390×844 for the rest of the test."""
    for label, (w, h) in OTHER_SIZES:
        page.set_viewport_size({"width": w, "height": h})
        for selector in selectors:
            assert_on_top(page.locator(selector).first)
        assert_no_overflow(page)
        shot(page, f"{name}_{label}")
    page.set_viewport_size({"width": 390, "height": 844})


def live(page) -> None:
    """Wait until the page's own socket said hello (the bell knows its count)."""
    page.wait_for_selector("[data-live-bell][data-unread]", state="attached")


def test_an_invitation_reaches_a_member_on_the_club_page_and_seats_him(server, browser):
    base, table = server["url"], server["table"]
    li = sign_in(browser, base, "bl2")
    li.goto(f"{base}/clubs/{server['club']}/")
    live(li)
    zhang = sign_in(browser, base, "bl1")
    zhang.goto(f"{base}/tables/{table}/")
    live(zhang)
    zhang.click("#waiting .act-invite")
    zhang.wait_for_selector(".invite-dialog .invite-member")
    names = zhang.locator(".invite-dialog .invite-name").all_inner_texts()
    assert names == ["李四"]  # online; 王五 never signed in, 东家 neither, 张三 is at the table
    shot(zhang, "invite_dialog")
    assert_in_view(zhang.locator(".invite-dialog"))
    at_other_sizes(zhang, "invite_dialog", ".invite-dialog .invite-name", ".invite-dialog .invite-send")
    zhang.click(".invite-dialog .invite-send")
    zhang.wait_for_function("() => document.querySelector('.invite-status').textContent === '已邀请 李四。'")
    assert zhang.locator(".invite-dialog .invite-send").inner_text() == "已邀请"

    toast = li.locator(".notice-toast").first
    toast.wait_for()
    assert toast.locator("p").inner_text().startswith("张三 邀请你到 湘西牌友会 的 ")
    assert toast.locator("button[type=submit]").inner_text() == "加入"
    assert li.locator(".bell-count").inner_text() == "1"
    assert_no_overflow(li)
    shot(li, "invite_toast")
    assert_on_top(toast.locator("button[type=submit]"))
    at_other_sizes(li, "invite_toast", ".notice-toast p", ".notice-toast button[type=submit]", ".bell-count")
    toast.locator("button[type=submit]").click()
    li.wait_for_url(f"{base}/tables/{table}/")
    li.wait_for_selector("#waiting .act-ready")  # seated: 准备 is his to press
    assert "李四" in li.locator("#waiting .seat-list").inner_text()
    shot(li, "invite_seated")
    at_other_sizes(li, "invite_seated", "#waiting .act-ready", "#waiting .seat-list > li >> nth=1")
    zhang.context.close()
    li.context.close()


MAKE_INVITE = """
from apps.clubs.models import Club
from apps.clubs.services import invite_create
club = Club.objects.get(name="湘西牌友会")
print(invite_create(club=club, by=club.owner).code)
"""


def test_the_club_page_updates_without_a_reload(server, browser):
    base, club = server["url"], server["club"]
    owner = sign_in(browser, base, "bl0")
    owner.goto(f"{base}/clubs/{club}/")
    live(owner)
    owner.evaluate("() => { window.notReloaded = true; }")
    assert owner.locator("[data-pending-link] .count").is_hidden()
    wang = sign_in(browser, base, "bl3")
    wang.goto(f"{base}/clubs/{club}/")
    wang.click("form.open-table button[type=submit]")
    wang.wait_for_url(f"{base}/tables/*/")
    owner.wait_for_function("() => [...document.querySelectorAll('#open-tables .card')].some((c) => c.textContent.includes('王五'))")
    # 东家 also has the club's requests page open (a second tab): no request yet.
    requests = owner.context.new_page()
    requests.goto(f"{base}/clubs/{club}/requests/")
    live(requests)
    requests.evaluate("() => { window.notReloaded = true; }")
    assert requests.locator("#join-requests .join-request").count() == 0
    assert requests.locator("[data-pending-link] .count").is_hidden()
    code = server["shell"](MAKE_INVITE)
    zhao = sign_in(browser, base, "bl4")
    zhao.goto(f"{base}/clubs/join/{code}/")
    zhao.click("main form button[type=submit]")
    zhao.wait_for_load_state()
    owner.wait_for_function("() => document.querySelector('[data-pending-link] .count').textContent === '1'")
    assert owner.locator("[data-pending-link] .count").is_visible()
    assert owner.evaluate("() => window.notReloaded") is True
    assert_no_overflow(owner)
    shot(owner, "club_live", full=True)
    # The requests page lists 赵六 with his 通过 / 拒绝, its tab's count says 1: no reload.
    requests.locator(".notice-toast", has_text="赵六 申请加入 湘西牌友会").wait_for(timeout=15000)
    requests.wait_for_selector("#join-requests .join-request")
    assert "赵六" in requests.locator("#join-requests .join-request").inner_text()
    assert requests.locator("#join-requests .join-request form[action$='/approve/'] button").is_visible()
    requests.wait_for_function("() => document.querySelector('[data-pending-link] .count').textContent === '1'")
    assert requests.locator("[data-pending-link] .count").is_visible()
    assert requests.evaluate("() => window.notReloaded") is True
    assert_no_overflow(requests)
    shot(requests, "requests_live", full=True)
    requests.close()
    # 东家 approves: 赵六's open 我的俱乐部 page shows the club, and his request answered, without a reload.
    zhao.goto(f"{base}/clubs/")
    live(zhao)
    zhao.evaluate("() => { window.notReloaded = true; }")
    assert "湘西牌友会" not in zhao.locator("#my-club-list").inner_text()
    owner.click("[data-pending-link]")
    owner.click(".join-request form[action$='/approve/'] button")
    zhao.locator(".notice-toast", has_text="你已加入 湘西牌友会").wait_for(timeout=15000)
    zhao.wait_for_function("() => document.querySelector('#my-club-list').textContent.includes('湘西牌友会')")
    assert "已通过" in zhao.locator("#my-join-requests").inner_text()
    assert zhao.evaluate("() => window.notReloaded") is True
    assert_no_overflow(zhao)
    shot(zhao, "join_approved_live", full=True)
    for page in (owner, wang, zhao):
        page.context.close()


def test_a_match_reminder_appears_as_a_toast_and_in_the_bell(server, browser):
    base, shell = server["url"], server["shell"]
    match = int(shell(MAKE_MATCH))
    li = sign_in(browser, base, "bl2")
    li.goto(f"{base}/clubs/{server['club']}/")
    live(li)
    before = int(li.locator("[data-live-bell]").get_attribute("data-unread"))
    shell(OPEN_CHECKIN.format(pk=match))  # the beat (every 5 s) finds the check-in open and tells him once
    toast = li.locator(".notice-toast", has_text="周末赛 开始签到了")
    toast.wait_for(timeout=20000)
    assert toast.locator("a").inner_text() == "签到" and toast.locator("a").get_attribute("href") == f"/matches/{match}/"
    assert li.locator(".bell-count").inner_text() == str(before + 1)
    assert_no_overflow(li)
    shot(li, "reminder_toast")
    li.wait_for_timeout(6000)  # another beat round: still one toast, one more in the count
    assert li.locator(".notice-toast", has_text="周末赛").count() == 1
    assert li.locator(".bell-count").inner_text() == str(before + 1)

    li.click("[data-live-bell]")
    li.wait_for_url(f"{base}/accounts/notices/")
    items = li.locator(".notice-item")
    assert "周末赛 开始签到了" in items.first.inner_text() and "新" in items.first.inner_text()
    assert items.count() == before + 1
    assert_no_overflow(li)
    shot(li, "bell_list", full=True)
    live(li)
    assert li.locator(".bell-count").is_hidden()  # opened: read
    li.reload()
    live(li)
    assert "新" not in li.locator(".notice-item").first.inner_text()

    wide = sign_in(browser, base, "bl2", size=(844, 390))
    wide.goto(f"{base}/accounts/notices/")
    live(wide)
    assert_no_overflow(wide)
    shot(wide, "bell_list_landscape")
    desk = sign_in(browser, base, "bl2", size=(1280, 800), scale=1)
    desk.goto(f"{base}/clubs/{server['club']}/")
    live(desk)
    shot(desk, "desktop_header")
    for page in (li, wide, desk):
        page.context.close()


# A finished hand of 张三, 李四 and 王五 (the owner, 东家, did not play in it: he may judge it), and
# the club's admin 钱七 (another judge).
PLAYED_HAND = f"""
import random
from apps.accounts.models import User
from apps.clubs.models import Club, Membership
from tests.replays.audit.helpers import TableWriter, days_ago, honest
club = Club.objects.get(name="湘西牌友会")
admin = User.objects.create_user(username="bl5", password="{PASSWORD}", display_name="钱七")
Membership.objects.create(club=club, user=admin, role="admin")
users = [User.objects.get(username=u) for u in ("bl1", "bl2", "bl3")]
print(TableWriter(club, users, start=days_ago(1), name="争议桌").play([honest] * 3, "live", random.Random(5)).pk)
"""


def test_dispute_pages_tell_the_truth_without_a_reload(server, browser):
    """李四 files a dispute: 东家's open dispute list shows it (and a toast), and the 申诉 tab's count,
    without a reload; the admin 钱七 takes it up and answers it: 东家's open page of that dispute says
    so, the tab's count goes, and the answer appears on 李四's open 我的申诉 page, without a reload."""
    base, club = server["url"], server["club"]
    hand = int(server["shell"](PLAYED_HAND))
    owner = sign_in(browser, base, "bl0")
    owner.goto(f"{base}/audit/clubs/{club}/disputes/")
    live(owner)
    owner.evaluate("() => { window.notReloaded = true; }")
    assert owner.locator("#club-disputes [data-dispute]").count() == 0
    assert owner.locator("#nav-disputes [data-testid=open-disputes]").count() == 0
    li = sign_in(browser, base, "bl2")
    li.goto(f"{base}/audit/disputes/new/{hand}/")
    li.check("input[name=kind][value=score]")
    li.fill("textarea[name=reason]", "最后一张牌的胡息算少了")
    li.click("main form button[type=submit]")
    li.wait_for_url(f"{base}/audit/disputes/")
    live(li)
    li.evaluate("() => { window.notReloaded = true; }")
    assert li.locator("[data-dispute]").count() == 1 and li.locator("[data-testid=outcome]").count() == 0

    toast = owner.locator(".notice-toast", has_text="李四 对牌桌争议桌第 1 局提出了申诉")
    toast.wait_for(timeout=15000)
    owner.wait_for_selector("#club-disputes [data-dispute]")
    assert "最后一张牌的胡息算少了" in owner.locator("#club-disputes").inner_text()
    owner.wait_for_selector("#nav-disputes [data-testid=open-disputes]")
    assert owner.locator("#nav-disputes [data-testid=open-disputes]").inner_text() == "1"
    assert owner.evaluate("() => window.notReloaded") is True
    assert_no_overflow(owner)
    shot(owner, "dispute_filed_live", full=True)

    # 东家 opens the dispute's page; 钱七, another judge, takes it up there.
    dispute_url = base + owner.locator("#club-disputes [data-dispute] a[href*='/disputes/']").first.get_attribute("href")
    detail = owner.context.new_page()
    detail.goto(dispute_url)
    live(detail)
    detail.evaluate("() => { window.notReloaded = true; }")
    assert "钱七" not in detail.locator("#dispute-facts").inner_text()
    judge = sign_in(browser, base, "bl5")
    judge.goto(dispute_url)
    judge.click("form[action$='/review/'] button[type=submit]")
    judge.wait_for_load_state()
    detail.locator(".notice-toast", has_text="钱七 正在处理牌桌争议桌第 1 局的申诉").wait_for(timeout=15000)
    detail.wait_for_function("() => document.querySelector('#dispute-facts').textContent.includes('由 钱七 审核')")
    assert detail.locator("#dispute-actions form[action$='/review/']").count() == 0  # in review: no 开始审核
    owner.wait_for_selector("#nav-disputes [data-testid=open-disputes]", state="detached")  # none open now
    judge.fill("textarea[name=outcome]", "看了回放，胡息没有算错")
    judge.click("form[action$='/resolve/'] button[type=submit]")
    judge.wait_for_load_state()
    detail.wait_for_selector("#dispute-facts [data-testid=outcome]", timeout=15000)
    assert detail.locator("#dispute-facts [data-testid=outcome]").inner_text() == "看了回放，胡息没有算错"
    assert detail.locator("#dispute-actions form[action$='/resolve/']").count() == 0  # answered: no form
    assert detail.evaluate("() => window.notReloaded") is True
    assert owner.evaluate("() => window.notReloaded") is True
    assert_no_overflow(detail)
    shot(detail, "dispute_resolved_detail_live", full=True)
    li.wait_for_selector("[data-testid=outcome]", timeout=15000)
    assert li.locator("[data-testid=outcome]").inner_text() == "看了回放，胡息没有算错"
    assert li.locator(".notice-toast", has_text="申诉有了答复").count() == 1
    assert li.evaluate("() => window.notReloaded") is True
    assert_no_overflow(li)
    shot(li, "dispute_answered_live", full=True)
    for page in (owner, li, judge):
        page.context.close()  # (the detail page closes with 东家's context)
