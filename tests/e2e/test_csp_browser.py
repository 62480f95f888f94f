"""The content policy in a real browser (issue 30): pages work, an inline script is refused and noticed.

The table, replay, match and chart pages are visited by their own browser tests, all of which fail
on any violation (tests/e2e/conftest.py); this file checks the watcher itself and the plain pages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.e2e_server import serve

pytestmark = pytest.mark.e2e
PASSWORD = "Xk7-paohuzi-pass"
SHOTS = Path(__file__).resolve().parents[2] / "test-output"
SEED = """
from apps.accounts.models import User
User.objects.create_user("csp_user", password="__PASSWORD__")
print("ok")
""".replace("__PASSWORD__", PASSWORD)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serve(tmp_path_factory.mktemp("e2e_csp") / "csp.sqlite3", SEED) as (url, _, shell):
        yield url


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=["phone", "desktop"])
def test_plain_pages_work_under_the_policy(server, browser, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="zh-CN")
    page = context.new_page()
    response = page.goto(f"{server}/accounts/login/")
    assert "script-src" in response.headers["content-security-policy"]
    page.fill("#id_username", "csp_user")
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    for path in ("/", "/clubs/", "/accounts/profile/", "/matches/mine/"):
        page.goto(f"{server}{path}")
        # the stylesheet applied: the top bar is laid out by static/css/base.css
        assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).display") != "inline"
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"csp-profile-{size[0]}.png"))
    context.close()


def test_an_inline_script_is_refused_and_reported(server, browser, csp_violations):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/accounts/login/")
    page.evaluate("""() => { const s = document.createElement('script'); s.textContent = 'window.pwned = 1';
                      document.body.append(s); }""")
    page.wait_for_timeout(300)
    assert page.evaluate("window.pwned === undefined")  # it did not run
    assert any("script-src" in v for v in csp_violations)
    csp_violations.clear()  # this one was expected
    context.close()
