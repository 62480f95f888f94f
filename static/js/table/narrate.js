// What just happened, in a player's words: one short line per public event of an update (the
// ``events`` the server already filtered for this viewer), and after a reconnect what changed while
// the page was away (from the state it knew and the fresh one). Only what the viewer may see is
// named: a hidden 偎 card comes as null and is said as "a card"; no other seat's hand is read.
import { fmt } from "../common/text.js";
import { cardText, parseCard } from "./cards.js";
import { seatPlaces } from "./board.js";

const zh = () => (document.documentElement.lang || "zh").toLowerCase().startsWith("zh");

/** A card as players say it: 小三 / 大拾 (in English "small 3" / "big 10"). */
export function cardName(name, t) {
  if (!name) return t.aCard;
  const c = parseCard(name);
  return fmt(c.big ? t.cardBig : t.cardSmall, { n: zh() ? c.glyph : String(c.rank) });
}

/** Who a seat is for this viewer: 你, or 上家/下家/对家 with the name (a spectator: the name). */
export function whoIs(state, seat, t) {
  if (seat === null || seat === undefined) return "";
  if (state.me !== null && state.me !== undefined && seat === state.me) return t.you;
  const s = state.seats[seat];
  const name = (s && s.name) || "";
  const place = seatPlaces(state, t).find((p) => p.index === seat);
  return place && place.label ? `${place.label} ${name}`.trim() : name;
}

const ENGINE_WORDS = {
  discard: "evDiscard", chi: "evChi", peng: "evPeng", pao: "evPao", ti: "evTi", hu: "evHu",
};

/** One engine event as a line, or null for what is not worth a line (a draw, a pass, the deal). */
function engineLine(ev, state, t) {
  const who = whoIs(state, ev.seat, t);
  const card = cardName(ev.card, t);
  if (ENGINE_WORDS[ev.type]) {
    const kind = ev.type === "ti" && ev.from === "deal" ? "evTiDeal" : ENGINE_WORDS[ev.type];
    return { seat: ev.seat, kind: ev.type, text: fmt(t[kind], { who, card }) };
  }
  if (ev.type === "wei") {
    const key = ev.chou ? "evChouWei" : ev.card ? "evWei" : "evWeiHidden";
    return { seat: ev.seat, kind: "wei", text: fmt(t[key], { who, card }) };
  }
  if (ev.type === "natural_win") return { seat: ev.seat, kind: "hu", text: fmt(t.evNatural, { who }) };
  if (ev.type === "huang") return { seat: null, kind: "huang", text: t.evHuang };
  if (ev.type === "escape") return { seat: ev.seat, kind: "escape", text: fmt(t.evEscape, { who }) };
  return null;
}

/** The lines of one update's events (in order). */
export function eventLines(events, state, t) {
  const out = [];
  for (const e of events || []) {
    let line = null;
    if (e.type === "engine" && e.event) line = engineLine(e.event, state, t);
    else if (e.type === "seat.timeout" && !e.claim) {
      line = { seat: e.seat, kind: "timeout", text: fmt(t.evTimeout, { who: whoIs(state, e.seat, t) }) };
    } else if (e.type === "seat.tuoguan") {
      line = { seat: e.seat, kind: "tuoguan", text: fmt(e.on ? t.evTuoguanOn : t.evTuoguanOff, { who: whoIs(state, e.seat, t) }) };
    } else if (e.type === "seat.online" && e.seat !== state.me) {
      line = { seat: e.seat, kind: "online", text: fmt(e.online ? t.evOnline : t.evOffline, { who: whoIs(state, e.seat, t) }) };
    }
    if (line) out.push(line);
  }
  return out;
}

/** What a win is called: 自摸 on one's own draw, 放炮 on a discard, 胡 otherwise. */
const WIN_CALLS = { self_draw: "zimo", discard: "dianpao" };

