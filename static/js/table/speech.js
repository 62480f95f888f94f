// Sound at the table (issue #47): every public move called out loud the way club apps call it (碰,
// 吃, 跑, 提, 偎, 臭, 胡了, 自摸, 放炮, 黄庄; a discarded or turned-up card by its name, 大拾) through
// the browser's speech synthesis with a Chinese voice; short tones where the device has no Chinese
// voice (or no speech at all); and the player's switch 语音 / 音效 / 静音, remembered on this device.
//
// What is called comes only from narrate.js's ``eventCalls``: the public events of each update the
// server already filtered for this viewer. No hidden card is ever named (a move is called without
// its card; a 偎 is just 偎), and no seat's option is ever said (options are not events).
//
// The tones for my turn and my claim options (``cue``) live here too: one place for all the sound.
import { fmt } from "../common/text.js";
import { legalActions } from "./board.js";
import { zhCardName } from "./cards.js";

const MODES = ["voice", "tones", "mute"];
const MODE_KEY = "paohuzi:sound";
const OLD_MUTE_KEY = "paohuzi:muted";  // the earlier ♪ switch: a player who muted stays muted

// The spoken words are Chinese whatever the page's language: the voice speaking them is a Chinese
// one (English calls read by it would be noise), and these are the game's own calls, as the card
// glyphs of cards.js are its own faces.
const CALLS = {
  chi: "吃", peng: "碰", pao: "跑", ti: "提", wei: "偎", chou_wei: "臭",
  hu: "胡了", zimo: "自摸", dianpao: "放炮", huang: "黄庄",
};
// The tones a call falls back to: a soft tick for a card, two notes for a move, three for a win.
const CALL_TONES = {
  card: { freqs: [392], gain: 0.05 }, move: { freqs: [587, 740] },
  win: { freqs: [660, 880, 1175] }, huang: { freqs: [440, 330] },
};
const WINS = new Set(["hu", "zimo", "dianpao"]);

// Speech never lags the table by more than a call or two: a call that has waited this long while
// others were spoken is dropped (the newest is always kept), and one utterance goes at a time (the
// browser's own queue never piles up). An utterance whose end never came is let go after STUCK_MS.
const STALE_MS = 1000;
const STUCK_MS = 4000;

const sound = {
  mode: readMode(),
  ctx: null,       // the AudioContext, opened by the first tap (browsers want a gesture)
  voice: null,     // the Chinese voice, once found
  queue: [],       // [{text, at}] calls waiting to be spoken
  current: null,   // the utterance being spoken
  since: 0,
  strings: {},
};

function readMode() {
  try {
    const saved = localStorage.getItem(MODE_KEY);
    if (MODES.includes(saved)) return saved;
    return localStorage.getItem(OLD_MUTE_KEY) === "1" ? "mute" : "voice";
  } catch {
    return "voice";  // private mode: no storage
  }
}

/** The current mode: "voice" (语音), "tones" (音效) or "mute" (静音). */
export function soundMode() { return sound.mode; }

function setMode(mode) {
  sound.mode = mode;
  try { localStorage.setItem(MODE_KEY, mode); } catch { /* private mode */ }
  if (mode !== "voice") silence();
  showSwitch();
}

// --- tones -------------------------------------------------------------------------------------

/** Short WebAudio beeps, one after another (nothing in 静音, nothing before the first tap). */
function beep(freqs, gain = 0.12) {
  if (sound.mode === "mute") return;
  try {
    if (!sound.ctx || sound.ctx.state !== "running") return;
    const now = sound.ctx.currentTime;
    freqs.forEach((f, i) => {
      const osc = sound.ctx.createOscillator();
      const amp = sound.ctx.createGain();
      osc.frequency.value = f;
      amp.gain.setValueAtTime(gain, now + i * 0.12);
      amp.gain.exponentialRampToValueAtTime(0.001, now + i * 0.12 + 0.11);
      osc.connect(amp).connect(sound.ctx.destination);
      osc.start(now + i * 0.12);
      osc.stop(now + i * 0.12 + 0.12);
    });
  } catch { /* no audio here: play on silently */ }
}

