// The board: every seat's box (上家 / 对家 / 下家 around the centre), the centre (stock, shown card,
// banner, countdown ring), my seat and my hand in columns.
import { h } from "../common/dom.js";
import { fmt } from "../common/text.js";
import { arrangeHand, cardEl } from "./cards.js";

const seated = (state) => state.me !== null && state.me !== undefined;

/** Seats in screen order: me first (seat 0 for a spectator), then 下家 (next) ... 上家 (previous). */
export function seatOrder(state) {
  const n = state.players;
  const me = state.me ?? 0;
  return Array.from({ length: n }, (_, i) => (me + i) % n);
}

/** Where each other seat sits and what the viewer calls it: ``[{index, pos, label}]``. The next seat
 * is 下家 (right), the previous one 上家 (left), the one across 对家 (top). */
export function seatPlaces(state, t) {
  const order = seatOrder(state).slice(1);
  const n = state.players;
  const label = (pos) => (seated(state) ? { left: t.shangjia, right: t.xiajia, top: t.duijia }[pos] : "");
  let pos;
  if (n === 2) pos = ["top"];
  else if (n === 3) pos = ["right", "left"];
  else pos = ["right", "top", "left"];
  return order.map((index, i) => ({ index, pos: pos[i], label: label(pos[i]) }));
}

/** Where the shown card came from, in words: another seat's draw, the seat's own draw (自摸), a
 * discard, the reveal card. */
export function sourceWord(source, t) {
  return { draw: t.otherDraw, self: t.selfDraw, discard: t.discarded, reveal: t.reveal }[source] || source;
}

export function secondsLeft(deadline) {
  return deadline ? Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) : null;
}

/** The full length of the current deadline in ms (what the ring starts from). */
export function deadlineTotal(state) {
  const secs = state.deadline_seconds || (state.deadline_kind === "claim" ? state.claim_seconds : state.turn_seconds);
  return (secs || 30) * 1000;
}

/** Whether a countdown is worth showing: a deadline still ahead that is not a bot's short delay. */
export function showsCountdown(state) {
  return Boolean(state.deadline) && state.deadline > Date.now() && state.deadline_kind !== "bot";
}

/** A countdown ring (SVG circle whose dash shrinks with the deadline); main.js animates it. */
export function ringEl(deadline, total, cls = "") {
  const box = h("span", `ring ${cls}`.trim());
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 36 36");
  svg.setAttribute("aria-hidden", "true");
  for (const part of ["ring-bg", "ring-fg"]) {
    const c = document.createElementNS(ns, "circle");
    c.setAttribute("class", part);
    c.setAttribute("cx", "18");
    c.setAttribute("cy", "18");
    c.setAttribute("r", "15");
    c.setAttribute("pathLength", "100");
    svg.append(c);
  }
  box.append(svg, h("span", "ring-text", String(secondsLeft(deadline) ?? "")));
  box.dataset.ringDeadline = String(deadline);
  box.dataset.ringTotal = String(total);
  updateRing(box, Date.now());
  return box;
}

export function updateRing(box, now) {
  const deadline = Number(box.dataset.ringDeadline);
  const total = Number(box.dataset.ringTotal) || 1;
  const frac = Math.max(0, Math.min(1, (deadline - now) / total));
  const fg = box.querySelector(".ring-fg");
  if (fg) fg.setAttribute("stroke-dashoffset", String(100 * (1 - frac)));
  box.classList.toggle("urgent", deadline - now < 5000);
  box.classList.toggle("expired", deadline <= now);
  const text = box.querySelector(".ring-text");
  const left = String(Math.max(0, Math.ceil((deadline - now) / 1000)));
  if (text && text.textContent !== left) text.textContent = left;
}

function groupEl(group, t) {
  const col = h("span", `group g-${group.kind}`);
  col.title = t[group.kind] || group.kind;
  group.cards.forEach((c) => col.append(cardEl(c, { size: "sm" })));
  return col;
}

function seatBadges(seat, state, t) {
  const box = h("span", "badges");
  if (state.hand && state.hand.dealer === seat.index) box.append(h("span", "badge dealer", "庄"));
  const empty = !seat.user_id && !seat.bot;
  if (empty) {
    if (state.status === "waiting") box.append(h("span", "badge waiting-join", t.waitingJoin));
  } else if (!seat.online && state.stage !== "over") box.append(h("span", "badge offline", t.offline));
  if (seat.tuoguan) box.append(h("span", "badge tuoguan", t.tuoguan));
  else if (seat.timeouts > 0 && state.status === "playing") box.append(h("span", "badge timed-out", t.timedOut));
  if (seat.piao !== null && seat.piao !== undefined && state.piao_choices.length) box.append(h("span", "badge piao", `${t.piao} ${seat.piao}`));
  return box;
}

/** The hand is being played (its view is not finished): only then does the view's legal list or turn count. */
const playing = (hand) => Boolean(hand && hand.status === "playing" && hand.view && !hand.view.finished);

/** The viewer's legal actions: the engine view's list, the one copy the update carries. */
export function legalActions(hand) {
  return (playing(hand) && hand.view.legal_actions) || [];
}

