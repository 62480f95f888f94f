"""What the browser tests share: signing in, playing a seat by clicking, the checks of a page
(no sideways scrolling, no English on a Chinese page, no tap target too small) and the practice
table, kept out of the test modules so that no test module imports another.

Everything works on a Playwright sync page (or browser); nothing here starts a server.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

# Screenshots for a human look: test-output/ at the top of the checkout.
OUT = Path(__file__).resolve().parents[2] / "test-output"
# The password of the users most browser tests seed; ``sign_in``'s default.
PASSWORD = "Paohuzi-e2e-2024"
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")

# The tap-target probe of the phone layout walk (issue 24, test_phone_layout.py) and what it lets pass.
# ALLOWED: a control another part of issue 24 resizes: the club page's 练习桌 checkbox belongs to the
# table-opening form the `table` work rebuilds (its label is the touch target there).
ALLOWED = ["form.open-table input[type=checkbox][name=practice]"]

# Everything the page offers to tap, visible, too small; "running text": an inline link whose block
# has other words around it (a link in a sentence is as tall as the line, as everywhere on the web).
PROBE = """(allowed) => {
  const out = [];
  const sel = "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex='-1'])";
  for (const el of document.querySelectorAll(sel)) {
    if (allowed.some((s) => el.matches(s))) continue;
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || cs.visibility === "hidden" || el.closest("[hidden], details:not([open]) > :not(summary)")) continue;
    if (el.matches("input[type=checkbox], input[type=radio]")) {
      const label = el.closest("label") || (el.id && document.querySelector(`label[for="${el.id}"]`));
      if (label) {
        const lr = label.getBoundingClientRect();
        if (lr.width >= 44 && lr.height >= 44) continue;  // the label is the touch target
      }
    }
    if (el.tagName === "A" && cs.display === "inline") {
      let block = el.parentElement;
      while (block && getComputedStyle(block).display.startsWith("inline")) block = block.parentElement;
      const around = (block ? block.textContent : "").replace(el.textContent, "").trim();
      if (around.length > 0) continue;
    }
    if (r.width < 44 - 0.5 || r.height < 44 - 0.5) {
      const text = (el.textContent || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 24);
      out.push(`${el.tagName.toLowerCase()}${el.className ? "." + String(el.className).split(" ").join(".") : ""} "${text}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return out;
}"""


def sign_in(browser, base: str, username: str, *, size: tuple[int, int] = (390, 844), scale: int = 2,
            locale: str = "zh-CN", password: str = PASSWORD, **options):
    """A new browser context (a phone in portrait by default) signed in as ``username``: the one way
    the browser tests sign in; ``options`` go to ``new_context``."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, device_scale_factor=scale,
                                  locale=locale, **options)
    context.set_default_timeout(15000)
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    return page


def open_menu(page) -> None:
    """On a phone the site menu is folded behind its button (templates/base.html)."""
    toggle = page.locator("header .menu-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def step(page) -> bool:
    """Make one decision from what this page shows; False when it has none.

    The policy is the one WIN_SEED (tests/e2e/seeds.py) was searched with: 胡 when offered, else discard the last legal
    card, else 过, else the first legal action.
    """
    state = page.evaluate("() => window.tableApp.state")
    if state and state["stage"] == "piao":
        if page.locator("#piao:not([hidden]) .act-piao").count():
            page.locator("#piao .act-piao").nth(state["me"] % len(state["piao_choices"])).click()
            return True
        return False
    hand = state and state["hand"]
    legal = (hand["view"].get("legal_actions") or []) if hand and hand["status"] == "playing" and not hand["view"]["finished"] else []
    if not legal:
        return False
    kinds = {a["type"] for a in legal}
    if "hu" in kinds:
        page.click(".action-bar .act-hu")
    elif "discard" in kinds:
        card = [a for a in legal if a["type"] == "discard"][-1]["card"]
        page.locator(f'.my-hand .card.playable[data-card="{card}"]').first.click()
        page.locator(".my-hand .card.selected").click()
    elif "pass" in kinds:
        page.click(".action-bar .act-pass")
    else:
        page.click(f".action-bar .act-{legal[0]['type']}")
        if page.locator("#chi-chooser:not([hidden]) .chi-option").count():
            page.locator("#chi-chooser .chi-option").first.click()
    return True


def play_step(page) -> bool:
    """``step``, tolerating a claim that timed out between reading the state and the
    click (the server passes for a player after the claim window; the loop just reads again)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return step(page)
    except PlaywrightTimeout:
        return True


def play_until_settle(page, seconds: float = 150) -> None:
    """Play his seat by hand (胡 when offered, else the last legal discard, else 过) until the hand ends."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        state = page.evaluate("() => window.tableApp.state")
        if state["stage"] != "hand":
            return
        take_my_turn(page, state["hand"])
        page.wait_for_timeout(120)
    raise AssertionError("the hand did not end in time")


def take_my_turn(page, hand: dict | None, timeout: float = 2000) -> None:
    """One tap for his seat from the hand's view, if it is his to act: 胡 when offered, else the
    last legal discard (two taps), else 过; a view that changed under the click is looked at again
    by the caller's next round."""
    playing = hand and hand["status"] == "playing" and not hand["view"]["finished"]
    legal = (hand["view"].get("legal_actions") or []) if playing else []
    kinds = {a["type"] for a in legal}
    try:
        if "hu" in kinds:
            page.click(".action-bar .act-hu", timeout=timeout)
        elif "discard" in kinds:
            card = [a for a in legal if a["type"] == "discard"][-1]["card"]
            page.locator(f'.my-hand .card.playable[data-card="{card}"]').first.click(timeout=timeout)
            page.locator(".my-hand .card.selected").click(timeout=timeout)
        elif "pass" in kinds:
            page.click(".action-bar .act-pass", timeout=timeout)
    except Exception:  # noqa: BLE001 - the view changed under the click: look again
        pass


def get_ready(page, tries: int = 3) -> None:
    """准备 on the waiting panel until the server has this seat ready (or the table moved on): a
    tap on a button the next update redrew under it is tapped again, as a player would."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    done = """() => { const s = window.tableApp.state; if (!s) return false;
        const me = s.seats[s.me]; return s.stage !== 'seating' || (me && me.ready); }"""
    for _ in range(tries):
        page.click("#waiting:not([hidden]) .act-ready")
        try:
            page.wait_for_function(done, timeout=5000)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError("the seat never became ready")


def open_practice(page, base: str, club: int, navigate: bool = True) -> str:
    if navigate:
        page.goto(f"{base}/clubs/{club}/")
    page.check("input[name=practice]")
    page.click("form.open-table button[type=submit]")
    page.wait_for_url("**/tables/*/")
    page.wait_for_selector("#waiting:not([hidden]) .act-ready")
    page.click("#waiting .act-ready")
    page.wait_for_function("() => window.tableApp.state && window.tableApp.state.stage !== 'seating'")
    return page.url


def socket_log(page) -> list[tuple[str, str]]:
    """The page's WebSocket frames as they come and go (the first 160 characters of each), its
    opens and closes: what a failing wait on the socket reports."""
    log: list[tuple[str, str]] = []

    def watch(ws):
        log.append(("open", ws.url))
        ws.on("framesent", lambda payload: log.append(("sent", str(payload)[:160])))
        ws.on("framereceived", lambda payload: log.append(("received", str(payload)[:160])))
        ws.on("close", lambda _ws: log.append(("close", "")))

    page.on("websocket", watch)
    return log


def assert_no_overflow(page) -> None:
    width = page.evaluate("() => window.innerWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1


def assert_in_view(locator) -> None:
    """The element is shown and wholly inside the window (a toast, a dialog: nothing cut off)."""
    assert locator.is_visible()
    box = locator.bounding_box()
    size = locator.page.viewport_size
    assert box and box["x"] >= -1 and box["y"] >= -1, box
    assert box["x"] + box["width"] <= size["width"] + 1 and box["y"] + box["height"] <= size["height"] + 1, (box, size)


def assert_on_top(locator) -> None:
    """Nothing covers the element: what the window shows at its centre is it (or inside it)."""
    assert_in_view(locator)
    assert locator.evaluate("""(el) => {
        const r = el.getBoundingClientRect();
        const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return el === top || el.contains(top);
    }"""), "covered by another element"


def assert_chinese(text: str) -> None:
    assert not LATIN_WORD.findall(text), f"English on the zh-hans page: {LATIN_WORD.findall(text)}"
