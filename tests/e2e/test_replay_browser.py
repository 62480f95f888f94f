"""Browser test of the replay viewer (apps/replays): a player finishes a hand at a practice table (two
bots, paced by a small TABLES_BOT_DELAY), opens the replay from the settlement panel, steps through it
both ways (the cards on the felt change and come back), jumps to the end and sees the settlement,
makes a share code (回放码) and a user of another club opens it, from the link and from the home
page's box, and sees nothing of the club. Screenshots at 390x844 and 1280x800 in test-output/replay_*.png.
"""

from __future__ import annotations

import os
import time

import pytest

from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from tests.e2e.browser import OUT, PASSWORD, assert_chinese, open_practice, sign_in, step  # noqa: E402

pytestmark = pytest.mark.e2e

CLUB_NAME = "回放测试俱乐部"
SEED = club_script(
    club=CLUB_NAME, users=[("r_player", "老王"), ("r_stranger", "外人")], password=PASSWORD,
    other_clubs=[(1, "隔壁俱乐部")],
    templates=[dict(name="练习一局", preset="full", players=3, hands_per_session=1, turn_seconds=300)],
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_replay") / "replay.sqlite3"
    with serve(db, SEED, TABLES_BOT_DELAY="0.05") as (url, club_id, shell):
        yield {"url": url, "club": int(club_id), "shell": shell}


def felt(page) -> str:
    """What the felt shows (every seat's cards, the centre): changes with every step."""
    return page.evaluate("() => document.getElementById('felt').innerHTML")


def assert_no_overflow(page) -> None:
    width = page.evaluate("() => window.innerWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width


def play_out(page) -> None:
    """Play the human seat (the bots play themselves) until the hand is over. A bot may move between
    reading the state and the click (the button is gone): that decision is simply read again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.set_default_timeout(2500)
    deadline = time.time() + 180
    try:
        while time.time() < deadline:
            if page.evaluate("() => window.tableApp.state && window.tableApp.state.stage") in ("settle", "over"):
                return
            try:
                acted = step(page)
            except PlaywrightTimeout:
                acted = False
            page.wait_for_timeout(60 if acted else 100)
        raise AssertionError("the practice hand did not end")
    finally:
        page.set_default_timeout(15000)


def test_replay_from_the_settlement_panel_and_a_share_code(server, browser):
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "r_player")
    open_practice(page, base, club)
    play_out(page)

    # The settlement panel links to the replay and the 大局 summary to the table's hands.
    page.wait_for_selector("#settlement:not([hidden]) .act-replay")
    assert page.locator("#settlement .hands-link").count() == 1
    page.screenshot(path=str(OUT / "replay_00_settlement.png"))
    page.click("#settlement .act-replay")
    page.wait_for_url("**/replays/hands/*/")
    hand_url = page.url.split("#")[0]
    page.wait_for_function("() => window.replayApp && document.querySelector('#moves .move')")
    last = page.evaluate("() => window.replayApp.last")
    assert last > 5
    assert page.locator("#moves .move").count() == last + 1
    # Every seat's hand is on the felt (two opponents' hands shown, mine in columns).
    assert page.locator("#opponents .shown-hand").count() == 2
    # (20 dealt cards, 21 for the dealer: those still in hand, plus a 提 laid at the deal)
    assert page.locator("#mine .my-hand .card").count() + page.locator("#mine .laid .card").count() >= 20
    assert_chinese(page.text_content("#felt"))
    assert_no_overflow(page)
    page.screenshot(path=str(OUT / "replay_01_start_phone.png"))

    # Step forward three times: the felt changes each time; back three times: it is as it was.
    start = felt(page)
    seen = [start]
    for k in range(1, 4):
        page.click("#btn-next")
        page.wait_for_function(f"() => document.getElementById('replay-app').dataset.step === '{k}'")
        seen.append(felt(page))
        assert seen[-1] != seen[-2], f"step {k} changed nothing on the felt"
    page.screenshot(path=str(OUT / "replay_02_step3_phone.png"))
    for k in (2, 1, 0):
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"() => document.getElementById('replay-app').dataset.step === '{k}'")
        assert felt(page) == seen[k], f"back at step {k} the felt differs from the way forward"
    assert felt(page) == start

    # A swipe to the left on the felt steps forward, to the right steps back.
    swipe = """(dx) => {
        const el = document.getElementById('felt');
        const at = (x) => new Touch({identifier: 1, target: el, clientX: x, clientY: 400});
        el.dispatchEvent(new TouchEvent('touchstart', {changedTouches: [at(200)], touches: [at(200)], bubbles: true}));
        el.dispatchEvent(new TouchEvent('touchend', {changedTouches: [at(200 + dx)], touches: [], bubbles: true}));
    }"""
    page.evaluate(swipe, -120)
    assert page.evaluate("() => window.replayApp.step") == 1 and felt(page) == seen[1]
    page.evaluate(swipe, 120)
    assert page.evaluate("() => window.replayApp.step") == 0 and felt(page) == start

    # Space plays and pauses, even right after a click left the focus on a control button.
    page.click("#btn-next")
    page.keyboard.press("Space")
    assert page.get_attribute("#replay-app", "data-playing") == "1"
    page.keyboard.press("Space")
    assert page.get_attribute("#replay-app", "data-playing") is None
    page.click("#btn-start")

    # A move from the list, then play at 4x for a moment, then the end: the settlement panel.
    page.locator("#moves .move").nth(5).locator("button").click()
    assert page.evaluate("() => window.replayApp.step") == 5
    page.select_option("#speed", "4")
    page.click("#btn-play")
    page.wait_for_function("() => window.replayApp.step >= 7", timeout=5000)
    page.click("#btn-play")
    paused = page.evaluate("() => window.replayApp.step")
    page.wait_for_timeout(600)
    assert page.evaluate("() => window.replayApp.step") == paused
    assert page.locator("#settlement").is_hidden()
    # A claim window: who could 吃/碰/胡 on the card, and what each chose.
    window = page.evaluate("() => window.replayApp.frames.findIndex((f) => f.view.claim)")
    assert window > 0
    page.evaluate(f"() => window.replayApp.go({window})")
    page.evaluate("() => window.scrollTo(0, 0)")
    claim = page.evaluate(f"() => window.replayApp.frames[{window}].view.claim")
    assert page.locator("#claims .claim-window:not(.closed) .claim-seat").count() == len(claim["options"])
    page.screenshot(path=str(OUT / "replay_02b_claim_phone.png"))
    page.locator("#claims").screenshot(path=str(OUT / "replay_02c_claims_box.png"))
    page.click("#btn-end")
    page.wait_for_selector("#settlement:not([hidden])")
    page.locator("#settlement").screenshot(path=str(OUT / "replay_03a_settlement_box.png"))
    page.locator("#proof").screenshot(path=str(OUT / "replay_03b_proof_box.png"))
    page.locator(".moves-box").screenshot(path=str(OUT / "replay_03c_moves_box.png"))
    text = page.text_content("#settlement")
    assert "种子" in text or "seed" in text
    assert page.locator("#settlement .deltas tr").count() == 4  # header + three seats
    assert page.locator("#settlement .act-ready").count() == 0  # no "next hand" on a replay
    # The bottom seat chooser: another seat's hand comes to the bottom.
    mine_before = page.text_content("#mine .seat-name")
    page.select_option("#bottom-seat", index=1)
    assert page.text_content("#mine .seat-name") != mine_before
    page.select_option("#bottom-seat", index=0)
    checks = page.locator("#checks .check")
    assert checks.count() >= 5
    assert page.locator("#checks .check[data-key=commitment].ok").count() == 1
    # Each check explained in plain words; the hashes and the CLI command folded under 技术细节.
    assert page.locator("#checks .check-explain").count() == checks.count()
    tech = page.locator("#proof details.tech")
    assert not tech.locator("code.hash").first.is_visible() and "python -m" not in page.inner_text("#checks")
    tech.locator("summary").click()
    assert tech.locator("code.hash").first.is_visible() and "python -m apps.engine verify" in tech.inner_text()
    tech.screenshot(path=str(OUT / "replay_03d_proof_tech_open.png"))
    assert_no_overflow(page)
    page.screenshot(path=str(OUT / "replay_03_end_phone.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate("() => window.replayApp.go(Math.floor(window.replayApp.last / 2))")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(150)
    assert_no_overflow(page)
    page.screenshot(path=str(OUT / "replay_04_middle_desktop.png"))
    page.click("#btn-end")
    page.wait_for_timeout(700)
    page.screenshot(path=str(OUT / "replay_05_end_desktop.png"))
    page.set_viewport_size({"width": 390, "height": 844})

    # The download button serves the export as an attachment.
    with page.expect_download() as dl:
        page.click("#download")
    assert dl.value.suggested_filename.endswith(".json")

    # A share code, and its link opened by a user of another club.
    page.select_option("select[name=expiry]", "1d")
    page.click("#make-code")
    page.wait_for_selector(".share-code[data-status=active] .share-link")
    link = page.input_value(".share-code[data-status=active] .share-link")
    code = page.get_attribute(".share-code[data-status=active]", "data-code")
    assert len(code) == 10 and link.endswith(f"/replays/s/{code}/")
    page.locator("#share").scroll_into_view_if_needed()
    page.screenshot(path=str(OUT / "replay_06_share_phone.png"))

    stranger = sign_in(browser, base, "r_stranger")
    stranger.goto(link)
    stranger.wait_for_function("() => window.replayApp && document.querySelector('#moves .move')")
    assert stranger.evaluate("() => window.replayApp.last") == last
    app_links = stranger.eval_on_selector_all("#replay-app a[href]", "els => els.map((a) => a.getAttribute('href'))")
    assert not [h for h in app_links if "/clubs/" in h or "/tables/" in h or "/replays/tables/" in h], app_links
    assert CLUB_NAME not in stranger.content()
    assert f"/clubs/{club}/" not in stranger.content()
    assert stranger.locator("#share").count() == 0
    stranger.click("#btn-end")
    stranger.wait_for_selector("#settlement:not([hidden])")
    stranger.wait_for_timeout(700)  # the smooth scroll to the settlement panel
    stranger.screenshot(path=str(OUT / "replay_07_shared_phone.png"))

    # The home page's box takes the code as typed (lower case, a dash, spaces).
    stranger.goto(f"{base}/")
    typed = f" {code[:5].lower()}-{code[5:]} "
    stranger.fill("#replay-code-input", typed)
    stranger.screenshot(path=str(OUT / "replay_08_home_box.png"))
    stranger.click("#replay-code button[type=submit]")
    stranger.wait_for_url(f"**/replays/s/{code}/", wait_until="commit")  # its content is waited for below
    stranger.wait_for_selector("#moves .move")

    # The table's hands (大局): the hand with its replay link, the session total.
    page.goto(hand_url)
    page.click("a[href*='/replays/tables/']")
    page.wait_for_selector("#hands")
    assert page.locator("#hands tbody tr").count() == 1
    assert page.locator("#hands .replay-link").get_attribute("href") in hand_url
    assert_chinese(page.text_content("#hands"))
    assert_no_overflow(page)
    page.screenshot(path=str(OUT / "replay_10_table_hands_phone.png"))

    # The player revokes it; the stranger is told so.
    page.goto(hand_url)
    page.once("dialog", lambda d: d.accept())
    page.click(".share-code[data-status=active] form[action$='/revoke/'] button")
    page.wait_for_selector(".share-code[data-status=revoked]")
    response = stranger.goto(link)
    assert response.status == 410
    assert stranger.locator(".share-problem[data-state=revoked]").count() == 1
    stranger.screenshot(path=str(OUT / "replay_09_revoked.png"))
    page.context.close()
    stranger.context.close()


DAMAGE = """
from datetime import timedelta
from django.utils import timezone
from apps.replays import retention
from apps.tables.models import Hand, Table, TableArchive
hand = Hand.objects.filter(players__has_key="0", status="finished").order_by("-pk").first()
Table.objects.filter(pk=hand.table_id).update(finished_at=timezone.now() - timedelta(days=400))
retention.compact_due()
stored = TableArchive.objects.get(table_id=hand.table_id)
data = bytearray(stored.data)
data[len(data) // 2] ^= 0xFF
TableArchive.objects.filter(pk=stored.pk).update(data=bytes(data))
print(hand.pk)
"""


def test_a_damaged_record_reads_clearly_on_phones_and_a_desktop(server, browser):
    """The hand the test above played, compacted and then damaged (a byte flipped in its archive):
    its replay page says so in Chinese with the failed check, and fits a portrait phone, a
    landscape phone and a desktop (screenshots replay_damaged_*.png)."""
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "r_player")
    finished = server["shell"]("from apps.tables.models import Hand; print(Hand.objects.filter(status='finished').count())")
    if finished == "0":
        page.goto(f"{base}/clubs/{club}/")  # run alone: play a hand first
        page.check("input[name=practice]")
        page.click("form.open-table button[type=submit]")
        page.wait_for_selector("#waiting:not([hidden]) .act-ready")
        page.click("#waiting .act-ready")
        page.wait_for_function("() => window.tableApp.state && window.tableApp.state.stage !== 'seating'")
        play_out(page)
    hand_id = server["shell"](DAMAGE)
    for name, (w, h) in {"portrait": (390, 844), "landscape": (844, 390), "desktop": (1280, 800)}.items():
        page.set_viewport_size({"width": w, "height": h})
        response = page.goto(f"{base}/replays/hands/{hand_id}/")
        assert response.status == 500
        alert = page.locator("#damaged .msg-error")
        assert alert.is_visible() and "这一局的存档已损坏" in alert.inner_text()
        assert page.locator("#damaged .check.bad").count() >= 1
        assert_chinese(page.evaluate("""() => {  // the words, without the folded 技术细节 (hashes, commands)
            const box = document.getElementById('damaged').cloneNode(true);
            box.querySelectorAll('details.tech').forEach((d) => d.remove());
            return box.textContent;
        }"""))
        assert_no_overflow(page)
        page.screenshot(path=str(OUT / f"replay_damaged_{name}.png"), full_page=True)
