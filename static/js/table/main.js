// Boot the table page: config and strings come from JSON blobs rendered by the template.
import { askConfirm } from "../common/dialog.js";
import { $, jsonScript } from "../common/dom.js";
import { fmt } from "../common/text.js";
import { legalActions, renderCenter, renderMine, renderOpponents, saveArrangement, updateRing } from "./board.js";
import { moveCard } from "./cards.js";
import { awayLines, eventCalls, eventLines } from "./narrate.js";
import { renderNearby } from "./nearby.js";
import { setupPhrases } from "./phrases.js";
import { dissolveNotices, renderDissolveBar, showNotice } from "./notices.js";
import { countdown, renderActions, renderChiChooser, renderOver, renderPiao, renderSettlement, renderWaiting } from "./panels.js";
import { TableSocket } from "./socket.js";
import { callOut, cue, initSoundSwitch } from "./speech.js";

const cfg = jsonScript("table-config");
const t = jsonScript("table-strings");

let state = null;
let drag = null;  // the card being dragged in my hand: render waits until it is dropped
let renderPending = false;
let socket = null;  // (the TableSocket, made at the end: its callbacks run from its constructor)
const ui = { selected: null, chi: null, columns: [], onCard, bindCard, hint: false };

const api = {
  /** A move (discard, 吃/碰/胡/过, 逃跑): into the outbox, stamped with the seq of the view it was
   * made on; ``key`` is the tapped card of my hand (its pending mark). */
  act(action, key = null) {
    if (action.type === "discard") learnedDiscard();
    ui.selected = null;
    ui.chi = null;
    if (socket.actInFlight()) { render(); return; }  // one move at a time: the last is on its way
    socket.act(action, { mark: markFor({ type: "act", action }, key), check: actCheck(state, socket.seq, action) });
    render();
  },
  /** Any other message of the player (准备, 飘, 解散 vote, 托管, or an act stamped by its caller):
   * into the outbox too. */
  send: (message) => {
    const check = message.type === "act" ? actCheck(state, message.seq, message.action)
      : CHECKS[message.type] ? CHECKS[message.type](state, message) : null;
    socket.post(message, { mark: markFor(message), check });
  },
  dissolve: () => confirmDissolve(),
  get hint() { return ui.hint; },
  /** The raised card of my hand when it may be discarded now: ``{name, key}``, or null. */
  raised() {
    if (!ui.selected || !state) return null;
    const el = document.querySelector(`.my-hand .card[data-key="${ui.selected}"]`);
    const name = el && el.dataset.card;
    return name && legalActions(state.hand).some((a) => a.type === "discard" && a.card === name) ? { name, key: ui.selected } : null;
  },
  /** 出牌: the raised card goes. */
  discardRaised() {
    const card = api.raised();
    if (card) api.act({ type: "discard", card: card.name }, card.key);
  },
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
  const legal = legalActions(state.hand);
  const canDiscard = legal.some((a) => a.type === "discard" && a.card === name);
  if (ui.selected === key && canDiscard) api.act({ type: "discard", card: name }, key);
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
    if (target.kind === "discard") { api.act({ type: "discard", card: name }, el.dataset.key); return; }
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

// The first-time hint (how to discard) shows until the player has discarded once on this device.
const HINT_KEY = "paohuzi:discard-learned";
ui.hint = localStorage.getItem(HINT_KEY) !== "1";
function learnedDiscard() {
  if (!ui.hint) return;
  ui.hint = false;
  try { localStorage.setItem(HINT_KEY, "1"); } catch { /* private mode */ }
}

// --- what just happened: a line per public event of each update, a note after a reconnect ------

const LINE_MS = 6000;
const lines = [];  // [{text, kind, until}] the newest last
const happenedBox = $("happened");  // (kept: each render moves it back into the centre)
function say(items, ms = LINE_MS) {
  const until = Date.now() + ms;
  for (const it of items) lines.push({ ...it, until });
  while (lines.length > 3) lines.shift();
  showLines();
}
function showLines() {
  const now = Date.now();
  while (lines.length && lines[0].until <= now) lines.shift();
  const box = happenedBox;
  const key = lines.map((l) => l.text).join("\n");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...lines.map((l) => Object.assign(document.createElement("div"), {
    className: `line ev-${l.kind || "note"}`, textContent: l.text })));
  box.hidden = !lines.length;
}
let awayFrom = null;  // the state the page had when its socket went down (null: connected)

