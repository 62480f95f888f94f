"""Issue #46 in the browser, the parts around play: every moment of a table says what is happening.

- 解散 among three people at 390x844: the vote is a bar above the asker's hand (never over it,
  landscape too); each answer is told to everyone, and a refusal names who refused, from each
  viewer's seat ("上家 拒绝解散，牌局继续" / "下家 …"), the asker included;
- a member watching a waiting table that its creator dissolves is told so (牌桌已解散), is not
  offered 入座 and is not left on 重连中…; a reload shows the end again, and 入座 tapped on the club
  page he had open meanwhile is refused in Chinese with the reason;
- a match's table offers no 解散; a card's hover title is its name (小八), not "s8";
- the table's top bar fits at 390x844, 844x390 and 1280x800 (nothing clipped), 逃跑/解散 apart from
  the harmless controls; in landscape the shown card is whole and 下一局 is above the fold.

Screenshots: /tmp/shots/r-clar/words_*.png.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from tests.e2e.browser import PASSWORD, get_ready, open_practice, sign_in, step  # noqa: E402

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/shots/r-clar")
PORTRAIT, LANDSCAPE, DESKTOP = (390, 844), (844, 390), (1280, 800)
SEED = club_script(
    club="说清楚俱乐部", users=[("tw0", "群主"), ("tw1", "阿明"), ("tw2", "小芳"), ("tw3", "老李"), ("tw4", "路人甲")],
    password=PASSWORD, members=range(1, 5),
    templates=[dict(name="三人两局", preset="full", players=3, hands_per_session=2, turn_seconds=300,
                    claim_seconds=120, options={"escape_penalty": True}),
               # (quick claim windows: 托管 plays this one through to its result in a test's time)
               dict(name="快速两局", preset="full", players=3, hands_per_session=2, turn_seconds=8,
                    claim_seconds=3, options={"escape_penalty": True})],
)

# A match's table is opened by the match service (tables.verbs.arranged); here directly, its three
# players seated and dealt in.
ARRANGED = """
from apps.clubs.models import Club, RuleTemplate
from apps.accounts.models import User
from apps.tables.verbs import arranged
club = Club.objects.get(name="说清楚俱乐部")
users = [User.objects.get(username=f"tw{i}") for i in (1, 2, 3)]
rules = RuleTemplate(club=club, name="比赛规则", preset="full", players=3, turn_seconds=300)
print(arranged.arranged_open(club=club, users=users, rules=rules, hands=1, name="第1轮第1桌", hold=False).pk)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_words") / "words.sqlite3"
    with serve(db, SEED, TABLES_BOT_DELAY="0.05") as (url, club_id, shell):
        yield {"url": url, "club": int(club_id), "shell": shell}


def shot(page, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"words_{name}.png"), full_page=full)


def box(page, selector: str) -> dict | None:
    return page.evaluate("""(sel) => { const el = [...document.querySelectorAll(sel)].find((e) => e.getClientRects().length);
        if (!el) return null; const r = el.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; }""", selector)


def hand_uncovered(page) -> list[str]:
    """The cards of my hand that something else covers (the middle of each must be the card)."""
    return page.evaluate("""() => [...document.querySelectorAll('.my-hand .card')].flatMap((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return hit && (hit === el || el.contains(hit)) ? [] : [`${el.dataset.card} under ${hit ? hit.className : 'nothing'}`];
    })""")


def assert_bar_above_hand(page, name: str) -> None:
    bar, hand = box(page, "#dissolve"), box(page, ".my-hand")
    assert bar and hand, (bar, hand)
    shot(page, name)
    assert bar["bottom"] <= hand["top"] + 0.5, f"the vote bar reaches into the hand: {bar} {hand}"
    assert not hand_uncovered(page), hand_uncovered(page)
    w, h = page.evaluate("() => [innerWidth, innerHeight]")
    for sel in ("#dissolve", "#dissolve .act-agree", "#dissolve .act-refuse"):
        b = box(page, sel)
        if b:
            assert b["left"] >= -0.5 and b["right"] <= w + 0.5 and b["top"] >= -0.5 and b["bottom"] <= h + 0.5, (sel, b)


