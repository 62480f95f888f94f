// Boot the table page: config and strings come from JSON blobs rendered by the template.
import { askConfirm } from "../common/dialog.js";
import { $, jsonScript } from "../common/dom.js";
import { fmt } from "../common/text.js";
import { renderCenter, renderMine, renderOpponents, saveArrangement, updateRing } from "./board.js";
import { moveCard } from "./cards.js";
import { renderActions, renderChiChooser, renderDissolve, renderOver, renderPiao, renderSettlement, renderWaiting } from "./panels.js";
import { TableSocket } from "./socket.js";

const cfg = jsonScript("table-config");
const t = jsonScript("table-strings");

let state = null;
let drag = null;  // the card being dragged in my hand: render waits until it is dropped
let renderPending = false;
const ui = { selected: null, chi: null, columns: [], onCard, bindCard };

const api = {
  act(action) {
    ui.selected = null;
    ui.chi = null;
    socket.act(action);
    render();
  },
  send: (message) => socket.send(message),
  dissolve: () => confirmDissolve(),
  chooseChi(options) { ui.chi = options; render(); },
  async post(url) {
    const res = await postJson(url);
    if (!res.ok) showError((await res.json().catch(() => ({}))).message || t.error_generic);
    return res;
  },
  async rematch() {
    const res = await postJson(cfg.urls.rematch);
    const body = await res.json().catch(() => ({}));
    if (res.ok && body.url) location.href = body.url;
    else showError(body.message || t.error_generic);
  },
};

function postJson(url) {
  const token = document.querySelector("[name=csrfmiddlewaretoken]").value;
  return fetch(url, { method: "POST", headers: { "X-CSRFToken": token, Accept: "application/json" } });
}

function onCard(name, key) {
  // First tap selects, a second tap on the same card discards (when a discard is legal).
  const legal = (state.hand && state.hand.legal) || [];
  const canDiscard = legal.some((a) => a.type === "discard" && a.card === name);
  if (ui.selected === key && canDiscard) api.act({ type: "discard", card: name });
  else { ui.selected = ui.selected === key ? null : key; render(); }
}

/** Pointer Events on one card of my hand: a tap selects / discards, a drag moves the card to another
 * column (or a new one), a drag up out of the hand discards it when that is legal. */
function bindCard(el, name, col, at, canDiscard) {
  el.tabIndex = 0;
  el.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onCard(name, el.dataset.key); }
  });
  el.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || drag) return;
    ev.preventDefault();
    el.setPointerCapture(ev.pointerId);
    drag = { el, name, col, at, canDiscard, x0: ev.clientX, y0: ev.clientY, moved: false, id: ev.pointerId };
  });
  el.addEventListener("pointermove", (ev) => {
    if (!drag || drag.el !== el || drag.id !== ev.pointerId) return;
    const dx = ev.clientX - drag.x0;
    const dy = ev.clientY - drag.y0;
    if (!drag.moved && Math.hypot(dx, dy) < 8) return;
    drag.moved = true;
    el.classList.add("dragging");
    el.style.transform = `translate(${dx}px, ${dy}px)`;
    const target = dropTarget(ev.clientX, ev.clientY);
    document.querySelectorAll(".my-hand .drop-target").forEach((c) => c.classList.remove("drop-target"));
    if (target.kind === "column" && target.el) target.el.classList.add("drop-target");
    $("felt").classList.toggle("discard-zone", target.kind === "discard");
  });
  const finish = (ev, cancelled) => {
    if (!drag || drag.el !== el || drag.id !== ev.pointerId) return;
    const d = drag;
    const target = d.moved && !cancelled ? dropTarget(ev.clientX, ev.clientY) : { kind: "none" };
    drag = null;
    $("felt").classList.remove("discard-zone");
    if (cancelled) { render(); return; }
    if (!d.moved) { onCard(name, el.dataset.key); return; }
    if (target.kind === "discard") { api.act({ type: "discard", card: name }); return; }
    if (target.kind === "column" && target.col !== d.col) {
      ui.columns = moveCard(ui.columns, d.col, d.at, target.col);
      ui.selected = null;
      saveArrangement(state, ui.columns);
    }
    render();
  };
  el.addEventListener("pointerup", (ev) => finish(ev, false));
  el.addEventListener("pointercancel", (ev) => finish(ev, true));
}