function showError(message, ms = 3000) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, ms);
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
  $("center").append(happenedBox);  // (the lines of what just happened: under the banner)
  renderMine($("mine"), state, t, ui);
  renderActions($("actions"), state, t, api);
  renderChiChooser($("chi-chooser"), ui.chi, t, api);
  renderWaiting($("waiting"), state, t, api, cfg);
  renderNearby(state, t, cfg);
  renderPiao($("piao"), state, t, api);
  renderSettlement($("settlement"), state, t, api, cfg);
  renderOver($("over"), state, t, cfg, api);
  renderDissolveBar($("dissolve"), state, t, api, countdown);
  // A match's table has no 解散: it ends with its round (the server refuses it too).
  const canPropose = !cfg.arranged && state.status === "playing" && state.me !== null && state.me !== undefined && !state.dissolve;
  $("dissolve-btn").hidden = !canPropose;
  renderTuoguanSwitch($("tuoguan-btn"), state);
  renderEscape($("escape-btn"), state);
  phrases.render(state);
  markPending();
}

// --- 逃跑 (RULES.md §8.6, issue 26) ------------------------------------------------------------

/** The 逃跑 button: only where the server offers it (the table's rules have it, never a match
 * table), which it does with the least this player would pay now (``hand.escape.at_least``: from
 * what he sees, RULES.md §8.6; the exact amount comes with the hand's end). */
function renderEscape(btn, st) {
  const offered = escapeOffered(st);
  btn.hidden = !offered;
  // A confirmed escape sent from an older view than the one now shown was refused as stale (or will
  // be): the table moved on, so the price may have too - ask again, with the new bound.
  if (escapeAsked && socket && socket.seq > escapeAsked.seq) {
    escapeAsked = null;
    if (offered) confirmEscape(true);
  }
}

const escapeOffered = (st) => Boolean(st && st.hand && st.hand.status === "playing" && st.hand.escape
  && legalActions(st.hand).some((a) => a.type === "escape"));
let escapeAsked = null;  // {seq}: the view a confirmed escape was sent from, until a newer one shows
let escapeDialog = false;  // the confirmation is open

/** Leaving cannot be taken back: the page's dialog gives the formula and the least it costs from
 * what the player sees, and a confirmed answer sends the action with the ``seq`` of the view the
 * dialog showed (not the current one): if the table moved on meanwhile the server refuses it
 * (``stale_seq``) and the dialog opens again with the new bound. ``movedOn``: say why it asks again. */
async function confirmEscape(movedOn = false) {
  if (escapeDialog || !escapeOffered(state)) return;
  const shown = { seq: socket.seq, n: state.hand.escape.at_least };
  const words = fmt(t.escapeConfirm, { n: shown.n });
  escapeDialog = true;
  const yes = await askConfirm({
    title: t.escapeTitle, message: movedOn ? `${fmt(t.escapeMovedOn, { n: shown.n })} ${words}` : words,
    ok: t.escape, cancel: t.cancel, danger: true,
  }).finally(() => { escapeDialog = false; });
  if (!yes) return;
  if (socket.seq !== shown.seq) {  // the table moved on while the dialog was open: ask again
    if (escapeOffered(state)) confirmEscape(true);
    return;
  }
  escapeAsked = { seq: shown.seq };
  api.send({ type: "act", seq: shown.seq, action: { type: "escape" } });
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
  if (!seat) return;
  // A tap flips what the player last asked for (a switch still on its way counts), with an explicit
  // value: sent twice, it is the same request.
  const waiting = socket.outbox.filter((e) => e.kind === "tuoguan").pop();
  api.send({ type: "tuoguan", on: waiting ? !waiting.message.on : !seat.tuoguan });
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
  if (yes) api.send({ type: "dissolve", vote: true });
}

// --- the outbox: taps made while the socket is down wait, show as pending, and are said when they
// could not go (issue #41; socket.js has the entries' life) ------------------------------------

const mySeat = (st) => (st && st.me !== null && st.me !== undefined ? st.seats[st.me] : null);
const handNo = (st) => (st && st.hand ? st.hand.number : null);
/** JSON with sorted keys: two actions are the same whatever order their keys came in. */
const canon = (v) => JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
const isLegal = (st, action) => Boolean(st && st.hand && st.hand.status === "playing"
  && legalActions(st.hand).some((a) => canon(a) === canon(action)));
/** The view without what a reconnect changes by itself (the seats' online flags, and the same-network
 * note a connect's state carries and an update does not): equal means the table did not move on
 * between the tap and the fresh state. */
const playView = (st) => canon({ ...st, nearby: null, seats: (st.seats || []).map((x) => ({ ...x, online: null })) });

