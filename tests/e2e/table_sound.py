"""Helpers of the spoken-calls browser test (issue #47), kept out of the test module itself.

``stub_script(...)`` is an init script that replaces the browser's speech synthesis with a recorder
(a fake voice, utterances that "end" after ``speak_ms``) and its WebAudio with a fake that records
every tone: what the page said and played is in ``window.__speech`` / ``window.__tones``.
``ENGINE_LOG`` reads a table's engine events from the server; ``expected_calls`` says what a
player should hear of a hand from them.
"""

from __future__ import annotations

import json

SMALL, BIG = "一二三四五六七八九十", "壹贰叁肆伍陆柒捌玖拾"

# A table's engine events (the audit copy, every card) per hand, in order: [[hand id, event], ...].
ENGINE_LOG = """
import json
from apps.tables.models import TableEvent
rows = TableEvent.objects.filter(table_id=__TABLE__, type="engine").order_by("seq")
print(json.dumps([[e.hand_id, e.payload] for e in rows]))
"""

MOVE_WORDS = {"chi": "吃", "peng": "碰", "pao": "跑", "ti": "提", "huang": "黄庄", "natural_win": "胡了"}
WIN_WORDS = {"self_draw": "自摸", "discard": "放炮"}


def card_words(card: str) -> str:
    """How a card is called: 小三 (s3), 大拾 (b10)."""
    rank = int(card[1:])
    return ("大" + BIG[rank - 1]) if card[0] == "b" else ("小" + SMALL[rank - 1])


def expected_calls(events: list[dict]) -> list[tuple[str, dict]]:
    """What a player hears of these engine events (the audit copy), in order, each with its event:
    a discarded or turned-up card by its name, every public move by its word, never a draw, a pass
    or the deal."""
    out = []
    for ev in events:
        kind = ev["type"]
        if kind in ("discard", "show"):
            out.append((card_words(ev["card"]), ev))
        elif kind == "wei":
            out.append(("臭" if ev.get("chou") else "偎", ev))
        elif kind == "hu":
            out.append((WIN_WORDS.get(ev.get("win_by"), "胡了"), ev))
        elif kind in MOVE_WORDS:
            out.append((MOVE_WORDS[kind], ev))
    return out


def hands_of(shell, table_id: int) -> dict[int, list[dict]]:
    """The table's engine events by hand id (in the order the hands were played)."""
    rows = json.loads(shell(ENGINE_LOG.replace("__TABLE__", str(table_id))))
    hands: dict[int, list[dict]] = {}
    for hand_id, event in rows:
        hands.setdefault(hand_id, []).append(event)
    return hands


def stub_script(*, voices=(("Fake 中文", "zh-CN"),), speak_ms: int = 0, speech: bool = True) -> str:
    """The init script: ``voices`` (name, lang) the fake speech synthesis offers; each utterance
    "ends" ``speak_ms`` after it starts, one at a time as a browser's queue does; ``speech`` False:
    the browser has no speech synthesis at all."""
    return """
(() => {
  window.__speech = [];   // {text, lang, voice, at, waiting}: one per speak()
  window.__cancels = 0;
  window.__tones = [];    // {freq, at}: one per oscillator started
  const { voices: VOICES, ms: MS, speech: SPEECH } = __CFG__;
  if (SPEECH) {
    class Utterance {
      constructor(text) { this.text = text; this.lang = ""; this.voice = null; this.rate = 1; this.onend = null; this.onerror = null; }
    }
    const queue = [];
    let current = null;
    const start = () => {
      if (current || !queue.length) return;
      current = queue.shift();
      const u = current;
      setTimeout(() => {
        if (current !== u) return;
        current = null;
        if (u.onend) u.onend({ utterance: u });
        start();
      }, MS);
    };
    const voices = VOICES.map(([name, lang]) => ({ name, lang, localService: true, default: false, voiceURI: name }));
    window.SpeechSynthesisUtterance = Utterance;
    Object.defineProperty(window, "speechSynthesis", { configurable: true, value: {
      get speaking() { return Boolean(current); },
      get pending() { return queue.length > 0; },
      getVoices: () => voices.slice(),
      speak(u) {
        window.__speech.push({ text: u.text, lang: u.lang, voice: u.voice && u.voice.name, at: Date.now(),
          waiting: queue.length + (current ? 1 : 0) });
        queue.push(u);
        start();
      },
      cancel() { window.__cancels += 1; queue.length = 0; const u = current; current = null; if (u && u.onerror) u.onerror({ error: "canceled" }); },
      pause() {}, resume() {},
      addEventListener() {}, removeEventListener() {},
    } });
  } else {
    Object.defineProperty(window, "speechSynthesis", { configurable: true, value: undefined });
    Object.defineProperty(window, "SpeechSynthesisUtterance", { configurable: true, value: undefined });
  }
  class Param { setValueAtTime() {} exponentialRampToValueAtTime() {} }
  class Node { connect(next) { return next || this; } }
  class Osc extends Node {
    constructor() { super(); this.frequency = { value: 0 }; }
    start() { window.__tones.push({ freq: this.frequency.value, at: Date.now() }); }
    stop() {}
  }
  class Gain extends Node { constructor() { super(); this.gain = new Param(); } }
  window.AudioContext = class {
    constructor() { this.state = "running"; this.destination = new Node(); }
    get currentTime() { return performance.now() / 1000; }
    createOscillator() { return new Osc(); }
    createGain() { return new Gain(); }
    resume() { return Promise.resolve(); }
  };
})();
""".replace("__CFG__", json.dumps({"voices": [list(v) for v in voices], "ms": speak_ms, "speech": speech}))


def spoken(page) -> list[dict]:
    return page.evaluate("() => window.__speech")


def tones(page) -> list[dict]:
    return page.evaluate("() => window.__tones")
