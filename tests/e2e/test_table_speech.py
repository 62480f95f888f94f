"""Browser tests of issue #47's spoken calls: every public move is called out loud, never a hidden card.

A phone in portrait (390x844) at a practice table (bots at a 0.05 s pace; this seat plays 胡, else
its last card, else 过), with the browser's speech synthesis and WebAudio replaced by recorders
(tests/e2e/table_sound.py): what the page said is compared with the engine events the server logged
for the hand - every discarded or turned-up card by its name, every move by its word, a 偎 as 偎
(the card of another seat's 偎 is hidden), nothing else. The switch 语音 / 音效 / 静音: 静音 says and
plays nothing, 音效 plays tones and says nothing, and the choice survives a reload; a device with
no Chinese voice gets the tones. Slow speech never lags the table: stale calls are dropped.
Screenshots: /tmp/shots/r-speech/*.png.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.e2e.browser import take_my_turn
from tests.e2e.e2e_server import serve
from tests.e2e.seeds import club_script
from tests.e2e.table_sound import expected_calls, hands_of, spoken, stub_script, tones

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/shots/r-speech")
PASSWORD = "Paohuzi-e2e-2024"
ROOM = "语音八局"
SEED = club_script(
    club="会说话的牌桌", users=[("sp_owner", "馆主")] + [(f"sp_p{i}", f"玩家{i}") for i in range(6)],
    password=PASSWORD, members=range(1, 7),
    templates=[dict(name=ROOM, preset="full", players=3, hands_per_session=8, turn_seconds=300, claim_seconds=120)],
)
PORTRAIT, LANDSCAPE, DESKTOP = (390, 844), (844, 390), (1280, 800)
PAGE_ERRORS: dict[str, list[str]] = {}  # username -> the uncaught script errors of his pages


def close(page, username: str) -> None:
    """End a test's page: no script error may have gone uncaught on it."""
    page.context.close()
    assert PAGE_ERRORS.pop(username, []) == []


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e_speech") / "speech.sqlite3"
    with serve(db, SEED, TABLES_BOT_DELAY="0.05") as (url, club_id, shell):
        yield {"url": url, "club": int(club_id), "shell": shell}


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def sign_in(browser, server, username: str, stub: str, size=PORTRAIT, locale="zh-CN"):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, device_scale_factor=2,
                                  locale=locale)
    context.set_default_timeout(15000)
    context.add_init_script(stub)
    page = context.new_page()
    errors = PAGE_ERRORS.setdefault(username, [])
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server['url']}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    return page


def open_table(page, server) -> int:
    """Open a practice table of the room (bots fill the other seats); not ready yet."""
    page.goto(f"{server['url']}/clubs/{server['club']}/")
    value = page.evaluate("""(name) => [...document.querySelectorAll('#open-template option')]
        .find((o) => o.textContent.startsWith(name)).value""", ROOM)
    page.select_option("#open-template", value=value)
    page.check("input[name=practice]")
    page.click("form.open-table button[type=submit]")
    page.wait_for_url("**/tables/*/")
    page.wait_for_selector("#waiting:not([hidden]) .act-ready")
    return page.evaluate("() => window.tableApp.state.id")


def play_hand(page, until=None) -> None:
    """Start the next hand (准备 / 下一局) and play this seat until it ends (or, given ``until``, as
    soon as ``until()`` is true): 胡 when offered, else the last legal discard (two taps), else 过."""
    page.click("#waiting:not([hidden]) .act-ready, #settlement:not([hidden]) .act-ready")
    page.wait_for_function("() => !['seating', 'settle'].includes(window.tableApp.state.stage)")
    deadline = time.time() + 150
    while time.time() < deadline:
        state = page.evaluate("() => window.tableApp.state")
        if state["stage"] in ("settle", "over") or (until is not None and until()):
            return
        take_my_turn(page, state["hand"], timeout=1500)
        page.wait_for_timeout(120)
    shot(page, "99_hand_did_not_end")
    raise AssertionError("the hand did not end in time")


def last_hand(server, table_id: int) -> list[dict]:
    hands = hands_of(server["shell"], table_id)
    return hands[max(hands)]


