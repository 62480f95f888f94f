"""Browser test of 信息优势 (apps/replays/audit/fairplay.py, issue #44): a club admin opens the collusion
report, reads the 信息优势 column, asks for a player's score with the report's form, waits on the
fair-play page (the embedded, in-process Celery), reads its score, p in words and caution, and follows
a telling decision to the replay at that move, the player's seat at the bottom and his 复盘 chosen.
At 390x844 and 1280x800; screenshots in /tmp/shots/fairplay/. The engine's budget is small here
(FAIRPLAY_BUDGET_MS=5): the test checks the platform, not the figures.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from tests.e2e.browser import PASSWORD, assert_chinese, assert_no_overflow, sign_in  # noqa: E402

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/shots/fairplay")
ROOM = "二人一局"
SEED = club_script(
    club="信息俱乐部", users=[("fp_owner", "老板"), ("fp_player", "老王"), ("fp_other", "小李"), ("fp_admin", "管理员")],
    password=PASSWORD, members=[1, 2], admins=[3],
    templates=[dict(name=ROOM, preset="chenzhou", players=2, hands_per_session=1, turn_seconds=300)],
)
LABELS = ("fairplay-e2e-1", "fairplay-e2e-2", "fairplay-e2e-3")
VIEWPORTS = [("phone", (390, 844)), ("desktop", (1280, 800))]
CARD_ID = re.compile(r"\b[sb]\d{1,2}\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_fairplay") / "fairplay.sqlite3"
    with serve(db, SEED, FAIRPLAY_BUDGET_MS="5") as (url, club_id, shell):
        hands = [int(shell("from tests.e2e.seeds import seed_played_hand\n"
                           f"print(seed_played_hand(club_id={int(club_id)}, usernames=['fp_player', 'fp_other'], "
                           f"template={ROOM!r}, label={label!r}))")) for label in LABELS]
        yield {"url": url, "club": int(club_id), "hands": hands, "shell": shell}


def test_an_admin_asks_for_a_players_score_and_follows_a_hand_to_its_review(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    base, club = server["url"], server["club"]
    for n, (name, size) in enumerate(VIEWPORTS):
        page = sign_in(browser, base, "fp_admin", size=size)
        page.goto(f"{base}/audit/clubs/{club}/collusion/")
        pair = page.locator("tr.pair").first
        cell = pair.locator("[data-testid=fp-cell]")
        if n == 0:
            assert "老王：—" in cell.inner_text().replace(" ", "")  # not computed yet
            page.screenshot(path=str(SHOTS / f"collusion_{name}_before.png"), full_page=True)
            form = page.locator("[data-testid=fairplay-ask]")
            form.locator("select[name=user]").select_option(label="老王")
            form.locator("button[type=submit]").click()
            page.wait_for_url(re.compile(r"/fairplay/\d+/$"))
            page.wait_for_selector("#fairplay[data-status=done]", timeout=120000)
            page.goto(f"{base}/audit/clubs/{club}/collusion/")
            cell = page.locator("tr.pair").first.locator("[data-testid=fp-cell]")
        # The column: the player's latest score and its chance in words, linked to its page.
        text = cell.inner_text()
        assert "偶然出现的概率" in text, text
        assert_chinese(page.inner_text("main"))
        assert_no_overflow(page)
        page.screenshot(path=str(SHOTS / f"collusion_{name}.png"), full_page=True)
        page.locator("tr.pair").first.screenshot(path=str(SHOTS / f"collusion_{name}_row.png"))
        cell.locator("a").first.click()
        page.wait_for_selector("#fairplay[data-status=done]")
        main = page.inner_text("main")
        assert "这是供参考的统计证据，不是作弊的证明" in main and "偶然出现的概率" in main
        assert "关键决策" in main
        assert not CARD_ID.search(main), main
        assert_chinese(main)
        assert_no_overflow(page)
        page.screenshot(path=str(SHOTS / f"fairplay_{name}.png"), full_page=True)
        page.locator("[data-testid=fp-hand]").first.screenshot(path=str(SHOTS / f"fairplay_{name}_hand.png"))
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"fairplay_{name}_top.png"))
        # The parts in words up front; their z-scores and the formula behind the closed 技术细节 fold.
        tech = page.locator("details.tech[data-testid=fp-tech]")
        heads = page.locator("[data-testid=fp-parts] th").all_text_contents()
        assert "z" not in heads and "偶然性" in heads, heads
        assert "偶然出现的概率" in page.inner_text("[data-testid=fp-parts]")
        assert not tech.locator("ul").is_visible()
        tech.locator("summary").click()
        assert tech.locator("ul").is_visible() and "z =" in tech.inner_text()
        assert_no_overflow(page)
        tech.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"fairplay_{name}_tech.png"))
        # A telling decision, followed to the replay at that move with the player's seat chosen.
        step = page.locator("[data-testid=fp-step]").first
        href = step.get_attribute("href")
        match = re.search(r"/replays/hands/(\d+)/\?seat=(\d)#(\d+)$", href)
        assert match, href
        hand, seat, index = (int(x) for x in match.groups())
        assert hand in server["hands"]
        step.click()
        page.wait_for_function(f"() => window.replayApp && window.replayApp.step === {index}")
        assert page.eval_on_selector("#review-seat", "el => el.value") == str(seat)
        assert page.eval_on_selector("#bottom-seat", "el => el.value") == str(seat)
        page.screenshot(path=str(SHOTS / f"replay_{name}.png"), full_page=False)
        page.context.close()


# A request waiting for the review worker (made without running the task), then computed by a
# separate process while the page is open: the page's poll (static/js/audit/fairplay.js) reloads it.
WAITING = """
from datetime import date
from apps.accounts.models import User
from apps.replays.audit.models import FairPlayResult
user = User.objects.get(username="fp_other")
row = FairPlayResult.objects.create(club_id=__CLUB__, user=user, since=date(2020, 1, 1), until=date(2100, 1, 1),
                                    seed="fairplay:__CLUB__", budget_ms=5, max_hands=100)