// Browsers start audio only after a gesture: the first tap on the page opens (or resumes) it.
document.addEventListener("pointerdown", () => {
  try {
    sound.ctx = sound.ctx || new AudioContext();
    if (sound.ctx.state === "suspended") sound.ctx.resume();
  } catch { /* no audio */ }
}, { passive: true });

/** My turn and my claim options, from one state to the next: two notes when 吃/碰/胡 becomes
 * possible for me, one when it is my turn to discard. */
export function cue(prev, next) {
  const kinds = (s) => new Set(legalActions(s && s.hand).map((a) => a.type));
  const was = kinds(prev);
  const now = kinds(next);
  if (["hu", "peng", "chi"].some((k) => now.has(k) && !was.has(k))) beep([660, 880]);
  else if (now.has("discard") && !was.has("discard")) beep([520]);
}

// --- speech ------------------------------------------------------------------------------------

const synth = () => (typeof window.speechSynthesis === "object" && window.speechSynthesis
  && typeof window.SpeechSynthesisUtterance === "function" ? window.speechSynthesis : null);

/** The device's Chinese voice (lang zh…): zh-CN first (Mandarin names the cards as players do),
 * then other Mandarin ones, Cantonese last; null when it has none. */
export function chineseVoice() {
  const s = synth();
  if (!s) return null;
  if (sound.voice) return sound.voice;
  const norm = (v) => String(v.lang || "").toLowerCase().replace("_", "-");
  const rank = (v) => {
    const lang = norm(v);
    if (lang === "zh-cn" || lang.startsWith("zh-hans")) return 0;
    if (lang === "zh" || lang === "zh-sg") return 1;
    if (lang === "zh-tw" || lang.startsWith("zh-hant")) return 2;
    return 3;  // zh-HK (Cantonese) and the rest
  };
  let voices = [];
  try { voices = s.getVoices() || []; } catch { /* none */ }
  const zh = [...voices].filter((v) => norm(v).startsWith("zh")).sort((a, b) => rank(a) - rank(b));
  sound.voice = zh[0] || null;
  return sound.voice;
}

// Voices may arrive after the page loaded: look again when the browser says so.
if (synth()) {
  try { synth().addEventListener("voiceschanged", () => { sound.voice = null; chineseVoice(); showSwitch(); }); } catch { /* old API */ }
}

function silence() {
  sound.queue = [];
  if (sound.current) {
    sound.current = null;
    try { synth().cancel(); } catch { /* gone */ }
  }
}

function pump() {
  const s = synth();
  if (!s) return;
  const now = Date.now();
  if (sound.current) {
    if (now - sound.since < STUCK_MS) return;
    sound.current = null;
    try { s.cancel(); } catch { /* gone */ }
  }
  while (sound.queue.length > 1 && now - sound.queue[0].at > STALE_MS) sound.queue.shift();
  const next = sound.queue.shift();
  const voice = chineseVoice();
  if (!next || !voice) return;
  const u = new window.SpeechSynthesisUtterance(next.text);
  u.voice = voice;
  u.lang = voice.lang || "zh-CN";
  u.rate = 1.2;
  const done = () => {
    if (sound.current !== u) return;
    sound.current = null;
    pump();
  };
  u.onend = done;
  u.onerror = done;
  sound.current = u;
  sound.since = now;
  try { s.speak(u); } catch { sound.current = null; }
}

/** The words of one call: the card's name for a discard or a turned-up card, the move's word else. */
export function callWords(call) {
  if (call.kind === "discard" || call.kind === "show") return call.card ? zhCardName(call.card) : "";
  return CALLS[call.kind] || "";
}

function callTone(call) {
  if (call.kind === "discard" || call.kind === "show") return CALL_TONES.card;
  if (WINS.has(call.kind)) return CALL_TONES.win;
  return call.kind === "huang" ? CALL_TONES.huang : CALL_TONES.move;
}

/** Call out the public moves of one update (narrate.js ``eventCalls``): spoken in 语音 with a
 * Chinese voice, as tones in 音效 or where there is no Chinese voice, nothing in 静音. */
