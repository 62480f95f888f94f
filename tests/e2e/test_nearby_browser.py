"""Browser test of issue #47, "same network, close together", at 390×844 on the real server (the
last state also at 844×390 and on a desktop, 1280×800):

- 张三 and 李四 signed in from one address (the live server sees 127.0.0.1 for both): at their
  waiting table both read "张三 和 李四 最近在同一网络登录", on the panel and in the table's info
  (规则) panel; the club's owner looking at the table sees nothing of it;
- each taps 共享位置 with a geolocation override 50 m apart: both then read 距离很近（100米内）,
  never a number of metres;
- 张三 taps 李四's seat (his line in the waiting room; sideways, his avatar on the board): the
  player card says, in the warning's words, that the two of them share a network and are very
  close; the owner's card of 李四 says nothing of it;
- at 844×390 the warning sits beside the waiting room, and at both other sizes nothing covers it,
  its 共享位置 or 准备.

Screenshots: /tmp/shots/r-net/nearby_*.png (and test-output/). Skips when chromium or Playwright is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.e2e.browser import PASSWORD, assert_in_view, assert_no_overflow, assert_on_top, sign_in
from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
SHOTS = [Path("/tmp/shots/r-net"), ROOT / "test-output"]

pytestmark = pytest.mark.e2e

SEED = club_script(
    club="同城牌友会", users=[("nb0", "东家"), ("nb1", "张三"), ("nb2", "李四")],
    password=PASSWORD, members=[1, 2],
    templates=[dict(name="三人全名堂", preset="full", players=3, hands_per_session=2, turn_seconds=15)],
)

OPEN_TABLE = """
from apps.accounts.models import User
from apps.clubs.models import RuleTemplate
from apps.tables.verbs import services
table = services.table_open(user=User.objects.get(username="nb1"), template=RuleTemplate.objects.get(name="三人全名堂"))
services.table_join(user=User.objects.get(username="nb2"), table_id=table.pk)
print(table.pk)
"""

HOME = {"latitude": 28.228000, "longitude": 112.938800}
FIFTY_M_EAST = {"latitude": 28.228000, "longitude": 112.939310}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_nearby") / "nearby.sqlite3"
    with serve(db, SEED) as (url, club, shell):
        yield {"url": url, "club": int(club), "table": int(shell(OPEN_TABLE))}


def shot(page, name: str, full: bool = False) -> None:
    for out in SHOTS:
        out.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out / f"nearby_{name}.png"), full_page=full)


def share_at(page, where: dict) -> None:
    page.context.set_geolocation(where)
    page.context.grant_permissions(["geolocation"])
    page.click("#nearby .nearby-share")
    page.wait_for_function("() => document.querySelector('#nearby .nearby-note').textContent === '已共享位置'")


def test_same_network_and_close_together(server, browser):
    base, table = server["url"], server["table"]
    zhang = sign_in(browser, base, "nb1")
    li = sign_in(browser, base, "nb2")
    owner = sign_in(browser, base, "nb0")
    warning = "张三 和 李四 最近在同一网络登录"

    for page in (zhang, li):
        page.goto(f"{base}/tables/{table}/")
        page.wait_for_selector("#nearby .nearby-line")
        assert page.inner_text("#nearby .nearby-line") == warning
        assert page.is_visible("#waiting")
        assert "127.0.0.1" not in page.inner_text("body")
        assert_no_overflow(page)
    shot(zhang, "waiting_same_network")

    # The table's info panel (规则) holds it too.
    zhang.click("details.rules summary")
    zhang.wait_for_selector("#nearby-info .nearby-line")
    assert warning in zhang.inner_text("#nearby-info")
    shot(zhang, "info_panel")
    zhang.click("details.rules summary")

    # The owner looks at the table from outside: nothing of it reaches him.
    owner.goto(f"{base}/tables/{table}/")
    owner.wait_for_selector("#waiting .seat-list > li")
    assert owner.is_hidden("#nearby")
    assert owner.evaluate("() => 'nearby' in window.tableApp.state") is False
    assert "同一网络" not in owner.inner_text("body")

    # 共享位置: two phones 50 m apart; both read the class, never metres.
    share_at(zhang, HOME)
    share_at(li, FIFTY_M_EAST)
    for page in (zhang, li):
        page.wait_for_function("() => document.querySelector('#nearby').textContent.includes('距离很近（100米内）')")
        text = page.inner_text("#nearby")
        assert "张三 和 李四 距离很近（100米内）" in text and warning in text
        assert not re.search(r"\d+(\.\d+)?\s*(米|m)\b(?!内)", text.replace("100米内", ""))
    shot(li, "close_together")
    assert "距离" not in owner.inner_text("body")

    # The player card: 张三 taps 李四's seat (the waiting room's list: seat 1). The warning's own
    # words about the two of them, in one line; the owner's card of 李四 has none of it.
    zhang.click("#waiting .seat-list > li >> nth=1")
    zhang.wait_for_selector("dialog.player-card[open] .player-card-nearby")
    assert "李四" in zhang.inner_text("dialog.player-card .player-card-name")
    line = zhang.inner_text("dialog.player-card .player-card-nearby")
    assert line == f"{warning} · 张三 和 李四 距离很近（100米内）"
    assert not re.search(r"\d+(\.\d+)?\s*(米|m)\b(?!内)", line.replace("100米内", ""))
    assert_in_view(zhang.locator("dialog.player-card"))
    shot(zhang, "player_card")
    owner.click("#waiting .seat-list > li >> nth=1")
    owner.wait_for_selector("dialog.player-card[open] .player-card-record")
    card = owner.inner_text("dialog.player-card")
    assert "李四" in card and "同一网络" not in card and "距离" not in card
    assert owner.locator("dialog.player-card .player-card-nearby").count() == 0
    owner.keyboard.press("Escape")
    zhang.keyboard.press("Escape")
    zhang.wait_for_selector("dialog.player-card", state="detached")

    # The other sizes, once at the end: the warning and the card fit a phone held sideways and a desktop.
    for label, (w, h) in (("landscape", (844, 390)), ("desktop", (1280, 800))):
        zhang.set_viewport_size({"width": w, "height": h})
        assert warning in zhang.inner_text("#nearby")
        for part in ("#nearby .nearby-line >> nth=0", "#nearby .nearby-share", "#waiting .act-ready"):
            assert_on_top(zhang.locator(part))  # the warning, its button and the room's 准备, none covered
        assert_no_overflow(zhang)
        shot(zhang, f"close_together_{label}")
        # Sideways, 李四's avatar on the board is in sight beside the waiting room: tap it there.
        seat = zhang.locator("[data-seat='1'] .avatar" if label == "landscape" else "#waiting .seat-list > li >> nth=1")
        assert_on_top(seat)
        seat.click()
        zhang.wait_for_selector("dialog.player-card[open] .player-card-nearby")
        assert "李四" in zhang.inner_text("dialog.player-card .player-card-name")
        assert_in_view(zhang.locator("dialog.player-card"))
        assert_no_overflow(zhang)
        shot(zhang, f"player_card_{label}")
        zhang.keyboard.press("Escape")
        zhang.wait_for_selector("dialog.player-card", state="detached")
    for page in (zhang, li, owner):
        page.context.close()