print(row.pk)
"""


def test_the_page_waits_for_the_worker_and_shows_the_result_when_done(server, browser):
    base, club, shell = server["url"], server["club"], server["shell"]
    result = int(shell(WAITING.replace("__CLUB__", str(club))))
    page = sign_in(browser, base, "fp_admin", size=(390, 844))
    page.goto(f"{base}/audit/clubs/{club}/fairplay/{result}/")
    working = page.inner_text("[data-testid=working]")
    assert "完成后本页会自动刷新" in working, working
    assert_chinese(page.inner_text("main"))
    page.screenshot(path=str(SHOTS / "fairplay_phone_waiting.png"), full_page=True)
    assert shell("from apps.replays.audit.fairplay import fairplay_compute\n"
                 f"print(fairplay_compute(result_id={result}))") == "done"
    page.wait_for_selector("#fairplay[data-status=done]", timeout=20000)
    main = page.inner_text("main")
    assert "这是供参考的统计证据，不是作弊的证明" in main and "小李" in main
    assert_no_overflow(page)
    page.context.close()


def test_the_pair_page_offers_the_pairs_score(server, browser):
    base, club = server["url"], server["club"]
    for name, size in VIEWPORTS:
        page = sign_in(browser, base, "fp_admin", size=size)
        page.goto(f"{base}/audit/clubs/{club}/collusion/")
        page.locator("tr.pair").first.locator("td.head a").first.click()
        box = page.locator("[data-testid=pair-fairplay]")
        assert "按搭档计算" in box.inner_text()
        assert_chinese(page.inner_text("main"))
        assert_no_overflow(page)
        page.screenshot(path=str(SHOTS / f"pair_{name}.png"), full_page=True)
        page.context.close()