/** The calls of one update's events, in order (speech.js says them out loud): one per public move,
 * ``{seat, kind, card}``. Only a discarded or turned-up card is named (``card``): every viewer sees
 * it at that moment. A move (吃/碰/偎/提/跑/臭偎/胡) is called without its card, so a hidden 偎 is just
 * 偎, and a pass (another seat's option) is never among the events. ``kind``: discard, show, chi,
 * peng, pao, ti, wei, chou_wei, hu, zimo, dianpao, huang. */
export function eventCalls(events) {
  const out = [];
  for (const e of events || []) {
    const ev = e.type === "engine" ? e.event : null;
    if (!ev) continue;
    let kind = null;
    let card = null;
    if (ev.type === "discard" || ev.type === "show") { kind = ev.type; card = ev.card || null; }
    else if (ev.type === "wei") kind = ev.chou ? "chou_wei" : "wei";
    else if (ev.type === "hu") kind = WIN_CALLS[ev.win_by] || "hu";
    else if (ev.type === "natural_win") kind = "hu";
    else if (ev.type === "huang" || ENGINE_WORDS[ev.type]) kind = ev.type;
    if (kind && (card || (kind !== "discard" && kind !== "show"))) out.push({ seat: ev.seat ?? null, kind, card });
  }
  return out;
}

function counts(cards) {
  const m = new Map();
  for (const c of cards || []) if (c) m.set(c, (m.get(c) || 0) + 1);
  return m;
}

/** What happened while the page was away: ``before`` (the last state it had) against ``after``
 * (the fresh one), from public parts of the views and the viewer's own hand only. */
export function awayLines(before, after, t) {
  if (!before || !after) return [];
  const b = before.hand;
  const a = after.hand;
  if (!a || !a.view) return [];
  if (!b || !b.view || b.number !== a.number) return [fmt(t.awayNewHand, { n: a.number })];
  const out = [];
  const bv = b.view;
  const av = a.view;
  for (let seat = 0; seat < after.players; seat++) {
    const who = whoIs(after, seat, t);
    const oldGroups = (bv.groups && bv.groups[seat]) || [];
    const newGroups = (av.groups && av.groups[seat]) || [];
    const laid = [];
    const chi = [];
    newGroups.slice(oldGroups.length).forEach((g) => {
      const card = g.cards.find((c) => c) || null;
      laid.push(...g.cards.filter((c) => c));
      // A 吃 lays its sentence (and any 比) without saying which card was taken: said as its cards.
      if (g.kind === "chi") { chi.push(g.cards.map((c) => cardText(c)).join("")); return; }
      const key = g.kind === "wei" && !card ? "evWeiHidden" : g.kind === "chou_wei" ? "evChouWei" : ENGINE_WORDS[g.kind] || "evWei";
      out.push(fmt(t[key], { who, card: cardName(card, t) }));
    });
    if (chi.length) out.push(fmt(t.evChi, { who, card: chi.join(" ") }));
    // Groups that grew (偎 -> 提, 碰 -> 跑): the same place, a new kind.
    oldGroups.forEach((g, i) => {
      const now = newGroups[i];
      if (now && now.kind !== g.kind && ENGINE_WORDS[now.kind]) {
        out.push(fmt(t[ENGINE_WORDS[now.kind]], { who, card: cardName(now.cards.find((c) => c) || null, t) }));
      }
    });
    if (seat === after.me) {
      // My own cards that left my hand and went into no group of mine: the system played them.
      const gone = counts(bv.hands && bv.hands[seat]);
      for (const [c, n] of counts(av.hands && av.hands[seat])) gone.set(c, (gone.get(c) || 0) - n);
      for (const c of laid) if (gone.get(c) > 0) gone.set(c, gone.get(c) - 1);
      const played = [];
      for (const [c, n] of gone) for (let i = 0; i < n; i++) played.push(cardName(c, t));
      if (played.length) out.push(fmt(t.awayPlayedForMe, { cards: played.join("、") }));
    } else {
      const oldD = (bv.discards && bv.discards[seat]) || [];
      const newD = (av.discards && av.discards[seat]) || [];
      if (newD.length > oldD.length) out.push(fmt(t.awayDiscards, { who, cards: newD.slice(oldD.length).map((c) => cardName(c, t)).join("、") }));
    }
  }
  return out;
}