/** What lies under a dragged card: the discard zone (above the hand, when discarding is legal), a
 * column of my hand (by x; ``col`` -1 is a new column), or nothing. */
function dropTarget(x, y) {
  const hand = document.querySelector(".my-hand");
  if (!hand || !drag) return { kind: "none" };
  const box = hand.getBoundingClientRect();
  if (y < box.top - 12) return drag.canDiscard ? { kind: "discard" } : { kind: "none" };
  const cols = [...hand.querySelectorAll(".column")];
  for (const c of cols) {
    const r = c.getBoundingClientRect();
    if (x >= r.left - 1 && x <= r.right + 1) {
      if (c.classList.contains("locked")) return { kind: "none" };
      return { kind: "column", col: Number(c.dataset.col), el: c };
    }
  }
  const last = cols[cols.length - 1];
  if (last && x > last.getBoundingClientRect().right) return { kind: "column", col: -1, el: last };
  return { kind: "none" };
}

function showError(message) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 3000);
}

// Bot seats are named here, in the viewer's language (the server sends one copy per seat, not per
// language).
function nameBots(next) {
  next.seats.forEach((s) => { if (!s.user_id && s.bot) s.name = fmt(t.botName, { n: s.index + 1 }); });
  (next.summary || []).forEach((r) => { if (!r.name && next.seats[r.index]) r.name = next.seats[r.index].name; });
}

function render() {
  if (!state) return;
  if (drag && drag.moved) { renderPending = true; return; }
  renderPending = false;
  document.body.dataset.stage = state.stage;
  $("felt").dataset.watching = state.me === null || state.me === undefined ? "1" : "";
  renderOpponents($("opponents"), state, t);
  renderCenter($("center"), state, t);
  renderMine($("mine"), state, t, ui);
  renderActions($("actions"), state, t, api);
  renderChiChooser($("chi-chooser"), ui.chi, t, api);
  renderWaiting($("waiting"), state, t, api, cfg);
  renderPiao($("piao"), state, t, api);
  renderSettlement($("settlement"), state, t, api, cfg);
  renderOver($("over"), state, t, cfg, api);
  renderDissolve($("dissolve"), state, t, api);
  const canPropose = state.status === "playing" && state.me !== null && state.me !== undefined && !state.dissolve;
  $("dissolve-btn").hidden = !canPropose;
  renderTuoguanSwitch($("tuoguan-btn"), state);
  renderEscape($("escape-btn"), state);
}

// --- 逃跑 (RULES.md §8.6, issue 26) ------------------------------------------------------------

/** The 逃跑 button: only where the server offers it (the table's rules have it, never a match
 * table), which it does with the penalty this player would pay now (``hand.escape.pays``). */
function renderEscape(btn, st) {
  const hand = st.hand;
  const offered = Boolean(hand && hand.status === "playing" && hand.escape
    && (hand.legal || []).some((a) => a.type === "escape"));
  btn.hidden = !offered;
}

/** Leaving cannot be taken back: the page's dialog says what it costs now, and only a confirmed
 * answer sends the action. */
async function confirmEscape() {
  const hand = state && state.hand;
  if (!hand || !hand.escape) return;
  const yes = await askConfirm({
    title: t.escapeTitle, message: fmt(t.escapeConfirm, { n: hand.escape.pays }),
    ok: t.escape, cancel: t.cancel, danger: true,
  });
  const now = state && state.hand;
  if (yes && now && now.status === "playing" && (now.legal || []).some((a) => a.type === "escape")) {
    api.act({ type: "escape" });
  }
}
$("escape-btn").addEventListener("click", () => confirmEscape());

// --- the 托管 switch and the 解散 confirmation (issue 24) ----------------------------------------

/** The player's own 托管 switch: shown to a seated player while the table plays; its state is his
 * seat's public flag (a time-out may have switched it on), a tap asks the server to flip it. */
