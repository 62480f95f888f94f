"""Steps shared by the browser journeys of a club's match night (test_match_journey.py,
test_club_night_journey.py): a member's signed-in page, the way from the club list to a match,
the owner's match form, and playing a round by clicking until the table's session is over.
Everything goes through what the screen shows; only the start page is typed.
"""

from __future__ import annotations

import time

from tests.e2e.browser import play_step, sign_in


def member(browser, base: str, username: str):
    """A signed-in page (390x844, zh-CN) that accepts the register / withdraw confirmations."""
    page = sign_in(browser, base, username)
    page.on("dialog", lambda dialog: dialog.accept())
    return page


def open_match_from_club(page, club: int) -> None:
    """From the club list (where sign-in lands): the club, its 比赛 tab, the match card."""
    page.click(f"a[href='/clubs/{club}/']")
    page.click(f"nav.tabs a[href$='/matches/clubs/{club}/']")
    page.click("#matches-registering .match-card a")
    page.wait_for_selector("#register-box")


def fill_fixed_match(page, name: str, starts: str, *, rounds: int = 2, fee: int = 10,
                     prizes: str = "60,40") -> None:
    """The owner's match form for a 定局积分 match, one hand a round, check-in 10 minutes before
    the start, registration open until the start (``starts``: a datetime-local value)."""
    page.fill("#id_name", name)
    page.select_option("#id_format", "fixed")
    page.fill("#id_starts_at", starts)
    page.fill("#id_registration_closes_at", starts)
    page.fill("#id_checkin_minutes", "10")
    page.fill("#id_entry_fee", str(fee))
    page.fill("#id_prize_values", prizes)
    page.fill("#id_hands_per_round", "1")
    page.fill("#id_rounds", str(rounds))


def play_round(pages, deadline_s: float = 240) -> None:
    """The present players click through their table's hand until its session is over."""
    for page in pages:
        page.wait_for_function("() => window.tableApp && window.tableApp.state && window.tableApp.state.stage !== 'seating'",
                               timeout=30000)
        page.set_default_timeout(3000)
    deadline = time.time() + deadline_s
    while time.time() < deadline:
        if all(p.evaluate("() => window.tableApp.state.stage === 'over'") for p in pages):
            break
        acted = False
        for page in pages:
            if play_step(page):
                acted = True
                page.wait_for_timeout(80)
        if not acted:
            pages[0].wait_for_timeout(250)
    else:
        raise AssertionError("the round did not end")
    for page in pages:
        page.set_default_timeout(15000)