/** The seat that must discard now (public: the view's phase and turn), or null. */
export function discardTurn(hand) {
  return playing(hand) && hand.view.phase === "discard" ? hand.view.turn : null;
}

/** The legal actions that answer what the hand waits for: all but 逃跑 (RULES.md §8.6: legal for
 * every active seat at any moment, it never makes a seat one the hand waits for). */
export function decisions(hand) {
  return legalActions(hand).filter((a) => a.type !== "escape");
}

/** The seat that is to act, if the public state names one (the discarder). */
function activeSeat(state) {
  const hand = state.hand;
  if (!hand || hand.status !== "playing") return null;
  const turn = discardTurn(hand);
  if (turn !== null && turn !== undefined) return turn;
  if (seated(state) && decisions(hand).length) return state.me;
  return null;
}

/** My options on the shown card in words: 你可以 吃、碰 或 过. */
function optionsWords(legal, t) {
  const kinds = ["hu", "pao", "peng", "chi", "pass"].filter((k) => legal.some((a) => a.type === k)).map((k) => t[k]);
  if (!kinds.length) return t.yourChoice;
  const last = kinds.pop();
  return fmt(t.yourOptions, { list: kinds.length ? fmt(t.orList, { some: kinds.join("、"), last }) : last });
}

/** What lies by the stock with the room options (RULES.md §3.8, §9.6): the shown last card (底牌明示),
 * marked as not winnable, and the number of cards set aside (抽牌). */
export function stockExtras(view, t) {
  const out = [];
  if (view.bottom_card) {
    const box = h("div", "bottom-card");
    box.append(cardEl(view.bottom_card, { size: "sm", extra: "bottom" }));
    const words = h("span", "bottom-words");
    words.append(h("span", "bottom-label", t.bottomCard), h("span", "no-hu", t.notWinnable));
    box.append(words);
    out.push(box);
  }
  if (view.set_aside) out.push(h("div", "set-aside", fmt(t.setAside, { n: view.set_aside })));
  return out;
}

function seatHead(seat, state, t, view, label = "") {
  const head = h("div", "seat-head");
  head.append(h("span", "avatar", (seat.name || "?").slice(0, 1)));
  const info = h("span", "seat-info");
  const nameLine = h("span", "seat-name-line");
  if (label) nameLine.append(h("span", "seat-rel", label));
  nameLine.append(h("span", "seat-name", seat.name || t.emptySeat));
  info.append(nameLine);
  const line = h("span", "seat-line");
  line.append(h("span", "seat-score", `${t.score} ${seat.score >= 0 ? "+" : ""}${seat.score}`));
  if (view) line.append(h("span", "seat-huxi", `${t.huxi} ${view.huxi[seat.index] ?? 0}`));
  if (view && seat.index !== state.me) line.append(h("span", "hand-count", String(view.hand_sizes[seat.index] ?? 0)));
  info.append(line);
  head.append(info, seatBadges(seat, state, t));
  if (activeSeat(state) === seat.index) {
    head.classList.add("active");
    if (showsCountdown(state)) head.append(ringEl(state.deadline, deadlineTotal(state), "seat-ring"));
  }
  return head;
}

function laidRow(view, seatIndex, t) {
  const row = h("div", "laid");
  for (const g of (view && view.groups[seatIndex]) || []) row.append(groupEl(g, t));
  return row;
}

function discardRow(view, seatIndex) {
  const row = h("div", "discards");
  for (const c of (view && view.discards[seatIndex]) || []) row.append(cardEl(c, { size: "xs" }));
  return row;
}

function seatBox(state, t, index, pos, label) {
  const view = state.hand && state.hand.view;
  const seat = state.seats[index];
  const box = h("section", `opponent pos-${pos}`);
  box.dataset.seat = index;
  box.append(seatHead(seat, state, t, view, label));
  // Another seat's cards come only when the viewer may see them (the end of a live hand, a replay).
  if (view && view.hands[index]) {
    const shown = h("div", "shown-hand");
    view.hands[index].forEach((c) => shown.append(cardEl(c, { size: "xs" })));
    box.append(shown);
  }
  box.append(laidRow(view, index, t), discardRow(view, index));
  return box;
}

export function renderOpponents(root, state, t) {
  root.replaceChildren();
  // In screen order, left to right (the live table places them by grid area; the replay in a row).
  const rank = { left: 0, top: 1, right: 2 };
  const places = seatPlaces(state, t).sort((a, b) => rank[a.pos] - rank[b.pos]);
  for (const { index, pos, label } of places) root.append(seatBox(state, t, index, pos, label));
  root.closest(".felt")?.setAttribute("data-players", String(state.players));
}

