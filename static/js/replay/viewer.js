// The replay viewer: the table page's board (board.js, cards.js, the settlement panel of panels.js)
// drawn frame by frame from the server's frames (apps/engine/records/timeline.py): step both ways, jump to
// any move, play at 0.5×–4×, keyboard ←/→/space, swipe on phones, choose the seat at the bottom.
import { $, h, jsonScript } from "../common/dom.js";
import { fmt } from "../common/text.js";
import { cardEl, cardText } from "../table/cards.js";
import { renderMine, renderOpponents, sourceWord, stockExtras } from "../table/board.js";
import { renderSettlement } from "../table/panels.js";

const data = jsonScript("replay-data");
const t = jsonScript("replay-strings");

const frames = data.frames;
const last = frames.length - 1;
const constant = frames[0].view;  // preset, players, active_seats live in frame 0 only
const seatName = (i) => {
  const s = data.seats[i];
  return s ? (s.name || fmt(t.botName, { n: i + 1 })) : `#${i + 1}`;
};
const seatsFor = (end) => data.seats.map((s) => ({
  index: s.index, name: seatName(s.index), user_id: s.user_id, bot: s.bot ? "bot" : "", online: true,
  tuoguan: false, ready: false, piao: data.hand.piao[String(s.index)] ?? null,
  score: end && data.hand.totals ? Number(data.hand.totals.total[String(s.index)] || 0) : 0,
}));

const ICON_PLAY = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="currentColor" d="M7 5v14l11-7z"/></svg>';
const ICON_PAUSE = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="currentColor" d="M6 5h4v14H6zM14 5h4v14h-4z"/></svg>';

const player = {
  k: 0,
  bottom: Number($("bottom-seat").value),
  playing: false,
  timer: null,
  speed: 1,
};

function viewAt(k) {
  return { ...constant, ...frames[k].view };
}

/** The table page's state shape for frame k, seen from the chosen bottom seat. */
function stateAt(k) {
  const view = { ...viewAt(k), legal_actions: [] };  // a replay offers no action (the turn is the view's)
  const end = k === last;
  const over = end && (data.hand.status === "finished" || data.hand.status === "dissolved");
  return {
    players: data.table.players,
    me: player.bottom,
    preset: data.table.preset,
    piao_choices: Object.keys(data.hand.piao || {}).length ? [0] : [],
    hands_per_session: data.table.hands_per_session,
    stage: over ? "settle" : "hand",
    status: "playing",
    deadline: null,
    seats: seatsFor(end),
    summary: null,
    hand: {
      number: data.hand.number, dealer: data.hand.dealer, view,
      status: over ? data.hand.status : "playing",
      seed: data.hand.seed, seed_hash: data.hand.seed_hash,
      result: data.hand.result, totals: data.hand.totals, fees: data.hand.fees,
    },
  };
}

const ACTION_WORD = { discard: "discard", chi: "chi", peng: "peng", hu: "hu", pass: "pass", escape: "escaped" };
const EVENT_WORD = {
  deal: "deal", reveal: "reveal", draw: "drawCard", show: "show", ti: "ti", wei: "wei", pao: "pao",
  chou_wei: "chou_wei", peng: "peng", chi: "chi", hu: "hu", natural_win: "naturalWin", huang: "huang",
  escape: "escaped", bottom_shown: "bottomShownEv", bottom_to_top: "bottomToTop",
};

function actionText(action) {
  if (!action) return t.deal;
  const word = t[ACTION_WORD[action.type]] || action.type;
  return action.card ? `${word} ${cardText(action.card)}` : word;
}

/** Forced and automatic things a step caused (draws, 偎/提/跑, the win), in a few words. */
function eventsText(events, actor) {
  const parts = [];
  for (const e of events) {
    if (e.type === "pass" || ((e.type === "discard" || e.type === "escape") && e.seat === actor)) continue;
    if (e.type === "deal") continue;
    if (e.type === "set_aside") { parts.push(fmt(t.setAside, { n: e.count })); continue; }
    const word = t[EVENT_WORD[e.type]] || e.type;
    const who = e.seat !== undefined && e.seat !== null ? `${seatName(e.seat)} ` : "";
    parts.push(`${who}${word}${e.card ? " " + cardText(e.card) : ""}`);
  }
  return parts.join(" · ");
}

/** The mark of a step the player did not decide himself: a time-out's default, or 托管. */
function autoText(auto) {
  return auto === "timeout" ? t.autoTimeout : t.autoTuoguan;
}