export function callOut(calls) {
  if (sound.mode === "mute" || !calls || !calls.length) return;
  const speak = sound.mode === "voice" && chineseVoice();
  if (!speak) {
    // One tone per update (its last call): a burst of ticks would blur into a buzz.
    const tone = callTone(calls[calls.length - 1]);
    beep(tone.freqs, tone.gain);
    return;
  }
  for (const call of calls) {
    const text = callWords(call);
    if (!text) continue;
    sound.queue.push({ text, at: Date.now() });
    pump();
  }
}

// --- the switch: 语音 / 音效 / 静音 in the top bar ------------------------------------------------

const LABELS = { voice: "soundVoice", tones: "soundTones", mute: "soundMute" };
let button = null;
let menu = null;

function showSwitch() {
  if (!button) return;
  const t = sound.strings;
  const label = t[LABELS[sound.mode]] || sound.mode;
  button.textContent = label;
  button.dataset.mode = sound.mode;
  button.classList.toggle("muted", sound.mode === "mute");
  button.title = fmt(t.soundTitle || "%(mode)s", { mode: label });
  button.setAttribute("aria-label", button.title);
  if (!menu) return;
  menu.querySelectorAll("[data-mode]").forEach((item) => item.setAttribute("aria-checked", String(item.dataset.mode === sound.mode)));
  const note = menu.querySelector(".sound-note");
  note.hidden = Boolean(chineseVoice());
}

function openMenu(open) {
  menu.hidden = !open;
  button.setAttribute("aria-expanded", String(open));
  if (!open) return;
  chineseVoice();
  showSwitch();
  const r = button.getBoundingClientRect();
  menu.style.top = `${Math.round(r.bottom + 4)}px`;
  menu.style.right = `${Math.max(4, Math.round(window.innerWidth - r.right))}px`;
  (menu.querySelector('[aria-checked="true"]') || menu.querySelector("[data-mode]")).focus();
}

/** The switch: ``btn`` (the top bar's sound button) opens a small menu of the three modes; the
 * choice is kept in localStorage. ``t``: the page's strings. */
export function initSoundSwitch(btn, t) {
  button = btn;
  sound.strings = t;
  menu = document.createElement("div");
  menu.id = "sound-menu";
  menu.className = "sound-menu";
  menu.setAttribute("role", "menu");
  menu.setAttribute("aria-label", t.soundMenu || "");
  menu.hidden = true;
  for (const mode of MODES) {
    const item = Object.assign(document.createElement("button"), { type: "button", className: "sound-mode", textContent: t[LABELS[mode]] || mode });
    item.dataset.mode = mode;
    item.setAttribute("role", "menuitemradio");
    item.addEventListener("click", () => { setMode(mode); openMenu(false); button.focus(); });
    menu.append(item);
    if (mode === "voice") {
      const note = Object.assign(document.createElement("div"), { className: "sound-note", textContent: t.soundNoVoice || "" });
      note.setAttribute("role", "note");
      menu.append(note);
    }
  }
  document.body.append(menu);
  button.setAttribute("aria-haspopup", "menu");
  button.setAttribute("aria-controls", menu.id);
  button.removeAttribute("aria-pressed");
  button.addEventListener("click", () => openMenu(menu.hidden));
  document.addEventListener("click", (ev) => {
    if (!menu.hidden && !menu.contains(ev.target) && !button.contains(ev.target)) openMenu(false);
  });
  menu.addEventListener("keydown", (ev) => {
    const items = [...menu.querySelectorAll("[data-mode]")];
    const at = items.indexOf(document.activeElement);
    if (ev.key === "Escape") { ev.preventDefault(); openMenu(false); button.focus(); }
    else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      items[(at + (ev.key === "ArrowDown" ? 1 : items.length - 1)) % items.length].focus();
    }
  });
  // Tab out of the menu closes it (a tap outside does, above; a tap on the note inside does not).
  menu.addEventListener("focusout", (ev) => {
    const to = ev.relatedTarget;
    if (to && !menu.contains(to) && to !== button) openMenu(false);
  });
  window.addEventListener("resize", () => { if (!menu.hidden) openMenu(false); });
  showSwitch();
}
