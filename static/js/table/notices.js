// What happened to a 解散 vote, told to everyone at the table (issue #46): each answer, a refusal
// with who refused, a vote that ran out, a table dissolved. A line above the hand (never over it)
// that stays until the next notice or its close button.
import { h } from "../common/dom.js";
import { fmt } from "../common/text.js";
import { seatPlaces } from "./board.js";

/** What the viewer calls seat ``index``: 你, 下家 / 上家 / 对家 for a seated player, else its name. */
export function seatWord(state, index, t) {
  if (index === state.me) return t.you;
  const place = seatPlaces(state, t).find((p) => p.index === index);
  if (place && place.label) return place.label;
  const seat = state.seats[index];
  return seat ? seat.name : "";
}

/** The notices an update brings (``events``: the update's table events; none after a resync, when
 * the states alone tell that a vote ended). */
export function dissolveNotices(prev, next, events, t) {
  const out = [];
  let ended = false;
  for (const ev of events || []) {
    if (ev.type === "dissolve.vote" && ev.seat !== next.me) {
      out.push(fmt(ev.vote ? t.dissolveAgreed : t.dissolveRefused, { who: seatWord(next, ev.seat, t) }));
      if (!ev.vote) ended = true;
    } else if (ev.type === "dissolve.vote" && !ev.vote) {
      ended = true;  // my own refusal: the panel's going away says it
    } else if (ev.type === "dissolve.cancel" && ev.reason !== "refused") {
      out.push(t.dissolveTimedOut);
      ended = true;
    } else if (ev.type === "table.dissolve") {
      out.push({ vote: t.dissolveDone, owner: t.dissolvedByOwner, admin: t.dissolvedByAdmin }[ev.reason] || t.dissolved);
      ended = true;
    }
  }
  if (!ended && prev && prev.dissolve && !next.dissolve && !(events || []).length && next.status === "playing") {
    out.push(t.dissolveNotPassed);
  }
  return out;
}

/** Show the latest notice in ``root`` (the line above the hand). */
export function showNotice(root, text, t) {
  root.replaceChildren();
  if (!text) { root.hidden = true; return; }
  const close = h("button", "notice-close", "×");
  close.type = "button";
  close.setAttribute("aria-label", t.close);
  close.addEventListener("click", () => { root.hidden = true; });
  root.append(h("span", "notice-text", text), close);
  root.hidden = false;
}

/** The vote itself as a compact bar above the hand: who asked, each seat's answer, the countdown,
 * and my two buttons while I have not answered. */
export function renderDissolveBar(root, state, t, api, countdown) {
  root.replaceChildren();
  const d = state.dissolve;
  if (!d) { root.hidden = true; return; }
  root.hidden = false;
  // One line where it fits: who asked, each seat's answer, how many are still to answer, the clock.
  const head = h("div", "dissolve-head");
  head.append(h("strong", "dissolve-ask", fmt(t.dissolveAsk, { name: seatWord(state, d.by, t) })));
  const list = h("ul", "votes");
  state.seats.forEach((s) => {
    const v = d.votes[String(s.index)];
    const li = h("li", v === true ? "vote-yes" : v === false ? "vote-no" : "vote-wait");
    li.append(h("span", "vote-who", seatWord(state, s.index, t)), h("span", "vote-mark", v === true ? "✓" : v === false ? "✗" : "…"));
    list.append(li);
  });
  head.append(list);
  const left = state.seats.filter((s) => (s.user_id || s.bot) && d.votes[String(s.index)] === undefined).length;
  if (left) head.append(h("span", "muted dissolve-left", fmt(t.dissolveWaitingFor, { n: left })));
  head.append(countdown(d.deadline));
  root.append(head);
  const mine = state.me !== null && state.me !== undefined;
  if (mine && d.votes[String(state.me)] === undefined) {
    const bar = h("div", "actions");
    const agree = h("button", "btn btn-primary act-agree", t.agree);
    agree.type = "button";
    agree.addEventListener("click", () => api.send({ type: "dissolve", vote: true }));
    const refuse = h("button", "btn btn-danger act-refuse", t.refuse);
    refuse.type = "button";
    refuse.addEventListener("click", () => api.send({ type: "dissolve", vote: false }));
    bar.append(agree, refuse);
    root.append(bar);
  }
}
