"""Browser test of issue #47, 快捷语 and reactions, on the real server with three players in a hand
and the club's owner watching:

- 张三 (390×844 portrait) opens the 💬 sheet and taps 快点吧，等得花儿都谢了: the bubble shows by his
  seat for 李四 (844×390 landscape), 王五 (desktop) and the watching owner, and by his own seat on
  his page; on no page does it cover the viewer's own hand or the action buttons; it goes after
  a few seconds;
- the owner, a spectator, is offered no phrase (only the switch that hides them), and a phrase
  his page sends anyway is refused (你不在这张牌桌上);
- 李四 hides the others' phrases (kept after a reload): 王五's 👍 then shows to 张三, not to 李四;
- the owner reads them all, newest first, under 快捷语记录.

Screenshots: /tmp/shots/r-phrase/phrase_*.png (and test-output/). Skips when chromium or Playwright
is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.browser import PASSWORD, assert_no_overflow, sign_in
from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
SHOTS = [Path("/tmp/shots/r-phrase"), ROOT / "test-output"]

pytestmark = pytest.mark.e2e

SEED = club_script(
    club="快乐牌友会", users=[("ph0", "东家"), ("ph1", "张三"), ("ph2", "李四"), ("ph3", "王五")],
    password=PASSWORD, members=[1, 2, 3],
    templates=[dict(name="三人全名堂", preset="full", players=3, hands_per_session=2, turn_seconds=300,
                    claim_seconds=120)],
)

# A hand in play: 张三 opens (seat 0), 李四 and 王五 join (seats 1, 2), everyone ready.
OPEN_TABLE = """
from apps.accounts.models import User
from apps.clubs.models import RuleTemplate
from apps.tables.verbs import services
users = [User.objects.get(username=u) for u in ("ph1", "ph2", "ph3")]
table = services.table_open(user=users[0], template=RuleTemplate.objects.get(name="三人全名堂"))
for user in users[1:]:
    services.table_join(user=user, table_id=table.pk)
for user in users:
    services.seat_ready(user=user, table_id=table.pk)
print(table.pk)
"""

HURRY = "快点吧，等得花儿都谢了"

# Where a seat's bubble is on this page: its box, the sender's seat head (or my own seat's row),
# and whether it overlaps my hand's cards or the action buttons.
BUBBLE = """(seat) => {
  const el = document.querySelector(`#phrase-layer .phrase-bubble[data-seat="${seat}"]`);
  if (!el) return null;
  const b = el.getBoundingClientRect();
  const box = (r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom });
  const over = (sel) => [...document.querySelectorAll(sel)].some((x) => {
    const r = x.getBoundingClientRect();
    return r.width > 0 && !(r.right <= b.left || r.left >= b.right || r.bottom <= b.top || r.top >= b.bottom);
  });
  const st = window.tableApp.state;
  const anchor = st.me === seat ? document.querySelector("#mine .my-info")
    : document.querySelector(`#felt .opponent[data-seat="${seat}"] .seat-head`);
  return { text: el.textContent, bubble: box(b), seat: anchor && box(anchor.getBoundingClientRect()),
           overHand: over(".my-hand .card"), overActions: over("#actions button") };
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_phrases") / "phrases.sqlite3"
    with serve(db, SEED) as (url, club, shell):
        yield {"url": url, "club": int(club), "table": int(shell(OPEN_TABLE))}


def shot(page, name: str) -> None:
    for out in SHOTS:
        out.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out / f"phrase_{name}.png"))


def at_table(page, base: str, table: int) -> None:
    page.goto(f"{base}/tables/{table}/")
    page.wait_for_function("() => window.tableApp && window.tableApp.state && window.tableApp.state.stage === 'hand'")
    page.wait_for_selector("#phrase-btn:not([hidden])")


def bubble(page, seat: int) -> dict:
    page.wait_for_selector(f"#phrase-layer .phrase-bubble[data-seat='{seat}']")
    return page.evaluate(BUBBLE, seat)


def assert_by_seat(found: dict, text: str) -> None:
    assert found["text"] == text
    assert not found["overHand"] and not found["overActions"], found
    b, s = found["bubble"], found["seat"]
    assert s is not None
    assert b["left"] < s["right"] and b["right"] > s["left"], found  # side by side with the seat
    assert min(abs(b["top"] - s["bottom"]), abs(s["top"] - b["bottom"])) < 16, found  # just under or above it