def choose(page, label: str) -> None:
    page.click("#mute-btn")
    page.wait_for_selector("#sound-menu:not([hidden])")
    page.get_by_role("menuitemradio", name=label).click()
    page.wait_for_selector("#sound-menu", state="hidden")
    assert page.text_content("#mute-btn") == label


def test_the_calls_are_the_public_events_and_never_a_hidden_card(server, browser):
    page = sign_in(browser, server, "sp_p0", stub_script())
    table_id = open_table(page, server)
    me = page.evaluate("() => window.tableApp.state.me")
    assert page.text_content("#mute-btn") == "语音"  # speech by default
    hidden_wei = 0
    for _ in range(6):  # hands until another seat has laid a hidden 偎 (most hands have one)
        before = len(spoken(page))
        play_hand(page)
        page.wait_for_timeout(600)  # the last call is said (the stub's speech takes no time)
        said = spoken(page)[before:]
        events = last_hand(server, table_id)
        want = expected_calls(events)
        assert [s["text"] for s in said] == [w for w, _ in want]
        assert {(s["lang"], s["voice"]) for s in said} == {("zh-CN", "Fake 中文")}
        # A card is named only where the event showed it to everyone: a discard or a turned-up card.
        for s, (_, ev) in zip(said, want, strict=True):
            named = any(ch in s["text"] for ch in "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾")
            assert named == (ev["type"] in ("discard", "show")), (s, ev)
        for _, ev in want:
            if ev["type"] == "wei" and not ev.get("chou") and ev["seat"] != me:
                hidden_wei += 1
        assert want[-1][1]["type"] in ("hu", "huang", "natural_win")
        if hidden_wei:
            break
    assert hidden_wei, "no hand had another seat's hidden 偎"
    shot(page, "10_voice_hand_end_portrait")
    close(page, "sp_p0")


def test_the_switch_mutes_or_plays_tones_and_is_remembered(server, browser):
    page = sign_in(browser, server, "sp_p1", stub_script())
    open_table(page, server)
    page.click("#mute-btn")
    menu = page.locator("#sound-menu")
    menu.wait_for(state="visible")
    assert page.locator("#sound-menu [role=menuitemradio]").all_text_contents() == ["语音", "音效", "静音"]
    assert page.get_by_role("menuitemradio", name="语音").get_attribute("aria-checked") == "true"
    assert page.locator("#sound-menu .sound-note").is_hidden()  # this device has a Chinese voice
    assert page.get_attribute("#mute-btn", "aria-expanded") == "true"
    shot(page, "20_switch_menu_portrait")
    page.keyboard.press("Escape")
    menu.wait_for(state="hidden")

    # 静音: nothing said, nothing played - and it is still 静音 after a reload.
    choose(page, "静音")
    page.reload()
    page.wait_for_selector("#waiting:not([hidden]) .act-ready")
    assert page.text_content("#mute-btn") == "静音"
    assert page.get_attribute("#mute-btn", "title") == "声音：静音"
    play_hand(page)
    page.wait_for_timeout(600)
    assert spoken(page) == [] and tones(page) == []
    shot(page, "21_muted_hand_end_portrait")

    # 音效: the tones, no word.
    choose(page, "音效")
    play_hand(page)
    page.wait_for_timeout(600)
    assert spoken(page) == []
    assert len(tones(page)) >= 5, tones(page)
    page.reload()
    page.wait_for_selector("#settlement:not([hidden]), #waiting:not([hidden])")
    assert page.text_content("#mute-btn") == "音效"

    # The switch in the top bar and its menu, whole on the screen, in every shape.
    for label, (w, h) in (("portrait", PORTRAIT), ("landscape", LANDSCAPE), ("desktop", DESKTOP)):
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(200)
        page.click("#mute-btn")
        menu.wait_for(state="visible")
        assert page.get_by_role("menuitemradio", name="音效").get_attribute("aria-checked") == "true"
        shot(page, f"22_switch_menu_{label}")
        bar = page.locator(".table-top").bounding_box()
        btn = page.locator("#mute-btn").bounding_box()
        box = menu.bounding_box()
        assert btn["y"] >= bar["y"] and btn["y"] + btn["height"] <= bar["y"] + bar["height"] + 0.5, (label, btn, bar)
        assert btn["height"] >= 43.5 and btn["x"] >= 0 and btn["x"] + btn["width"] <= w + 0.5, (label, btn)
        assert box["x"] >= 0 and box["x"] + box["width"] <= w and box["y"] + box["height"] <= h, (label, box)
        assert box["y"] >= btn["y"] + btn["height"], (label, box, btn)
        for other in ("#tuoguan-btn", ".rules summary", "#back-link"):
            o = page.locator(other)
            if o.count() and o.first.is_visible():
                ob = o.first.bounding_box()
                overlap = min(ob["x"] + ob["width"], btn["x"] + btn["width"]) - max(ob["x"], btn["x"]) > 0.5 and \
                    min(ob["y"] + ob["height"], btn["y"] + btn["height"]) - max(ob["y"], btn["y"]) > 0.5
                assert not overlap, (label, other, ob, btn)
        page.keyboard.press("Escape")
        menu.wait_for(state="hidden")
    close(page, "sp_p1")


