// The board: opponents, the centre (stock, shown card, banner), my groups, discards and hand.
import { cardEl, handColumns } from "./cards.js";

export function h(tag, cls = "", text = "") {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== "") el.textContent = text;
  return el;
}

const fmt = (s, vars) => s.replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");

/** Seats in screen order: me first, then 下家 (next) ... 上家 (previous). */
export function seatOrder(state) {
  const n = state.players;
  const me = state.me ?? 0;
  return Array.from({ length: n }, (_, i) => (me + i) % n);
}

export function secondsLeft(deadline) {
  return deadline ? Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) : null;
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
  if (!seat.online) box.append(h("span", "badge offline", t.offline));
  if (seat.tuoguan) box.append(h("span", "badge tuoguan", t.tuoguan));
  if (seat.piao !== null && seat.piao !== undefined && state.piao_choices.length) box.append(h("span", "badge piao", `${t.piao} ${seat.piao}`));
  return box;
}

function seatHead(seat, state, t, view) {
  const head = h("div", "seat-head");
  head.append(h("span", "avatar", (seat.name || "?").slice(0, 1)));
  const info = h("span", "seat-info");
  info.append(h("span", "seat-name", seat.name || t.emptySeat));
  const line = h("span", "seat-line");
  line.append(h("span", "seat-score", `${t.score} ${seat.score >= 0 ? "+" : ""}${seat.score}`));
  if (view) line.append(h("span", "seat-huxi", `${t.huxi} ${view.huxi[seat.index] ?? 0}`));
  info.append(line);
  head.append(info, seatBadges(seat, state, t));
  const turn = state.hand && state.hand.turn === seat.index;
  if (turn) {
    head.classList.add("active");
    head.append(h("span", "clock", ""));
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

export function renderOpponents(root, state, t) {
  root.replaceChildren();
  const view = state.hand && state.hand.view;
  const order = seatOrder(state).slice(1);
  // 上家 (previous seat) on the left, 下家 (next seat) on the right.
  order.reverse().forEach((index) => {
    const seat = state.seats[index];
    const box = h("section", "opponent");
    box.dataset.seat = index;
    box.append(seatHead(seat, state, t, view));
    if (view) {
      box.append(h("div", "hand-count", `🂠 ${view.hand_sizes[index] ?? 0}`));
      // Another seat's cards come only when the viewer may see them (the end of a live hand, a replay).
      if (view.hands[index]) {
        const shown = h("div", "shown-hand");
        view.hands[index].forEach((c) => shown.append(cardEl(c, { size: "xs" })));
        box.append(shown);
      }
    }
    box.append(laidRow(view, index, t), discardRow(view, index));
    root.append(box);
  });
}

export function renderCenter(root, state, t) {
  root.replaceChildren();
  const hand = state.hand;
  const view = hand && hand.view;
  const left = secondsLeft(state.deadline);
  if (view && hand.status === "playing") {
    const stock = h("div", "stock");
    stock.append(cardEl(null, { size: "sm" }), h("span", "stock-count", `${t.stock} ${view.stock}`));
    root.append(stock);
    const shown = h("div", "shown");
    if (view.table) {
      shown.append(cardEl(view.table.card, { size: "lg", extra: "in-question" }));
      const who = state.seats[view.table.seat];
      const src = { draw: t.otherDraw, self: t.selfDraw, discard: t.discarded, reveal: t.reveal }[view.table.source] || view.table.source;
      shown.append(h("div", "shown-from", `${who ? who.name : ""} ${src}`));
    }
    root.append(shown);
    let banner = "";
    if (hand.turn === state.me && state.me !== null) banner = t.yourTurn;
    else if (hand.turn !== null && hand.turn !== undefined) banner = fmt(t.turnOf, { name: state.seats[hand.turn].name });
    else banner = hand.legal.length ? t.yourChoice : t.claimsOpen;
    const b = h("div", "banner", banner);
    if (left !== null) {
      const c = h("span", "countdown", ` ${left}s`);
      c.dataset.deadline = String(state.deadline);
      b.append(c);
    }
    root.append(b);
    root.append(h("div", "hand-no", `${t.hand} ${hand.number}/${state.hands_per_session} · ${t["preset_" + state.preset] || state.preset}`));
  } else if (left !== null && state.stage === "piao") {
    const b = h("div", "banner", `${t.piaoWaiting} `);
    const c = h("span", "countdown", `${left}s`);
    c.dataset.deadline = String(state.deadline);
    b.append(c);
    root.append(b);
  }
}

/** My seat: head, laid groups, discards and the hand in columns; ``ui`` holds the selection. */
export function renderMine(root, state, t, ui) {
  root.replaceChildren();
  if (state.me === null || state.me === undefined) {
    root.append(h("div", "spectator-note", t.spectator));
    return;
  }
  const seat = state.seats[state.me];
  const view = state.hand && state.hand.view;
  root.append(seatHead(seat, state, t, view));
  const rows = h("div", "my-rows");
  rows.append(laidRow(view, state.me, t), discardRow(view, state.me));
  root.append(rows);
  if (!view) return;
  const cards = view.hands[state.me] || [];
  const discardable = new Set((state.hand.legal || []).filter((a) => a.type === "discard").map((a) => a.card));
  const handBox = h("div", "my-hand");
  const columns = handColumns(cards);
  // The tiles are sized from the number of columns (CSS --cols): the hand always fits the width.
  handBox.style.setProperty("--cols", String(Math.max(columns.length, 1)));
  columns.forEach((col) => {
    const c = h("div", `column${col.locked ? " locked" : ""}`);
    col.cards.forEach((name, i) => {
      const el = cardEl(name, { size: "md" });
      if (!col.locked && discardable.has(name)) {
        el.classList.add("playable");
        el.tabIndex = 0;
        el.dataset.key = `${name}:${i}`;
        if (ui.selected === el.dataset.key) el.classList.add("selected");
        el.addEventListener("click", () => ui.onCard(name, el.dataset.key));
      }
      c.append(el);
    });
    handBox.append(c);
  });
  root.append(handBox);
}