/** Whether a move still goes on the fresh state of a new socket. It keeps the seq of the view it
 * was made on, except when the fresh view differs from that one only by seats going offline and
 * back (which the server counts in the seq: a reconnect alone would make every waiting move
 * stale): then the move is still legal on the same table and is stamped with the fresh seq. A
 * move that had reached the server would have changed its player's own view, so this cannot
 * let one through twice. A move never sent that the table has since made moot is dropped here
 * (and said); one that may have gone out is sent again as it was: the server decides. */
function actCheck(base, baseSeq, action) {
  return (fresh, seq, e) => {
    if (seq === baseSeq) return "send";
    const same = Boolean(base) && isLegal(fresh, action) && playView(base) === playView(fresh);
    if (same) return { restamp: true };
    return e.maybeSent ? "send" : { drop: "moved" };
  };
}

/** The other messages carry explicit values: on a fresh state each is sent, already done, or moot. */
const CHECKS = {
  ready: (base) => (fresh) => {
    const me = mySeat(fresh);
    if (!me) return { drop: "moved" };
    if (me.ready) return "done";
    if (!["seating", "settle"].includes(fresh.stage) || handNo(fresh) !== handNo(base)) return { drop: "moved" };
    return "send";
  },
  tuoguan: (_base, msg) => (fresh) => {
    const me = mySeat(fresh);
    if (me && Boolean(me.tuoguan) === msg.on) return "done";
    if (!me || fresh.status !== "playing") return msg.on ? { drop: "moved" } : "done";
    return "send";
  },
  piao: (base, msg) => (fresh) => {
    const me = mySeat(fresh);
    if (me && me.piao_chosen) return me.piao === msg.value ? "done" : { drop: "moved" };
    if (!me || fresh.stage !== "piao" || handNo(fresh) !== handNo(base)) return { drop: "moved" };
    return "send";
  },
  dissolve: (base, msg) => (fresh) => {
    const me = fresh.me;
    const asked = base && base.dissolve;
    const now = fresh.dissolve;
    if (!["waiting", "playing"].includes(fresh.status)) return msg.vote ? "done" : { drop: "moved" };
    if (now && now.votes[String(me)] !== undefined) return now.votes[String(me)] === msg.vote ? "done" : { drop: "moved" };
    // An answer belongs to the vote it was given in (one proposer, one deadline), not to a later one.
    if (asked && !(now && now.by === asked.by && now.deadline === asked.deadline)) return { drop: "moved" };
    return "send";
  },
};

/** What a pending message marks on the screen (CSS selector; the first visible match). */
function markFor(message, key = null) {
  const { type } = message;
  if (type === "act") {
    const a = message.action;
    if (a.type === "discard") return key ? `.my-hand .card[data-key="${key}"]` : `.my-hand .card[data-card="${a.card}"]`;
    if (a.type === "escape") return "#escape-btn";
    return `.action-bar .act-${a.type}`;
  }
  if (type === "ready") return ".act-ready";
  if (type === "piao") return `#piao .act-piao[data-value="${message.value}"]`;
  if (type === "tuoguan") return message.on ? "#tuoguan-btn" : "#tuoguan-btn, .action-bar .act-cancel-tuoguan";
  if (type === "dissolve") {
    if (state && state.dissolve) return message.vote ? "#dissolve .act-agree" : "#dissolve .act-refuse";
    return "#dissolve-btn, #waiting .act-dissolve";
  }
  return null;
}

/** The pending mark (a small spinner) on whatever each waiting message was made with. */
function markPending() {
  const want = new Set();
  for (const e of (socket ? socket.outbox : [])) {
    const el = e.mark && [...document.querySelectorAll(e.mark)].find((x) => x.getClientRects().length);
    if (el) want.add(el);
  }
  // Only what changes is touched: taking the class off and on again would restart its animation.
  document.querySelectorAll(".pending").forEach((el) => {
    if (!want.has(el)) { el.classList.remove("pending"); el.removeAttribute("aria-busy"); }
  });
  want.forEach((el) => { if (!el.classList.contains("pending")) { el.classList.add("pending"); el.setAttribute("aria-busy", "true"); } });
}

const LATE_MS = 5000;  // a message not delivered after this long is said on the screen
/** The line under the connection banner: 发送中… while messages wait (after a short moment, so a
 * normal round trip does not flicker), and after LATE_MS that they did not go yet, and why. */