def test_phrase_shows_by_the_senders_seat_and_a_spectator_cannot_send(server, browser):
    base, table = server["url"], server["table"]
    zhang = sign_in(browser, base, "ph1")
    li = sign_in(browser, base, "ph2", size=(844, 390))
    wang = sign_in(browser, base, "ph3", size=(1280, 800), scale=1)
    owner = sign_in(browser, base, "ph0")
    pages = (zhang, li, wang, owner)
    for page in pages:
        at_table(page, base, table)

    # 张三 opens the sheet: six reactions, twelve phrases, the switch.
    zhang.click("#phrase-btn")
    zhang.wait_for_selector("#phrase-sheet:not([hidden]) .phrase-item")
    assert zhang.locator("#phrase-sheet .phrase-reaction").count() == 6
    assert zhang.locator("#phrase-sheet .phrase-item").count() == 12
    assert_no_overflow(zhang)
    shot(zhang, "sheet_portrait")
    zhang.click(f"#phrase-sheet .phrase-item:text-is('{HURRY}')")
    assert zhang.is_hidden("#phrase-sheet")
    # Everyone sees it by 张三's seat (his own page: above his seat), over no hand and no button.
    for page in (li, wang, owner, zhang):
        assert_by_seat(bubble(page, 0), HURRY)
    shot(li, "landscape_other")
    # It goes after a few seconds.
    li.wait_for_selector("#phrase-layer .phrase-bubble", state="detached", timeout=6000)

    # One screenshot per phrase (a bubble lasts 3 s): 李四's on 王五's desktop, 王五's for the
    # watching owner, 张三's own on his phone.
    for sender, seat, phrase, viewer, name in ((li, 1, "你的牌打得太好了", wang, "desktop_other"),
                                               (wang, 2, "今天手气真好", owner, "spectator_sees"),
                                               (zhang, 0, "这把我要胡了", zhang, "portrait_own")):
        sender.click("#phrase-btn")
        sender.click(f"#phrase-sheet .phrase-item:text-is('{phrase}')")
        assert_by_seat(bubble(viewer, seat), phrase)
        shot(viewer, name)

    # The owner watches: no phrase to send, only the switch; a phrase sent anyway is refused.
    owner.click("#phrase-btn")
    owner.wait_for_selector("#phrase-sheet:not([hidden]) .phrase-mute")
    assert owner.locator("#phrase-sheet .phrase-item, #phrase-sheet .phrase-reaction").count() == 0
    assert owner.inner_text("#phrase-sheet .phrase-note") == "只有入座的玩家才能发快捷语。"
    shot(owner, "spectator_sheet")
    owner.click("#phrase-btn")
    for page in (zhang, li, wang):  # the last phrases' bubbles go first (3 s each)
        page.wait_for_selector("#phrase-layer .phrase-bubble", state="detached", timeout=6000)
    owner.evaluate("() => window.tableApp.socket.send({type: 'phrase', phrase: 'bomb', id: 900001})")
    owner.wait_for_selector("#toast:not([hidden])")
    assert owner.inner_text("#toast") == "你不在这张牌桌上。"
    for page in (zhang, li, wang):
        page.wait_for_timeout(300)
        assert page.locator("#phrase-layer .phrase-bubble").count() == 0

    # 李四 hides the others' phrases, and it stays so after a reload.
    li.click("#phrase-btn")
    li.wait_for_selector("#phrase-sheet:not([hidden]) .phrase-item")
    assert_no_overflow(li)
    shot(li, "sheet_landscape")
    li.click("#phrase-sheet .phrase-mute")
    assert li.get_attribute("#phrase-sheet .phrase-mute", "aria-pressed") == "true"
    li.reload()
    at_table(li, base, table)
    assert "muted" in (li.get_attribute("#phrase-btn", "class") or "")
    wang.wait_for_timeout(3000)  # (his own limit: one every 3 s)
    wang.click("#phrase-btn")
    wang.click("#phrase-sheet .phrase-reaction[data-phrase='like']")
    assert_by_seat(bubble(zhang, 2), "👍")
    shot(zhang, "portrait_reaction")
    li.wait_for_timeout(1000)
    assert li.locator("#phrase-layer .phrase-bubble").count() == 0
    shot(li, "landscape_muted")

    # The owner reads who sent what under 快捷语记录 (a tab of the club's pages), newest first.
    owner.goto(f"{base}/clubs/{server['club']}/")
    owner.click("nav.club-tabs a:text-is('快捷语记录')")
    owner.wait_for_selector(".phrase-log .phrase-entry")
    rows = owner.locator(".phrase-log .phrase-entry").all_inner_texts()
    assert len(rows) == 5 and "王五" in rows[0] and "👍" in rows[0] and "张三" in rows[-1] and HURRY in rows[-1]
    assert "bomb" not in owner.content() and "💣" not in owner.inner_text("body")  # the refused one was not kept
    assert_no_overflow(owner)
    shot(owner, "manager_log")
    for page in pages:
        page.context.close()