def seat_word(me: int, seat: int) -> str:
    """What seat ``me`` calls ``seat`` at a table of three: the next one 下家, the previous 上家."""
    return {1: "下家", 2: "上家"}[(seat - me) % 3]


def notice(page) -> str:
    page.wait_for_selector("#notice:not([hidden])")
    return page.text_content("#notice .notice-text")


def test_every_answer_to_a_dissolve_vote_is_told_to_everyone(server, browser):
    base, club = server["url"], server["club"]
    asker, agreer, refuser = pages = [sign_in(browser, base, f"tw{i}") for i in (1, 2, 3)]
    asker.goto(f"{base}/clubs/{club}/")
    asker.click("form.open-table button[type=submit]")
    asker.wait_for_url("**/tables/*/")
    for page in pages[1:]:
        page.goto(f"{base}/clubs/{club}/")
        page.click("#tables .table-sit")
        page.wait_for_url(asker.url)
    for page in pages:
        get_ready(page)
    for page in pages:
        page.wait_for_function("() => window.tableApp.state && window.tableApp.state.stage === 'hand'")
        page.wait_for_selector(".my-hand .card")
    seat = {id(p): p.evaluate("() => window.tableApp.state.me") for p in pages}
    # A card's hover title is its name as players say it (小八, 大拾), never the notation (s8, b10).
    titles = asker.eval_on_selector_all(".my-hand .card", "(els) => els.map((e) => e.title)")
    assert titles and all(re.fullmatch(r"[小大][一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾]", x) for x in titles), titles

    asker.click("#dissolve-btn")
    asker.click("dialog.confirm-dialog .confirm-ok")
    asker.wait_for_selector("#dissolve:not([hidden])")
    assert "还等 2 人表态" in asker.text_content("#dissolve")
    assert_bar_above_hand(asker, "01_vote_bar_asker_portrait")
    asker.set_viewport_size({"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    asker.wait_for_timeout(150)
    assert_bar_above_hand(asker, "02_vote_bar_asker_landscape")
    asker.set_viewport_size({"width": PORTRAIT[0], "height": PORTRAIT[1]})

    agreer.wait_for_selector("#dissolve:not([hidden]) .act-agree")
    assert seat_word(seat[id(agreer)], seat[id(asker)]) in agreer.text_content("#dissolve .dissolve-ask")
    assert_bar_above_hand(agreer, "03_vote_bar_voter_portrait")
    agreer.click("#dissolve .act-agree")
    for page in (asker, refuser):
        page.wait_for_function("(s) => document.querySelector('#notice .notice-text')?.textContent.includes(s)",
                               arg="同意解散")
        assert notice(page) == f"{seat_word(seat[id(page)], seat[id(agreer)])} 同意解散"
    shot(asker, "04_agreed_notice_asker")

    refuser.click("#dissolve .act-refuse")
    for page in (asker, agreer):
        page.wait_for_function("(s) => document.querySelector('#notice .notice-text')?.textContent.includes(s)",
                               arg="拒绝解散")
        assert notice(page) == f"{seat_word(seat[id(page)], seat[id(refuser)])} 拒绝解散，牌局继续"
        page.wait_for_selector("#dissolve", state="hidden")
        assert page.evaluate("() => window.tableApp.state.status") == "playing"
        assert not hand_uncovered(page)
    shot(asker, "05_refused_notice_asker")
    shot(agreer, "06_refused_notice_other")
    asker.set_viewport_size({"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    asker.wait_for_timeout(150)
    shot(asker, "07_refused_notice_landscape")
    for page in pages:
        page.context.close()


def assert_clear_of_over(page) -> None:
    """A shown notice is wholly in sight, never under the ended table's panel."""
    if page.locator("#notice").is_hidden():
        return
    n, o = page.locator("#notice").bounding_box(), page.locator("#over").bounding_box()
    assert n["y"] + n["height"] <= o["y"] or n["y"] >= o["y"] + o["height"], (n, o)
    assert n["y"] >= 0 and n["x"] >= 0, n


def assert_end_survives_reload(page) -> None:
    """A reload shows the same end (not a 404, not 重连中…, no 入座)."""
    page.reload()
    page.wait_for_selector("#over:not([hidden])")
    assert "牌桌已解散" in page.text_content("#over") and page.locator("#conn").is_hidden()
    assert page.get_by_role("button", name="入座").count() == 0


def test_a_watcher_of_a_table_dissolved_before_its_start_is_told_so(server, browser):
    base, club = server["url"], server["club"]
    creator = sign_in(browser, base, "tw1")
    creator.goto(f"{base}/clubs/{club}/")
    creator.click("form.open-table button[type=submit]")
    creator.wait_for_url("**/tables/*/")
    table_url = creator.url
    table_id = table_url.rstrip("/").rsplit("/", 1)[1]

    watcher = sign_in(browser, base, "tw4")
    stale_club = watcher.context.new_page()  # the club page he keeps open meanwhile
    stale_club.goto(f"{base}/clubs/{club}/")
    watcher.goto(f"{base}/clubs/{club}/")
    watcher.click(f"#tables li[data-table='{table_id}'] .table-watch")
    watcher.wait_for_url(table_url)
    watcher.wait_for_selector("#waiting:not([hidden])")
    assert watcher.get_by_role("button", name="入座").is_visible()

    # The club page he keeps open: its 入座 form, as a page that missed the news would still show it.
    sit_form = stale_club.locator(f"#tables li[data-table='{table_id}'] form:has(.table-sit)").evaluate("(f) => f.outerHTML")
    creator.click("#waiting .act-dissolve")
    creator.click("dialog.confirm-dialog .confirm-ok")
    watcher.wait_for_selector("#over:not([hidden])")
    over = watcher.text_content("#over")
    assert "牌桌已解散" in over and "本房间没有打过一局" in over
    assert watcher.get_by_role("button", name="入座").count() == 0
    assert watcher.locator("#waiting").is_hidden() and watcher.locator("#conn").is_hidden()
    assert "开桌人解散了牌桌" in notice(watcher)
    assert_clear_of_over(watcher)
    shot(watcher, "10_watcher_told_dissolved")

    assert_end_survives_reload(watcher)
    shot(watcher, "11_watcher_reload")

    # The same end in English (Django i18n): no Chinese but the users' own names.
    english = sign_in(browser, base, "tw4", locale="en-US")
    english.context.add_cookies([{"name": "django_language", "value": "en", "url": base}])
    english.goto(table_url)
    english.wait_for_selector("#over:not([hidden])")
    words = english.text_content("#over")
    assert "The table was dissolved" in words and not re.search(r"[\u4e00-\u9fff]", words), words
    shot(english, "13_watcher_english")
    english.context.close()

    # The club page he had open keeps itself true (the live club channel): the table leaves it.
    stale_club.wait_for_selector(f"#tables li[data-table='{table_id}']", state="detached", timeout=15000)
    # A page that missed it (a phone asleep) still offers 入座: refused with the reason, in Chinese.
    stale_club.evaluate("(html) => document.querySelector('main').insertAdjacentHTML('afterbegin', html)", sit_form)
    stale_club.click("main > form .table-sit")
    stale_club.wait_for_url(table_url)
    messages = stale_club.text_content(".messages")
    assert "牌桌已解散" in messages and "started" not in messages and "开始" not in messages
    stale_club.wait_for_selector("#over:not([hidden])")
    shot(stale_club, "12_join_refused_in_words")
    creator.context.close()
    watcher.context.close()


def test_a_spectator_of_a_table_dissolved_mid_hand_is_told_so_and_shown_the_result(server, browser):
    base, club = server["url"], server["club"]
    player = sign_in(browser, base, "tw2")
    watcher = sign_in(browser, base, "tw0")  # the club's owner may watch any of its tables
    table_url = open_practice(player, base, club)
    player.wait_for_function("() => window.tableApp.state.stage === 'hand'")
    watcher.goto(table_url)
    watcher.wait_for_function("() => window.tableApp.state && window.tableApp.state.hand")
    assert watcher.evaluate("() => window.tableApp.state.me") is None
    assert watcher.locator("#over").is_hidden()
    # The player asks to dissolve mid-hand; the bots agree at once.
    player.click("#dissolve-btn")
    player.click("dialog.confirm-dialog .confirm-ok")
    player.wait_for_selector("#over:not([hidden])")
    # The watcher's page says so in Chinese and shows the result: the hand cut short, the way back.
    watcher.wait_for_selector("#over:not([hidden])", timeout=15000)
    over = watcher.text_content("#over")
    assert over.count("牌桌已解散") == 1 and "第1局未打完，不计分" in over, over
    assert watcher.locator("#over .act-back").is_visible()
    assert watcher.locator("#settlement").is_hidden() and watcher.locator("#waiting").is_hidden()
    assert watcher.locator("#conn").is_hidden()  # not left on 重连中…
    assert watcher.get_by_role("button", name="入座").count() == 0
    assert not watcher.locator("#dissolve-btn").is_visible()
    assert not re.search(r"[A-Za-z]{3,}", over), over  # no English, no technical word
    assert watcher.locator("#phrase-btn").is_hidden()
    assert_clear_of_over(watcher)
    shot(watcher, "14_watcher_dissolved_mid_hand")
    assert_end_survives_reload(watcher)
    player.context.close()
    watcher.context.close()


def test_a_match_table_offers_no_dissolve(server, browser):
    base = server["url"]
    table_id = server["shell"](ARRANGED)
    page = sign_in(browser, base, "tw2")
    page.goto(f"{base}/tables/{table_id}/")  # (a match page leads here; the match is not the point)
    page.wait_for_function("() => window.tableApp.state && window.tableApp.state.status === 'playing'")
    page.wait_for_selector(".my-hand .card")
    assert page.locator("#dissolve-btn").is_hidden() and page.locator("#escape-btn").is_hidden()
    assert page.get_by_role("button", name="解散").count() == 0
    assert_top_bar_fits(page, "20_match_table_top")
    page.context.close()


def my_move(page) -> bool:
    """Whether this seat has a move besides 逃跑 (which is legal whenever the hand plays)."""
    return page.evaluate("""() => { const h = window.tableApp.state.hand;
        return Boolean(h && h.status === 'playing' && (h.view.legal_actions || []).some((a) => a.type !== 'escape')); }""")


HARMLESS = ("#back-link", ".rules summary", "#mute-btn", "#tuoguan-btn")
DESTRUCTIVE = ("#escape-btn", "#dissolve-btn")


def assert_top_bar_fits(page, name: str) -> None:
    """Every control of the top bar whole inside the viewport and the bar, none over another; 逃跑
    and 解散 at least 16 px from the harmless controls (or on a row of their own)."""
    shot(page, name)
    w, _h = page.evaluate("() => [innerWidth, innerHeight]")
    bar = box(page, ".table-top")
    assert bar["top"] >= -0.5
    found = {sel: box(page, sel) for sel in (*HARMLESS, *DESTRUCTIVE)}
    found = {k: v for k, v in found.items() if v}
    for sel, b in found.items():
        # inside the bar with room above: a control drawn against the top edge looks cut off
        assert b["top"] >= bar["top"] + 2 and b["bottom"] <= bar["bottom"] + 0.5, (sel, b, bar)
        assert b["left"] >= -0.5 and b["right"] <= w + 0.5, (sel, b, w)
        assert b["bottom"] - b["top"] >= 43.5, (sel, b)  # a touch target
    names = list(found)
    for i, a in enumerate(names):
        for other in names[i + 1:]:
            p, q = found[a], found[other]
            overlap = min(p["right"], q["right"]) - max(p["left"], q["left"]) > 0.5 and \
                min(p["bottom"], q["bottom"]) - max(p["top"], q["top"]) > 0.5
            assert not overlap, (a, p, other, q)
    for d in (s for s in DESTRUCTIVE if s in found):
        for k in (s for s in HARMLESS if s in found):
            p, q = found[d], found[k]
            same_row = min(p["bottom"], q["bottom"]) - max(p["top"], q["top"]) > 0.5
            if same_row:
                gap = max(p["left"] - q["right"], q["left"] - p["right"])
                assert gap >= 16, f"{d} only {gap:.0f} px from {k}"
    # The table's name, if shown, is not cut to nothing either.
    title = box(page, ".table-top .table-name")
    assert title is None or title["right"] - title["left"] >= 40, title


def test_the_top_bar_fits_and_landscape_shows_the_card_and_next_hand(server, browser):
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "tw3")
    page.goto(f"{base}/clubs/{club}/")
    page.select_option("#open-template", label=next(
        o for o in page.locator("#open-template option").all_text_contents() if o.startswith("快速两局")))
    open_practice(page, base, club, navigate=False)
    page.wait_for_function("() => window.tableApp.state.stage === 'hand'")
    page.wait_for_selector("#escape-btn:not([hidden])")
    page.wait_for_selector("#dissolve-btn:not([hidden])")
    for label, (w, h) in (("portrait", PORTRAIT), ("landscape", LANDSCAPE), ("desktop", DESKTOP)):
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        assert_top_bar_fits(page, f"30_top_bar_{label}")

    # Landscape: he plays (the policy of tests/e2e/browser.py's step) until a card is shown in the middle,
    # whole, then on to the hand's result.
    page.set_viewport_size({"width": LANDSCAPE[0], "height": LANDSCAPE[1]})
    shown = False
    page.set_default_timeout(2500)
    deadline = time.time() + 180
    while time.time() < deadline and page.evaluate("() => window.tableApp.state.stage") == "hand":
        if not shown and page.locator(".center .card.in-question").count():
            card = box(page, ".center .card.in-question")
            assert card["top"] >= -0.5 and card["bottom"] <= LANDSCAPE[1] + 0.5 and card["right"] <= LANDSCAPE[0] + 0.5, card
            assert not page.evaluate("""() => { const el = document.querySelector('.center .card.in-question');
                const r = el.getBoundingClientRect();
                const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                return !(hit && (hit === el || el.contains(hit))); }"""), "the shown card is covered"
            shot(page, "31_landscape_shown_card")
            shown = True
        try:
            acted = my_move(page) and step(page)
        except PlaywrightTimeout:  # the table moved on between reading the state and the tap
            acted = True
        if not acted:
            page.wait_for_timeout(100)
    page.set_default_timeout(15000)
    assert shown
    page.wait_for_selector("#settlement:not([hidden]) .act-ready")
    ready = box(page, "#settlement .act-ready")
    shot(page, "32_landscape_settlement")
    assert ready["bottom"] <= LANDSCAPE[1] + 0.5 and ready["top"] >= -0.5, f"下一局 below the fold: {ready}"
    assert page.text_content("#settlement .act-ready") in ("下一局", "已准备 ✓")
    # A win's result is taller than a 荒庄's (groups, 名堂): with the panel's content made that tall,
    # the buttons still sit at its foot, inside the screen (the deal decides which result came).
    page.evaluate("""() => { const pad = document.createElement('div'); pad.className = 'test-pad';
        pad.style.height = '600px'; const p = document.getElementById('settlement');
        p.insertBefore(pad, p.querySelector('.actions')); }""")
    ready = box(page, "#settlement .act-ready")
    shot(page, "32b_landscape_settlement_tall")
    assert ready["bottom"] <= LANDSCAPE[1] + 0.5 and ready["top"] >= -0.5, f"下一局 below the fold: {ready}"
    assert page.evaluate("""() => { const r = document.querySelector('#settlement .act-ready').getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return Boolean(hit && hit.closest('.act-ready')); }"""), "下一局 is covered"
    page.evaluate("() => document.querySelector('#settlement .test-pad').remove()")
    assert page.locator("#settlement details.tech").count() == 1
    assert "技术细节" in page.text_content("#settlement details.tech summary")
    assert not page.locator("#settlement details.tech").evaluate("(d) => d.open")
    page.set_viewport_size({"width": PORTRAIT[0], "height": PORTRAIT[1]})
    shot(page, "33_portrait_settlement")
    page.context.close()