function showOutbox(entries) {
  const el = $("outbox");
  const oldest = entries.reduce((m, e) => Math.min(m, e.made), Infinity);
  const age = Date.now() - oldest;
  let text = "";
  let late = false;
  if (entries.length && age > LATE_MS) {
    late = true;
    text = socket && socket.live ? t.outboxSlow : t.outboxOffline;
  } else if (entries.length && (age > 400 || !(socket && socket.live))) {
    text = t.outboxSending;
  }
  el.hidden = !text;
  el.classList.toggle("late", late);
  if (el.textContent !== text) el.textContent = text;
}

/** Why a message did not go, in the player's words. */
function notSentWords(ev) {
  if (ev.refused) return t.notSent;
  if (ev.drop === "gaveUp") return t.notSentGaveUp;
  if (ev.drop) return t.notSentMoved;
  if (ev.code === "stale_seq") return ev.entry.maybeSent && !socket.acks ? t.notSentUnsure : t.notSentMoved;
  return fmt(t.notSentWhy, { why: t[`error_${ev.code}`] || ev.message || t.error_generic });
}

/** The connection banner: nothing while open; 连接中… / 重连中… / 服务器繁忙，正在重连… while the page
 * retries; a refused page says why and stops (a link to sign in, or to reload after closing the
 * other pages). */
function showConnection(status, code) {
  const el = $("conn");
  const prev = el.dataset.status;
  el.dataset.status = status;
  el.classList.toggle("refused", status === "refused");
  el.replaceChildren();
  if (status === "refused") {
    el.append(t[`refused_${code}`] || t.refused_4403);
    if (code === 4401) {
      const a = Object.assign(document.createElement("a"), { href: `${$("table-app").dataset.login || "/accounts/login/"}?next=${encodeURIComponent(location.pathname)}`, textContent: t.signIn });
      el.append(" ", a);
    } else if (code === 4429) {
      const a = Object.assign(document.createElement("a"), { href: location.href, textContent: t.reload });
      el.append(" ", a);
    }
    document.body.dataset.refused = String(code);
  } else {
    el.textContent = { open: t.connected, connecting: t.connecting, offline: t.offlineRetry, busy: t.serverBusy }[status] || t.reconnecting;
  }
  // Back after a break: 已重新连接 for a moment (the first connection says nothing).
  const back = status === "open" && ["reconnecting", "offline", "busy"].includes(prev);
  clearTimeout(showConnection.timer);
  el.classList.toggle("back", back);
  if (back) {
    el.textContent = t.backOnline;
    showConnection.timer = setTimeout(() => { if (el.dataset.status === "open") el.hidden = true; }, 3000);
  }
  el.hidden = status === "open" && !back;
}

// --- sound: the calls of public moves, the tones of my turn, the 语音/音效/静音 switch (speech.js) ---
initSoundSwitch($("mute-btn"), t);

// 快捷语 (issue #47): sent straight on the open socket (never queued: a late phrase means nothing),
// with an id of the socket's numbering so that a refusal finds no entry and is shown as an error.
const phrases = setupPhrases({ cfg, t, getState: () => state,
  send: (id) => socket.send({ type: "phrase", phrase: id, id: socket.nextId++ }) });

socket = new TableSocket(cfg.wsPath, {
  onPhrase(msg) { phrases.show(msg); },
  onState(next, events = [], { fresh = false } = {}) {
    nameBots(next);
    dissolveNotices(state, next, events, t).forEach((words) => showNotice($("notice"), words, t));
    const legalChanged = !state || JSON.stringify(legalActions(state.hand)) !== JSON.stringify(legalActions(next.hand));
    if (legalChanged) { ui.selected = null; ui.chi = null; }
    cue(state, next);
    if (fresh && awayFrom) {
      const away = awayLines(awayFrom, next, t);
      say([{ kind: "away", text: away.length ? `${t.awayTitle}${away.join("；")}` : t.awayNothing }], 12000);
      awayFrom = null;
    }
    state = next;
    socket.setUrgent(legalActions(next.hand).length > 0);  // a faster heartbeat while I have a move
    render();
    const said = eventLines(events, next, t);
    if (said.length) say(said);
    callOut(eventCalls(events));
  },
  onError(msg) { showError(t[`error_${msg.code}`] || t.error_generic); },
  onStatus(status, code) {
    const wasOpen = $("conn").dataset.status === "open";
    if (status !== "open" && wasOpen && state && !awayFrom) awayFrom = state;
    showConnection(status, code);
  },
  onOutbox(entries, ev) {
    if (ev && !ev.ok) showError(notSentWords(ev), 6000);
    showOutbox(entries);
    markPending();
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
  if (lines.length && lines[0].until <= now) showLines();
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
window.tableApp = { get state() { return state; }, socket, ui };