export function renderCenter(root, state, t) {
  root.replaceChildren();
  const hand = state.hand;
  const view = hand && hand.view;
  const ring = () => (showsCountdown(state) ? ringEl(state.deadline, deadlineTotal(state), "center-ring") : "");
  if (view && hand.status === "playing") {
    const mid = h("div", "center-mid");
    const stock = h("div", "stock");
    stock.append(cardEl(null, { size: "sm" }), h("span", "stock-count", `${t.stock} ${view.stock}`));
    stock.append(...stockExtras(view, t));
    mid.append(stock);
    const shown = h("div", "shown");
    if (view.table) {
      shown.append(cardEl(view.table.card, { size: "lg", extra: "in-question" }));
      const who = state.seats[view.table.seat];
      shown.append(h("div", "shown-from", `${who ? who.name : ""} ${sourceWord(view.table.source, t)}`));
    }
    mid.append(shown);
    root.append(mid);
    let banner = "";
    const turn = discardTurn(hand);
    if (turn === state.me && seated(state)) banner = t.yourTurn;
    else if (turn !== null && turn !== undefined) banner = fmt(t.turnOf, { name: state.seats[turn].name });
    else banner = decisions(hand).length ? optionsWords(decisions(hand), t) : t.claimsOpen;
    const b = h("div", "banner");
    b.append(h("span", "banner-text", banner), ring());
    root.append(b);
    root.append(h("div", "hand-no", `${t.hand} ${hand.number}/${state.hands_per_session} · ${t["preset_" + state.preset] || state.preset}`));
  } else if (showsCountdown(state) && state.stage === "piao") {
    // An arranged table's first 飘 waits for its players to come (each has his full time from his
    // arrival): who is still on his way.
    const away = (state.arriving || []).map((i) => state.seats[i]).filter((s) => s && s.index !== state.me);
    const b = h("div", "banner");
    b.append(h("span", "banner-text", away.length ? fmt(t.piaoArriving, { names: away.map((s) => s.name).join("、") }) : t.piaoWaiting), ring());
    root.append(b);
  }
}

/** The key the player's own arrangement is stored under (table, hand number, seat). */
export function arrangementKey(state) {
  return `paohuzi:hand-cols:${state.id}:${state.hand ? state.hand.number : 0}:${state.me}`;
}

export function loadArrangement(state) {
  try {
    return JSON.parse(localStorage.getItem(arrangementKey(state)) || "null");
  } catch {
    return null;
  }
}

export function saveArrangement(state, cols) {
  try {
    localStorage.setItem(arrangementKey(state), JSON.stringify(cols));
  } catch { /* private mode: the arrangement lasts until the reload */ }
}

/**
 * My seat: head, laid groups, discards and the hand in columns. ``ui`` holds the selection and
 * the pointer handlers (main.js): a 坎 column is locked (no drag, no discard).
 */
export function renderMine(root, state, t, ui) {
  root.replaceChildren();
  const view = state.hand && state.hand.view;
  if (!seated(state)) {
    // A spectator sees seat 0 at the bottom, like any other seat.
    root.classList.add("watching");
    root.append(seatBox(state, t, 0, "bottom", ""));
    root.append(h("div", "spectator-note", t.spectator));
    return;
  }
  root.classList.remove("watching");
  const seat = state.seats[state.me];
  const info = h("div", "my-info");
  info.append(seatHead(seat, state, t, view));
  const rows = h("div", "my-rows");
  rows.append(laidRow(view, state.me, t), discardRow(view, state.me));
  info.append(rows);
  root.append(info);
  const handBox = h("div", "my-hand");
  root.append(handBox);
  if (!view) return;
  if (view.active_seats && !view.active_seats.includes(state.me)) {
    // 4 players, one sitting out (RULES.md §2): this hand is played without me; I watch it.
    handBox.append(h("div", "spectator-note sitting-out", t.sittingOut));
    return;
  }
  const cards = view.hands[state.me] || [];
  const discardable = new Set(legalActions(state.hand).filter((a) => a.type === "discard").map((a) => a.card));
  // The live table (ui.bindCard) keeps the player's own arrangement; the replay viewer shows the suggestion.
  const live = typeof ui.bindCard === "function";
  const columns = arrangeHand(cards, live ? loadArrangement(state) : null);
  ui.columns = columns.filter((c) => !c.locked).map((c) => c.cards);
  if (live) saveArrangement(state, ui.columns);
  // The tiles are sized from the number of columns and rows (CSS --cols / --rows): the hand fits.
  handBox.style.setProperty("--cols", String(Math.max(columns.length + 1, 6)));
  handBox.style.setProperty("--rows", String(Math.max(3, ...columns.map((c) => c.cards.length))));
  let free = 0;
  columns.forEach((col) => {
    const c = h("div", `column${col.locked ? " locked" : ""}`);
    if (!col.locked) c.dataset.col = String(free++);
    col.cards.forEach((name, i) => {
      const el = cardEl(name, { size: "md" });
      if (!col.locked) {
        el.dataset.key = `${c.dataset.col}:${i}`;
        el.classList.add("movable");
        if (discardable.has(name)) el.classList.add("playable");
        if (ui.selected === el.dataset.key) el.classList.add("selected");
        if (live) ui.bindCard(el, name, Number(c.dataset.col), i, discardable.has(name));
      }
      c.append(el);
    });
    handBox.append(c);
  });
  if (!live) return;
  const slot = h("div", "column new-column");
  slot.dataset.col = "-1";
  handBox.append(slot);
}
