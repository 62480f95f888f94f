"""Browser test: three players open a table, get ready and play a hand to the end by clicking.

A real Daphne (HTTP + WebSockets) runs in a subprocess against a throw-away SQLite file (pytest-django's
live_server is WSGI only). Phone viewport 390x844; screenshots land in test-output/table_*.png.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
OUT = ROOT / "test-output"
PASSWORD = "Paohuzi-e2e-2024"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"Debian chromium not found at {CHROMIUM}"),
]

SEED = """
PASSWORD = "__PASSWORD__"
from apps.accounts.models import User
from apps.clubs.models import Membership, RuleTemplate
from apps.clubs.services import club_create
users = [User.objects.create_user(username=f"e2e{i}", password=PASSWORD, display_name=n)
         for i, n in enumerate(["老王", "小李", "阿张"])]
club = club_create(name="跑胡子俱乐部", owner=users[0])
for u in users[1:]:
    Membership.objects.create(club=club, user=u, role="member")
RuleTemplate.objects.create(club=club, name="全名堂一局", preset="full", players=3, hands_per_session=1,
                            turn_seconds=300)
print(club.pk)
""".replace("__PASSWORD__", PASSWORD)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e") / "table.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "true", "REDIS_URL": "",
           "PYTHONPATH": f"{ROOT}:{ROOT / 'tests' / 'e2e'}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    club_id = subprocess.run([*manage, "shell", "-c", SEED], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True).stdout.strip().splitlines()[-1]
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                             "e2e_asgi:application"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    yield {"url": f"http://127.0.0.1:{port}", "club": int(club_id)}
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    OUT.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM,
                              args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


def sign_in(browser, base: str, username: str):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, locale="zh-CN")
    context.set_default_timeout(15000)
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    return page


def step(page) -> bool:
    """Make one decision from what this page shows; False when it has none."""
    legal = page.evaluate("() => (window.tableApp.state && window.tableApp.state.hand"
                          " && window.tableApp.state.hand.status === 'playing') ? window.tableApp.state.hand.legal : []")
    if not legal:
        return False
    kinds = {a["type"] for a in legal}
    if "discard" in kinds:
        card = page.locator(".my-hand .card.playable").last
        card.click()
        page.locator(".my-hand .card.selected").click()
    elif "hu" in kinds:
        page.click(".action-bar .act-hu")
    elif "pass" in kinds:
        page.click(".action-bar .act-pass")
    else:
        page.click(".action-bar .act")
        if page.locator("#chi-chooser:not([hidden]) .chi-option").count():
            page.locator("#chi-chooser .chi-option").first.click()
    return True


def test_three_players_play_a_hand_by_clicking(server, browser):
    base, club = server["url"], server["club"]
    pages = [sign_in(browser, base, f"e2e{i}") for i in range(3)]

    owner = pages[0]
    owner.goto(f"{base}/clubs/{club}/")
    owner.screenshot(path=str(OUT / "table_00_club.png"), full_page=True)
    owner.click("form.open-table button[type=submit]")
    owner.wait_for_url("**/tables/*/")
    table_url = owner.url
    for page in pages[1:]:
        page.goto(f"{base}/clubs/{club}/")
        page.click("#tables form[action$='/join/'] button")
        page.wait_for_url(table_url)
    for page in pages:
        page.wait_for_selector("#waiting:not([hidden]) .act-ready")
    owner.screenshot(path=str(OUT / "table_01_waiting.png"))
    for page in pages:
        page.click("#waiting .act-ready")
    for page in pages:
        page.wait_for_function("() => window.tableApp.state && window.tableApp.state.stage !== 'seating'")
    owner.screenshot(path=str(OUT / "table_02_dealt.png"))

    shots = 0
    deadline = time.time() + 240
    while time.time() < deadline:
        if all(p.evaluate("() => window.tableApp.state.stage") in ("settle", "over") for p in pages):
            break
        acted = False
        for page in pages:
            if step(page):
                acted = True
                if shots < 2:
                    page.screenshot(path=str(OUT / f"table_03_play_{shots}.png"))
                    shots += 1
                page.wait_for_timeout(150)
        if not acted:
            pages[0].wait_for_timeout(200)
    for page in pages:
        page.wait_for_selector("#settlement:not([hidden])")
    for i, page in enumerate(pages):
        page.screenshot(path=str(OUT / f"table_04_settlement_{i}.png"))
        page.screenshot(path=str(OUT / f"table_05_settlement_full_{i}.png"), full_page=True)
    text = pages[1].text_content("#settlement")
    assert "sha256" in text
    for page in pages:
        page.context.close()