function timeText(ms) {
  if (!ms) return "";
  const d = new Date(ms);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

function renderMoves() {
  const list = $("moves");
  list.replaceChildren();
  frames.forEach((f, k) => {
    const li = h("li", `move${f.declined_hu ? " declined-hu" : ""}`);
    li.dataset.k = String(k);
    const b = h("button", "move-btn");
    b.type = "button";
    b.append(h("span", "move-no", String(k)), h("span", "move-time", timeText(f.time)));
    b.append(h("span", "move-who", f.actor === null || f.actor === undefined ? "" : seatName(f.actor)));
    b.append(h("span", `move-act act-word-${f.action ? f.action.type : "deal"}`, actionText(f.action)));
    if (f.auto) b.append(h("span", "auto-mark", autoText(f.auto)));
    if (f.declined_hu) b.append(h("span", "badge declined", t.declinedHu));
    const more = eventsText(f.events, f.actor);
    if (more) b.append(h("span", "move-events", more));
    b.addEventListener("click", () => go(k));
    li.append(b);
    list.append(li);
  });
}

function optionWords(options) {
  return options.filter((o) => o !== "pass").map((o) => t[o] || o).join("/") || t.pass;
}

/** One claim window: the card, and per seat what it could do and what it chose (or is deciding). */
function windowBox(claim, title, closed) {
  const box = h("div", `claim-window${closed ? " closed" : ""}`);
  const head = h("div", "claim-head");
  head.append(h("strong", "", title), cardEl(claim.card, { size: "sm" }));
  const source = sourceWord(claim.source, t);
  head.append(h("span", "muted", fmt(t.claimOn, { card: cardText(claim.card), name: seatName(claim.seat), source })));
  box.append(head);
  const rows = h("ul", "claim-seats");
  Object.keys(claim.options).map(Number).sort((a, b) => a - b).forEach((seat) => {
    const opts = claim.options[seat] || claim.options[String(seat)] || [];
    const decided = (claim.decided || {})[seat] ?? (claim.decided || {})[String(seat)];
    const declined = opts.includes("hu") && decided !== undefined && decided !== "hu";
    const li = h("li", `claim-seat${declined ? " declined-hu" : ""}${decided === "pass" ? " passed" : ""}`);
    li.dataset.seat = String(seat);
    li.append(h("span", "claim-name", seatName(seat)));
    li.append(h("span", "claim-opts", `${t.couldDo} ${optionWords(opts)}`));
    li.append(h("span", "claim-choice", decided === undefined ? (closed ? t.notAsked : t.waiting) : `→ ${t[decided] || decided}`));
    if (declined) li.append(h("span", "badge declined", t.declinedHu));
    rows.append(li);
  });
  box.append(rows);
  return box;
}

function renderClaims(k) {
  const root = $("claims");
  root.replaceChildren();
  const frame = frames[k];
  const prev = k > 0 ? frames[k - 1].view.claim : null;
  const open = frame.view.claim;
  if (prev && frame.actor !== null && frame.actor !== undefined) {
    const sameWindow = open && open.card === prev.card && open.seat === prev.seat && open.source === prev.source;
    if (!sameWindow) {  // this step closed the window: show it with every decision
      const decided = { ...(prev.decided || {}) };
      decided[frame.actor] = frame.action ? frame.action.type : undefined;
      root.append(windowBox({ ...prev, decided }, t.closedWindow, true));
    }
  }
  if (open) root.append(windowBox(open, t.claimWindow, false));
  if (!root.children.length) root.append(h("p", "muted small", t.noClaim));
}

function renderCenter(k) {
  const root = $("center");
  root.replaceChildren();
  const view = viewAt(k);
  const stock = h("div", "stock");
  stock.append(cardEl(null, { size: "sm" }), h("span", "stock-count", `${t.stock} ${view.stock}`));
  stock.append(...stockExtras(view, t));
  root.append(stock);
  const shown = h("div", "shown");
  const claim = view.claim;
  const table = view.table || (claim ? { card: claim.card, seat: claim.seat, source: claim.source } : null);
  if (table && table.card) {
    shown.append(cardEl(table.card, { size: "lg", extra: "in-question" }));
    shown.append(h("div", "shown-from", `${seatName(table.seat)} ${sourceWord(table.source, t)}`));
  }
  root.append(shown);
  const f = frames[k];
  const line = f.actor === null || f.actor === undefined ? t.deal : `${seatName(f.actor)} ${actionText(f.action)}`;
  const banner = h("div", `banner${f.declined_hu ? " declined" : ""}`, line);
  if (f.auto) banner.append(h("span", "auto-mark", autoText(f.auto)));
  root.append(banner);
  const more = eventsText(f.events, f.actor);
  if (more) root.append(h("div", "hand-no", more));
  if (k === last && data.hand.status === "dissolved") root.append(h("div", "banner", t.dissolvedHand));
}

function render() {
  const k = player.k;
  const state = stateAt(k);
  renderOpponents($("opponents"), state, t);
  renderCenter(k);
  renderMine($("mine"), state, t, { selected: null, onCard() {} });
  renderClaims(k);
  const panel = $("settlement");
  // As a spectator of the panel (me: null): no "next hand" button on a replay.
  if (k === last) renderSettlement(panel, { ...state, me: null }, t, {}, {});
  else { panel.replaceChildren(); panel.hidden = true; }
  $("scrub").value = String(k);
  $("step-label").textContent = fmt(t.moveCount, { k, n: last });
  $("btn-prev").disabled = k === 0;
  $("btn-start").disabled = k === 0;
  $("btn-next").disabled = k === last;
  $("btn-end").disabled = k === last;
  document.querySelectorAll("#moves .move").forEach((li) => li.classList.toggle("current", Number(li.dataset.k) === k));
  const current = document.querySelector("#moves .move.current");
  if (current && current.scrollIntoView && $("moves").dataset.follow !== "0") {
    const list = $("moves");
    const top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.clientHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
  $("replay-app").dataset.step = String(k);
  // A dispute filed from here points at the step on screen.
  const dispute = $("dispute-link");
  if (dispute) dispute.href = `${dispute.dataset.base}?step=${k}`;
  history.replaceState(null, "", `#${k}`);
  // The 复盘 panel (review.js) follows the step on screen.
  $("replay-app").dispatchEvent(new CustomEvent("replay:step", { detail: { k } }));
}

function go(k) {
  player.k = Math.max(0, Math.min(last, k));
  if (player.k === last) pause();
  render();
}

function tick() {
  if (player.k >= last) { pause(); return; }
  go(player.k + 1);
  if (player.k === last) { showSettlement(); return; }
  player.timer = setTimeout(tick, 1000 / player.speed);
}

function play() {
  if (player.k >= last) player.k = 0;
  player.playing = true;
  $("btn-play").innerHTML = ICON_PAUSE;
  $("btn-play").setAttribute("aria-label", t.pause);
  $("replay-app").dataset.playing = "1";
  clearTimeout(player.timer);
  player.timer = setTimeout(tick, 1000 / player.speed);
}

function pause() {
  player.playing = false;
  clearTimeout(player.timer);
  $("btn-play").innerHTML = ICON_PLAY;
  $("btn-play").setAttribute("aria-label", t.play);
  delete $("replay-app").dataset.playing;
}

$("btn-start").addEventListener("click", () => { pause(); go(0); });
$("btn-prev").addEventListener("click", () => { pause(); go(player.k - 1); });
$("btn-next").addEventListener("click", () => { pause(); go(player.k + 1); });
// Jumping (or playing) to the end brings the settlement panel into view.
const showSettlement = () => { const p = $("settlement"); if (!p.hidden && p.scrollIntoView) p.scrollIntoView({ behavior: "smooth", block: "nearest" }); };
$("btn-end").addEventListener("click", () => { pause(); go(last); showSettlement(); });
$("btn-play").addEventListener("click", () => (player.playing ? pause() : play()));
$("speed").addEventListener("change", (e) => { player.speed = Number(e.target.value) || 1; if (player.playing) play(); });
$("scrub").addEventListener("input", (e) => { pause(); go(Number(e.target.value)); });
$("bottom-seat").addEventListener("change", (e) => { player.bottom = Number(e.target.value); render(); });

// Keys: ← → step, space plays/pauses (even with a control button focused), Home/End jump. Form
// fields keep their own keys (the scrubber moves by itself on arrows).
const isSpace = (e) => e.key === " " || e.code === "Space";
const inField = (e) => ["INPUT", "SELECT", "TEXTAREA"].includes((e.target && e.target.tagName) || "");
document.addEventListener("keydown", (e) => {
  if (inField(e) || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === "ArrowRight") { pause(); go(player.k + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { pause(); go(player.k - 1); e.preventDefault(); }
  else if (isSpace(e)) { if (!e.repeat) { player.playing ? pause() : play(); } e.preventDefault(); }
  else if (e.key === "Home") { pause(); go(0); e.preventDefault(); }
  else if (e.key === "End") { pause(); go(last); e.preventDefault(); }
});
// A focused button would also "click" on space's keyup: that key belongs to play/pause here.
document.addEventListener("keyup", (e) => { if (isSpace(e) && !inField(e)) e.preventDefault(); });

// Swipe on the felt: left = forward, right = back.
let touch = null;
$("felt").addEventListener("touchstart", (e) => { const p = e.changedTouches[0]; touch = { x: p.clientX, y: p.clientY }; }, { passive: true });
$("felt").addEventListener("touchend", (e) => {
  if (!touch) return;
  const p = e.changedTouches[0];
  const dx = p.clientX - touch.x;
  const dy = p.clientY - touch.y;
  touch = null;
  if (Math.abs(dx) > 40 && Math.abs(dx) > Math.abs(dy) * 1.5) { pause(); go(player.k + (dx < 0 ? 1 : -1)); }
});

// The share link selects itself when focused, ready to copy.
for (const el of document.querySelectorAll(".share-link")) el.addEventListener("focus", () => el.select());

renderMoves();
const fromHash = Number((location.hash || "").slice(1));
player.k = Number.isInteger(fromHash) && fromHash >= 0 && fromHash <= last && location.hash ? fromHash : 0;
render();
window.replayApp = { go, play, pause, get step() { return player.k; }, get last() { return last; }, frames };
