"""Browser tests of issue #41: a tap made while the table's socket is down is never lost.

The network goes away mid-hand (``context.set_offline``: Chromium keeps an open WebSocket working,
so the page closes it itself on the ``offline`` event, as a phone whose network changed must). The
player's discard, 托管 switch and 准备 wait in the page's outbox, marked as pending, the screen says
after 5 s that they have not gone; once online they go, each exactly once (the server's event log
says so). A move the table went past meanwhile is dropped and said; a move whose socket died before
its ack is sent again and counted once (the server's ``dup`` ack); a socket that swallows messages
is let go after a few seconds with no ack. A refused socket says why and stops retrying; a busy
one retries. Screenshots (390x844, one 844x390): /tmp/table-offline/*.png.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.e2e.e2e_server import serve
from tests.e2e.seeds import TABLE_LOG, club_script

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from tests.e2e.browser import PASSWORD, open_practice, play_until_settle, sign_in, socket_log  # noqa: E402

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/table-offline")
SEED = club_script(
    club="断线俱乐部", users=[("of_owner", "馆主")] + [(f"of_p{i}", f"玩家{i}") for i in range(7)],
    password=PASSWORD, members=range(1, 8),
    templates=[dict(name="练习八局", preset="full", players=3, hands_per_session=8, turn_seconds=300,
                    claim_seconds=120)],
)

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_offline") / "offline.sqlite3"
    with serve(db, SEED, TABLES_BOT_DELAY="0.05") as (url, club_id, shell):
        yield {"url": url, "club": int(club_id), "shell": shell}


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def table_id(page) -> int:
    return int(page.evaluate("() => window.tableApp.state.id"))


def my_turn(page, *, first: bool = False) -> tuple[int, int, str]:
    """Wait for the player's turn to discard: the table's id, his seat and his first or last
    discardable card."""
    page.wait_for_function("() => { const s = window.tableApp.state; return s.stage === 'hand' && s.hand.view.phase === 'discard' && s.hand.view.turn === s.me; }")
    me = page.evaluate("() => window.tableApp.state.me")
    cards = [a["card"] for a in page.evaluate("() => window.tableApp.state.hand.view.legal_actions") if a["type"] == "discard"]
    return table_id(page), me, cards[0] if first else cards[-1]


def events(server, tid: int) -> list:
    """The table's logged player actions and seat events, from the server's database."""
    return json.loads(server["shell"](TABLE_LOG.replace("__TABLE__", str(tid))))


def my_actions(server, tid: int, seat: int, kind: str) -> list:
    return [p["action"] for t, p in events(server, tid) if t == "action" and p.get("seat") == seat
            and p.get("action", {}).get("type") == kind]


def go_offline(page) -> None:
    page.context.set_offline(True)
    page.wait_for_selector("#conn:not([hidden])")
    assert re.search("断开|重连", page.text_content("#conn")), page.text_content("#conn")


def box(page, selector: str) -> dict | None:
    return page.evaluate("""(sel) => { const el = document.querySelector(sel);
        if (!el || el.hidden) return null; const r = el.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; }""", selector)


def assert_clear_of_play(page) -> None:
    """The banner and the outbox line cover neither my hand nor the action buttons."""
    banners = [b for b in (box(page, "#conn"), box(page, "#outbox")) if b]
    assert banners
    keep = page.evaluate("""() => [...document.querySelectorAll('.my-hand .card, .action-bar .act, #tuoguan-btn')]
        .filter((el) => el.getClientRects().length).map((el) => { const r = el.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, cls: el.className}; })""")
    for b in banners:
        for k in keep:
            overlap = b["left"] < k["right"] and k["left"] < b["right"] and b["top"] < k["bottom"] and k["top"] < b["bottom"]
            assert not overlap, (b, k)


def test_a_discard_made_offline_goes_once_when_back_online(server, browser):
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p0", has_touch=False)
    frames = socket_log(page)
    open_practice(page, base, club)
    tid, me, card = my_turn(page)
    before = page.evaluate("() => window.tableApp.state.hand.view.hand_sizes[window.tableApp.state.me]")

    go_offline(page)
    target = page.locator(f'.my-hand .card.playable[data-card="{card}"]').first
    target.click()
    page.locator(".my-hand .card.selected").click()
    # The tapped card stays in the hand, marked as pending; the line says it is being sent.
    page.wait_for_selector(f'.my-hand .card.pending[data-card="{card}"]')
    page.wait_for_selector("#outbox:not([hidden])")
    assert "发送中" in page.text_content("#outbox")
    # After 5 s it says the move has not gone, and that it will.
    page.wait_for_function("() => document.querySelector('#outbox').textContent.includes('未送出')", timeout=9000)
    assert page.text_content("#outbox") == "未送出：网络断开，重连后会自动发送"
    assert "重连" in page.text_content("#conn")
    page.wait_for_timeout(400)  # (the mark fades in)
    shot(page, "discard_pending_portrait")
    assert_clear_of_play(page)
    page.set_viewport_size({"width": 844, "height": 390})
    page.wait_for_timeout(400)
    shot(page, "discard_pending_landscape")
    assert_clear_of_play(page)
    page.set_viewport_size({"width": 390, "height": 844})
    assert my_actions(server, tid, me, "discard") == []  # nothing reached the server

    page.context.set_offline(False)
    page.wait_for_selector("#conn", state="hidden")
    page.wait_for_selector("#outbox", state="hidden")
    page.wait_for_function("(n) => window.tableApp.state.hand.view.hand_sizes[window.tableApp.state.me] < n", arg=before)
    assert page.locator(".pending").count() == 0
    assert my_actions(server, tid, me, "discard") == [{"type": "discard", "card": card}]
    sent = [p for kind, p in frames if kind == "sent" and '"act"' in p]
    assert len(sent) == 1, sent  # sent once, on the new socket, after its fresh state
    assert page.locator("#toast").is_hidden()
    page.context.close()


def test_a_move_whose_socket_died_before_its_ack_counts_once(server, browser):
    """The socket dies right after a discard went out, before its update and ack came back: the page
    cannot know whether it counted, so it sends it again (same id, same seq) on the next socket; the
    server answers that it had it (``dup``), and the move counts once, with no word of failure."""
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p4", has_touch=False)
    frames = socket_log(page)
    open_practice(page, base, club)
    tid, me, card = my_turn(page)
    page.evaluate("""(card) => {
        const enter = (el) => el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
        enter(document.querySelector(`.my-hand .card.playable[data-card="${card}"]`));
        enter(document.querySelector(".my-hand .card.selected"));
        window.tableApp.socket.drop();  // the frame is out; its answer will find no socket
    }""", card)
    page.wait_for_function("() => window.tableApp.socket.live && window.tableApp.socket.outbox.length === 0")
    assert my_actions(server, tid, me, "discard") == [{"type": "discard", "card": card}]
    sent = [json.loads(p) for kind, p in frames if kind == "sent" and '"act"' in p]
    assert len(sent) == 2 and sent[0] == sent[1], sent  # the same message twice: same id, seq, action
    acks = [json.loads(p) for kind, p in frames if kind == "received" and '"ack"' in p]
    assert any(a.get("id") == sent[0]["id"] and a.get("dup") for a in acks), acks
    page.wait_for_timeout(500)
    assert page.locator("#toast").is_hidden()
    page.context.close()


def test_a_socket_that_swallows_messages_is_let_go(server, browser):
    """A socket that looks open but is dead (a phone whose network changed under it: no close comes)
    swallows the discard: with no ack for a few seconds the page says it is still sending, lets the
    socket go, reconnects and sends it again; it counts once."""
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p5", has_touch=False)
    dead = {"victim": 0, "sockets": 0}  # the socket that swallows what the page sends

    def route(ws):
        dead["sockets"] += 1
        upstream = ws.connect_to_server()
        mine = dead["sockets"]

        def to_server(message):
            if mine != dead["victim"]:
                upstream.send(message)

        ws.on_message(to_server)

    page.route_web_socket(re.compile(r".*/ws/tables/.*"), route)
    open_practice(page, base, club)
    tid, me, card = my_turn(page)
    sockets = dead["sockets"]
    dead["victim"] = sockets
    page.locator(f'.my-hand .card.playable[data-card="{card}"]').first.click()
    page.locator(".my-hand .card.selected").click()
    page.wait_for_selector(f'.my-hand .card.pending[data-card="{card}"]')
    # A tap waiting for its ack hurries the heartbeat: its ping goes unanswered and the socket is let go.
    page.wait_for_selector("#conn:not([hidden])", timeout=4000)
    shot(page, "still_sending_portrait")
    page.wait_for_function("() => window.tableApp.socket.live && window.tableApp.socket.outbox.length === 0",
                           timeout=20000)
    assert dead["sockets"] == sockets + 1
    assert my_actions(server, tid, me, "discard") == [{"type": "discard", "card": card}]
    page.wait_for_selector("#outbox", state="hidden")
    assert page.locator("#toast").is_hidden()
    page.context.close()


def test_a_network_lost_in_silence_on_my_turn_shows_within_2_s(server, browser):
    """A phone whose network goes without a word (no "offline" event, no close: a lift, a tunnel)
    while it is his turn: nothing comes either way, and within 2 s the page says the connection is
    lost (its heartbeat pings sooner while the player has a move); it reconnects when it can."""
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p6", has_touch=False)
    dead = {"victim": 0, "sockets": 0}  # the socket whose messages go nowhere, either way

    def route(ws):
        dead["sockets"] += 1
        upstream = ws.connect_to_server()
        mine = dead["sockets"]
        ws.on_message(lambda message: mine != dead["victim"] and upstream.send(message))
        upstream.on_message(lambda message: mine != dead["victim"] and ws.send(message))

    page.route_web_socket(re.compile(r".*/ws/tables/.*"), route)
    open_practice(page, base, club)
    my_turn(page)
    dead["victim"] = dead["sockets"]
    page.wait_for_selector("#conn:not([hidden])", timeout=2000)  # within 2 s
    assert "重连" in page.text_content("#conn"), page.text_content("#conn")
    shot(page, "silent_loss_portrait")
    page.wait_for_function("() => document.querySelector('#conn').textContent === '已重新连接'", timeout=10000)
    assert dead["sockets"] > dead["victim"]
    page.context.close()


def readies(server, tid: int, seat: int) -> int:
    return len([1 for t, p in events(server, tid) if t == "seat.ready" and p.get("seat") == seat])


def test_ready_and_tuoguan_made_offline_go_once(server, browser):
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p1", has_touch=False)
    page.goto(f"{base}/clubs/{club}/")
    page.check("input[name=practice]")
    page.click("form.open-table button[type=submit]")
    page.wait_for_url("**/tables/*/")
    page.wait_for_selector("#waiting:not([hidden]) .act-ready")
    tid = table_id(page)
    me = page.evaluate("() => window.tableApp.state.me")

    # 准备 before the first hand, tapped offline: pending, then the hand starts once back online.
    go_offline(page)
    page.click("#waiting .act-ready")
    page.wait_for_selector("#waiting .act-ready.pending")
    page.wait_for_function("() => document.querySelector('#outbox').textContent.includes('未送出')", timeout=9000)
    page.wait_for_timeout(300)
    shot(page, "ready_waiting_pending_portrait")
    assert readies(server, tid, me) == 0
    page.context.set_offline(False)
    page.wait_for_function("() => window.tableApp.state.stage === 'hand'")
    page.wait_for_selector("#outbox", state="hidden")
    assert readies(server, tid, me) == 1

    # 托管 on, tapped offline: pending on the switch, on once back online; then off again.
    go_offline(page)
    page.click("#tuoguan-btn")
    page.wait_for_selector("#tuoguan-btn.pending")
    assert page.get_attribute("#tuoguan-btn", "aria-checked") == "false"
    page.wait_for_timeout(700)
    shot(page, "tuoguan_pending_portrait")
    page.context.set_offline(False)
    page.wait_for_function("() => { const s = window.tableApp.state; return s.stage !== 'hand' || s.seats[s.me].tuoguan; }")
    page.wait_for_selector("#tuoguan-btn.pending", state="detached")
    switches = [p for t, p in events(server, tid) if t == "seat.tuoguan" and p.get("seat") == me]
    assert [p.get("on") for p in switches] == [True], switches
    if page.evaluate("() => { const s = window.tableApp.state; return s.stage === 'hand' && s.seats[s.me].tuoguan; }"):
        page.click("#tuoguan-btn")
    page.wait_for_function("() => { const s = window.tableApp.state; return !s.seats[s.me].tuoguan; }")
    page.wait_for_function("() => window.tableApp.state.stage === 'hand'")  # (托管 may have finished hand 1)

    # 准备 between hands, tapped offline.
    play_until_settle(page)
    page.wait_for_selector("#settlement:not([hidden]) .act-ready")
    before = readies(server, tid, me)
    number = page.evaluate("() => window.tableApp.state.hand.number")
    go_offline(page)
    page.click("#settlement .act-ready")
    page.wait_for_selector("#settlement .act-ready.pending")
    page.wait_for_function("() => document.querySelector('#outbox').textContent.includes('未送出')", timeout=9000)
    shot(page, "ready_settle_pending_portrait")
    page.context.set_offline(False)
    page.wait_for_function("(n) => window.tableApp.state.hand && window.tableApp.state.hand.number > n", arg=number)
    page.wait_for_selector("#outbox", state="hidden")
    assert readies(server, tid, me) == before + 1
    page.context.close()


def test_a_move_the_table_moved_past_is_said_not_sent(server, browser):
    """A discard tapped offline while the table then goes on without it (the player discards another
    card from his other phone) is dropped, and the screen says so: never applied, never silently gone."""
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p2", has_touch=False)
    frames = socket_log(page)
    open_practice(page, base, club)
    tid, me, card = my_turn(page, first=True)
    legal = page.evaluate("() => window.tableApp.state.hand.view.legal_actions")
    go_offline(page)
    page.locator(f'.my-hand .card.playable[data-card="{card}"]').first.click()
    page.locator(".my-hand .card.selected").click()
    page.wait_for_selector(".my-hand .card.pending")
    # Meanwhile the table moves on: he discards another card from his other phone.
    other = sign_in(browser, base, "of_p2", has_touch=False)
    other.goto(page.url)
    other.wait_for_function("() => window.tableApp.state && window.tableApp.state.stage === 'hand'")
    other_card = [a for a in legal if a["type"] == "discard"][-1]["card"]
    assert other_card != card
    other.locator(f'.my-hand .card.playable[data-card="{other_card}"]').first.click()
    other.locator(".my-hand .card.selected").click()
    deadline = time.time() + 15
    while time.time() < deadline and not my_actions(server, tid, me, "discard"):
        time.sleep(0.3)
    played = my_actions(server, tid, me, "discard")
    assert played == [{"type": "discard", "card": other_card}], played
    other.context.close()
    page.context.set_offline(False)
    page.wait_for_selector("#toast:not([hidden])")
    assert page.text_content("#toast") == "牌局已经往下进行，这一步没有送出"
    page.wait_for_selector("#outbox", state="hidden")
    assert page.locator(".pending").count() == 0
    assert my_actions(server, tid, me, "discard") == played  # his tap did not make a second discard
    assert not [p for kind, p in frames if kind == "sent" and '"act"' in p]
    page.context.close()


def test_a_refused_socket_says_why_and_stops_retrying(server, browser):
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p3", has_touch=False)
    opened = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    open_practice(page, base, club)
    tid = table_id(page)
    # The table goes away while the page is offline: the next socket is refused with 4404.
    go_offline(page)
    server["shell"](f"from apps.tables.models import Table; Table.objects.filter(pk={tid}).delete()")
    page.context.set_offline(False)
    page.wait_for_selector("#conn.refused")
    assert page.text_content("#conn") == "这张牌桌不存在或已解散。"
    count = len(opened)
    page.wait_for_timeout(4000)
    assert len(opened) == count, opened  # no retry
    shot(page, "refused_4404_portrait")
    page.context.close()


@pytest.mark.parametrize(("code", "words", "retries"), [
    (4401, "请先登录。", False),
    (4403, "你不能进入这张牌桌。", False),
    (4429, "这张牌桌在太多页面中打开了：请关闭其他页面，再刷新本页。", False),
    (4503, "服务器繁忙，正在重连…", True),
    (1013, "重连中…", True),
])
def test_close_codes(server, browser, code, words, retries):
    """Each close code the server may refuse a socket with, played by a stand-in socket: the
    refusals say their sentence and stop; the others keep retrying with backoff and say so."""
    base, club = server["url"], server["club"]
    page = sign_in(browser, base, "of_p3", has_touch=False)
    page.goto(f"{base}/clubs/{club}/")
    page.check("input[name=practice]")
    page.click("form.open-table button[type=submit]")
    page.wait_for_url("**/tables/*/")
    page.wait_for_function("() => window.tableApp && window.tableApp.state")
    attempts = []

    def refuse(ws):
        attempts.append(time.time())
        ws.close(code=code, reason="test")

    page.route_web_socket(re.compile(r".*/ws/tables/.*"), refuse)
    page.reload()
    page.wait_for_selector("#conn:not([hidden])")
    page.wait_for_function("(w) => document.querySelector('#conn').textContent.startsWith(w)", arg=words)
    page.wait_for_timeout(3500)
    if retries:
        assert len(attempts) >= 3, attempts
        assert not page.locator("#conn.refused").count()
    else:
        assert len(attempts) == 1, attempts
        assert page.locator("#conn.refused").count() == 1
    if code == 4401:
        link = page.locator("#conn a")
        assert link.text_content() == "登录" and "next=" in link.get_attribute("href")
        shot(page, "refused_4401_portrait")
    if code == 4503:
        shot(page, "busy_4503_portrait")
    page.context.close()