def test_an_english_page_has_the_switch_in_english_and_the_calls_stay_chinese(server, browser):
    page = sign_in(browser, server, "sp_p5", stub_script(), locale="en-US")
    open_table(page, server)
    assert page.text_content("#mute-btn") == "Voice"
    assert page.get_attribute("#mute-btn", "title") == "Sound: Voice"
    page.click("#mute-btn")
    assert page.locator("#sound-menu [role=menuitemradio]").all_text_contents() == ["Voice", "Tones", "Mute"]
    shot(page, "40_switch_menu_english")
    page.keyboard.press("Escape")
    play_hand(page, until=lambda: len(spoken(page)) >= 8)  # a few calls are enough to hear the language
    said = spoken(page)
    assert said and {s["lang"] for s in said} == {"zh-CN"}
    assert all(s["text"] and not any(c.isascii() for c in s["text"]) for s in said), said
    close(page, "sp_p5")


@pytest.mark.parametrize(("user", "stub", "synthesis"), [
    ("sp_p2", stub_script(voices=(("English", "en-US"),)), "object"),  # speech, but no Chinese voice
    ("sp_p4", stub_script(speech=False), "undefined"),  # no speech synthesis at all
], ids=["english-voice-only", "no-speech-api"])
def test_no_chinese_voice_means_tones(server, browser, user, stub, synthesis):
    page = sign_in(browser, server, user, stub)
    open_table(page, server)
    assert page.evaluate("() => typeof window.speechSynthesis") == synthesis
    assert page.text_content("#mute-btn") == "语音"
    page.click("#mute-btn")
    assert page.text_content("#sound-menu .sound-note") == "本机没有中文语音，改用音效"
    assert page.locator("#sound-menu .sound-note").is_visible()
    shot(page, f"30_no_chinese_voice_menu_{user}")
    page.keyboard.press("Escape")
    play_hand(page, until=lambda: len(tones(page)) >= 5)
    assert spoken(page) == []
    assert len(tones(page)) >= 5
    close(page, user)


def test_slow_speech_drops_stale_calls_and_never_lags(server, browser):
    page = sign_in(browser, server, "sp_p3", stub_script(speak_ms=700))
    table_id = open_table(page, server)
    for _ in range(3):  # a hand of at least 20 calls: a very short one may have needed no drop
        before = len(spoken(page))
        play_hand(page)
        at_end = len(spoken(page)) - before
        want = [w for w, _ in expected_calls(last_hand(server, table_id))]
        # Counts, not clocks (this machine is shared and noisy): wait for the hand's last call, then
        # check that only the calls of the hand's last moment came after the hand ended. Queued in
        # full at 0.7 s a call, the backlog would still be reading the hand's middle.
        page.wait_for_function("([last, before]) => { const s = window.__speech; "
                               "return s.length > before && s[s.length - 1].text === last; }",
                               arg=[want[-1], before], timeout=15000)
        said = spoken(page)[before:]
        if len(want) >= 20:
            break
    texts = [s["text"] for s in said]
    # In order, some dropped (the bots play far faster than 0.7 s a call), none piled up in the
    # browser's queue, and the hand's last call said, not skipped.
    rest = iter(want)
    assert all(any(w == x for w in rest) for x in texts), (texts, want)
    assert len(texts) < len(want), (texts, want)
    assert max(s["waiting"] for s in said) == 0
    assert texts[-1] == want[-1]
    assert len(said) - at_end <= 4, texts[at_end:]
    close(page, "sp_p3")