function renderTuoguanSwitch(btn, st) {
  const seat = st.me !== null && st.me !== undefined ? st.seats[st.me] : null;
  btn.hidden = !(seat && st.status === "playing");
  const on = Boolean(seat && seat.tuoguan);
  btn.setAttribute("aria-checked", on ? "true" : "false");
  btn.classList.toggle("on", on);
  btn.textContent = on ? t.tuoguanOn : t.tuoguan;
  btn.title = on ? t.cancelTuoguan : t.tuoguanHelp;
}
$("tuoguan-btn").addEventListener("click", () => {
  const seat = state && state.me !== null && state.me !== undefined ? state.seats[state.me] : null;
  if (seat) socket.send({ type: "tuoguan", on: !seat.tuoguan });
});

/** 解散 asks first, in the page's own dialog: the creator of a waiting table ends it at once; at a
 * playing table a seated player proposes a vote that everyone must agree to. */
async function confirmDissolve() {
  if (!state) return;
  const waiting = state.status === "waiting";
  const yes = await askConfirm({
    title: waiting ? t.dissolveTable : t.dissolvePropose,
    message: waiting ? t.dissolveConfirmWaiting : t.dissolveConfirmVote,
    ok: waiting ? t.dissolveTable : t.dissolvePropose, cancel: t.cancel, danger: true,
  });
  if (yes) socket.send({ type: "dissolve", vote: true });
}

// --- sound: short WebAudio beeps for my turn and my claim options, with a mute switch -------------
const sound = { ctx: null, muted: localStorage.getItem("paohuzi:muted") === "1" };
function beep(freqs) {
  if (sound.muted) return;
  try {
    if (!sound.ctx || sound.ctx.state !== "running") return;
    const now = sound.ctx.currentTime;
    freqs.forEach((f, i) => {
      const osc = sound.ctx.createOscillator();
      const gain = sound.ctx.createGain();
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.12, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.001, now + i * 0.12 + 0.11);
      osc.connect(gain).connect(sound.ctx.destination);
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
function cue(prev, next) {
  const legal = (s) => (s && s.hand && s.hand.status === "playing" && s.hand.legal) || [];
  const kinds = (s) => new Set(legal(s).map((a) => a.type));
  const was = kinds(prev);
  const now = kinds(next);
  if (["hu", "peng", "chi"].some((k) => now.has(k) && !was.has(k))) beep([660, 880]);
  else if (now.has("discard") && !was.has("discard")) beep([520]);
}
const muteBtn = $("mute-btn");
function showMute() {
  muteBtn.textContent = "♪";
  muteBtn.classList.toggle("muted", sound.muted);
  muteBtn.title = sound.muted ? t.soundOn : t.soundOff;
  muteBtn.setAttribute("aria-pressed", sound.muted ? "true" : "false");
}
muteBtn.addEventListener("click", () => {
  sound.muted = !sound.muted;
  localStorage.setItem("paohuzi:muted", sound.muted ? "1" : "0");
  showMute();
});
showMute();

const socket = new TableSocket(cfg.wsPath, {
  onState(next) {
    nameBots(next);
    const legalChanged = !state || JSON.stringify(state.hand && state.hand.legal) !== JSON.stringify(next.hand && next.hand.legal);
    if (legalChanged) { ui.selected = null; ui.chi = null; }
    cue(state, next);
    state = next;
    render();
  },
  onError(msg) { showError(t[`error_${msg.code}`] || t.error_generic); },
  onStatus(status) {
    const el = $("conn");
    el.dataset.status = status;
    el.textContent = status === "open" ? t.connected : t.reconnecting;
    el.hidden = status === "open";
  },
});

$("dissolve-btn").addEventListener("click", () => confirmDissolve());
// Countdowns run locally from the deadline timestamps the server sends: the rings every frame, the
// plain second counters (piao, dissolve vote) when their number changes.
function tick() {
  const now = Date.now();
  document.querySelectorAll("[data-ring-deadline]").forEach((el) => updateRing(el, now));
  document.querySelectorAll("[data-deadline]").forEach((el) => {
    const left = `${Math.max(0, Math.ceil((Number(el.dataset.deadline) - now) / 1000))}s`;
    if (el.textContent !== left) el.textContent = left;
  });
  if (renderPending && !drag) render();
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
window.tableApp = { get state() { return state; }, socket, ui };
