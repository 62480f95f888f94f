"""Browser test of the 复盘 (apps/replays/review, static/js/replay/review.js): a player opens the replay
of a finished hand he played (a fixed deal played by random bots through the table services, so his
seat made known mistakes), asks for its review, waits for it (the embedded, in-process Celery), steps
to the next mistake and reads its numbers against the stored review; then the next viewport sees the
stored review at once. At 390x844, 844x390 and 1280x800; screenshots in /tmp/shots/r-review/.
The review's budget is small here (REVIEW_BUDGET_MS=5): the test checks the platform, not the figures.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from tests.e2e.browser import PASSWORD, assert_chinese, sign_in  # noqa: E402

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/shots/r-review")
ROOM = "二人一局"
SEED = club_script(
    club="复盘俱乐部", users=[("rv_player", "老王"), ("rv_other", "小李"), ("rv_admin", "管理员")], password=PASSWORD,
    members=[1], admins=[2],
    templates=[dict(name=ROOM, preset="chenzhou", players=2, hands_per_session=1, turn_seconds=300)],
)
# The deal sha256("review-e2e-3:0") played by random bots (random.Random("review-e2e-3")): as hand 1,
# reviewed at 5 nominal ms a decision, seat 0 (rv_player) has 17 decisions and 2 mistakes.
LABEL = "review-e2e-3"
VIEWPORTS = [("phone", (390, 844)), ("landscape", (844, 390)), ("desktop", (1280, 800))]
CARD_ID = re.compile(r"\b[sb]\d{1,2}\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_review") / "review.sqlite3"
    with serve(db, SEED, REVIEW_BUDGET_MS="5") as (url, club_id, shell):
        hand_id = shell("from tests.e2e.seeds import seed_played_hand\n"
                        f"print(seed_played_hand(club_id={int(club_id)}, usernames=['rv_player', 'rv_other'], "
                        f"template={ROOM!r}, label={LABEL!r}))")
        yield {"url": url, "club": int(club_id), "hand": int(hand_id)}


def stored_review(page, base: str, hand: int) -> dict:
    """The review as the page's poll reads it (the viewer's own seat)."""
    response = page.request.get(f"{base}/replays/hands/{hand}/review.json")
    assert response.ok
    return response.json()


def assert_fits(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth") <= page.evaluate("() => window.innerWidth")


def test_a_player_reviews_his_hand_and_steps_to_its_mistakes(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    base, hand = server["url"], server["hand"]
    for n, (name, size) in enumerate(VIEWPORTS):
        page = sign_in(browser, base, "rv_player", size=size)
        page.goto(f"{base}/replays/hands/{hand}/")
        page.wait_for_selector("#review")
        if n == 0:
            assert page.get_attribute("#review", "data-status") == "none"
            assert page.inner_text("#review-ask") == "复盘本局"
            page.click("#review-ask")
        # The first viewport asked for it (pending/running while the in-process task runs); the
        # others find the stored one at once.
        page.wait_for_selector("#review[data-status=done]", timeout=60000)
        review = stored_review(page, base, hand)
        assert review["status"] == "done" and review["seat"] == 0
        summary = review["review"]["summary"]
        mistakes = [d for d in review["review"]["decisions"] if d["mistake"]]
        assert summary["mistakes"] == len(mistakes) == 2

        # The summary: 一致率, points lost, mistakes.
        facts = page.inner_text("#review-summary")
        assert "一致率" in facts and "失误" in facts and "损失分数" in facts
        assert page.inner_text("#review-summary dd[data-key=mistakes]") == "2"
        assert page.inner_text("#review-summary dd[data-key=loss]") == f"{summary['loss']:.2f}"
        assert page.inner_text("#review-summary dd[data-key=agreement]") == f"{round(summary['agreement'] * 100)}%"

        # From the start, 下一个失误 goes to the first mistake, then to the second; 上一个失误 back.
        page.evaluate("() => window.replayApp.go(0)")
        for expected in mistakes:
            page.click("#review-next-mistake")
            page.wait_for_function(f"() => window.replayApp.step === {expected['index']}")
            panel = page.locator("#review-decision")
            assert panel.get_attribute("data-index") == str(expected["index"])
            assert "mistake" in (panel.get_attribute("class") or "")
            verdict = page.inner_text("#review-decision .review-verdict")
            assert verdict == f"失误：损失 {expected['loss']:.2f} 分", verdict
            assert len(page.query_selector_all("#review-decision .review-bar")) == len(expected["candidates"])
            evs = [float(x) for x in page.eval_on_selector_all("#review-decision .review-bar", "els => els.map(e => e.dataset.ev)")]
            assert evs == [c["ev"] for c in expected["candidates"]]
            chosen = page.locator("#review-decision .review-bar.chosen")
            assert chosen.count() == 1 and "mistake" in chosen.get_attribute("class")
            assert page.locator("#review-decision .review-bar.best").count() == 1
            text = page.inner_text("#review-decision")
            assert "实际选择" in text and "复盘推荐" in text
            assert not CARD_ID.search(text), text  # card names as the viewer shows them, never ids
            assert_chinese(text)
            # The step on the moves list is marked in red with what it cost.
            assert page.locator(f"#moves .move.review-mistake[data-k='{expected['index'] + 1}']").count() == 1
        page.screenshot(path=str(SHOTS / f"review_{name}_mistake.png"), full_page=False)
        page.click("#review-prev-mistake")
        page.wait_for_function(f"() => window.replayApp.step === {mistakes[0]['index']}")
        # A step that is no decision of the seat says so.
        shown = {k for d in review["review"]["decisions"] for k in (d["index"], d["index"] + 1)}
        elsewhere = min(k for k in range(1, 200) if k not in shown)
        page.evaluate(f"() => window.replayApp.go({elsewhere})")
        assert page.get_attribute("#review-decision", "data-index") == ""
        assert "决策处" in page.inner_text("#review-decision")
        assert "mistake" not in (page.get_attribute("#review-decision", "class") or "")
        assert_fits(page)
        page.locator("#review").screenshot(path=str(SHOTS / f"review_{name}_panel.png"))
        page.screenshot(path=str(SHOTS / f"review_{name}_full.png"), full_page=True)
        page.context.close()


def test_the_other_player_sees_only_his_own_seat_and_the_profile_trend(server, browser):
    base, hand = server["url"], server["hand"]
    page = sign_in(browser, base, "rv_other")
    # The other seat's review (seat 0) is not his: 404, as for a hand he may not see.
    assert page.request.get(f"{base}/replays/hands/{hand}/review.json?seat=0").status == 404
    own = page.request.get(f"{base}/replays/hands/{hand}/review.json").json()
    assert own["seat"] == 1 and "review" not in own
    page.goto(f"{base}/replays/hands/{hand}/")
    page.wait_for_selector("#review[data-status=none]")
    assert page.locator("#review-summary").is_hidden()
    page.context.close()

    # The reviewed player's profile: the weekly trend, drawn by uPlot (his review asked for if this
    # test runs alone).
    page = sign_in(browser, base, "rv_player")
    page.goto(f"{base}/replays/hands/{hand}/")
    page.wait_for_selector("#review:not([data-status=none]), #review-ask:enabled")
    if page.get_attribute("#review", "data-status") == "none":
        page.click("#review-ask")
    page.wait_for_selector("#review[data-status=done]", timeout=60000)
    page.context.close()
    for name, size in VIEWPORTS:
        page = sign_in(browser, base, "rv_player", size=size)
        page.goto(f"{base}/accounts/profile/")
        page.wait_for_selector("#review-trend-chart[data-ready='1']")
        assert page.locator("#review-trend-chart canvas").count() >= 1
        rows = page.locator(".review-trend-table tbody tr")
        assert rows.count() == 1 and rows.first.locator("td").nth(1).inner_text() == "1"
        assert_fits(page)
        page.locator("#review-trend").screenshot(path=str(SHOTS / f"trend_{name}.png"))
        page.context.close()


def test_an_admin_reviews_another_seat(server, browser):
    """A club admin who did not play chooses the seat: the review of 小李's seat, with 小李 at the bottom."""
    base, hand = server["url"], server["hand"]
    page = sign_in(browser, base, "rv_admin")
    page.goto(f"{base}/replays/hands/{hand}/")
    page.wait_for_selector("#review-seat")
    page.select_option("#review-seat", "1")
    page.wait_for_selector("#review[data-status=none]")
    page.click("#review-ask")
    page.wait_for_selector("#review[data-status=done]", timeout=60000)
    review = page.request.get(f"{base}/replays/hands/{hand}/review.json?seat=1").json()
    assert review["seat"] == 1 and {d["seat"] for d in review["review"]["decisions"]} == {1}
    assert page.input_value("#bottom-seat") == "1"
    assert page.inner_text("#review-summary dd[data-key=decisions]") == str(review["review"]["summary"]["decisions"])
    first = review["review"]["decisions"][0]
    page.evaluate(f"() => window.replayApp.go({first['index']})")
    assert page.get_attribute("#review-decision", "data-index") == str(first["index"])
    verdict = page.inner_text("#review-decision .review-verdict")
    if first["mistake"]:
        assert verdict == f"失误：损失 {first['loss']:.2f} 分"
    elif first["loss"] == 0:
        assert verdict.startswith("与复盘一致"), verdict
    assert_fits(page)
    page.screenshot(path=str(SHOTS / "review_admin_phone.png"), full_page=True)
    page.context.close()


def test_the_review_in_english(server, browser):
    """The same panel through Django's i18n: English words, the same numbers."""
    base, hand = server["url"], server["hand"]
    page = sign_in(browser, base, "rv_player", size=(390, 844), locale="en-US")
    page.goto(f"{base}/replays/hands/{hand}/")
    page.wait_for_selector("#review:not([data-status=none]), #review-ask:enabled")
    if page.get_attribute("#review", "data-status") == "none":
        page.click("#review-ask")
    page.wait_for_selector("#review[data-status=done]", timeout=60000)
    review = stored_review(page, base, hand)
    assert "Agreement" in page.inner_text("#review-summary")
    page.click("#review-next-mistake")
    first = next(d for d in review["review"]["decisions"] if d["mistake"])
    page.wait_for_function(f"() => window.replayApp.step === {first['index']}")
    assert page.inner_text("#review-decision .review-verdict") == f"Mistake: costs {first['loss']:.2f} points"
    assert "Next mistake" in page.inner_text("#review-nav")
    page.locator("#review").screenshot(path=str(SHOTS / "review_phone_english.png"))
    page.context.close()
