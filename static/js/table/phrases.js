// 快捷语 and reactions (issue #47): the 💬 button of the top strip opens a small sheet of the
// server's fixed list (``cfg.phrases``: ids and words in the viewer's language; null when the
// table's rules turn them off). A seated player's tap sends the id; every viewer at the table,
// spectators too, is sent ``{"type": "phrase", seat, phrase}`` and shows a bubble by that seat for
// BUBBLE_MS. Each viewer may hide the others' phrases (remembered on this device); his own still
// show, so he sees what he sent. Not game state: no outbox, no resend, nothing pending.
import { $, h } from "../common/dom.js";

const BUBBLE_MS = 3000;
const COOL_MS = 3000;  // the server lets a seat send one every 3 s: the sheet waits as long
const MUTE_KEY = "paohuzi:phrases-muted";

const seatedIn = (st) => Boolean(st) && st.me !== null && st.me !== undefined;

/** The 快捷语 of this page: ``render(state)`` after every render, ``show(msg)`` for each phrase. */
export function setupPhrases({ cfg, t, send, getState }) {
  const lists = cfg.phrases;
  const btn = $("phrase-btn");
  const sheet = $("phrase-sheet");
  const layer = $("phrase-layer");
  const byId = new Map(lists ? [...lists.phrases, ...lists.reactions].map((p) => [p.id, p]) : []);
  let muted = localStorage.getItem(MUTE_KEY) === "1";
  let coolUntil = 0;
  const bubbles = new Map();  // seat -> {el, timer}

  if (!lists || !btn) return { render() {}, show() {} };
  btn.hidden = false;
  btn.textContent = "💬";
  btn.setAttribute("aria-label", t.phrasesButton);
  btn.title = t.phrasesButton;
  btn.addEventListener("click", () => (sheet.hidden ? open() : close()));
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && !sheet.hidden) close(); });
  document.addEventListener("pointerdown", (ev) => {
    if (!sheet.hidden && !sheet.contains(ev.target) && !btn.contains(ev.target)) close();
  });

  function showButton() {
    btn.classList.toggle("muted", muted);
    btn.title = muted ? `${t.phrasesButton} · ${t.phrasesMuted}` : t.phrasesButton;
    btn.setAttribute("aria-expanded", sheet.hidden ? "false" : "true");
  }

  function open() {
    fill();
    sheet.hidden = false;
    showButton();
  }
  function close() {
    sheet.hidden = true;
    showButton();
  }

  /** The sheet: reactions, phrases (a seated player only) and the mute switch (everyone). */
  function fill() {
    const seated = seatedIn(getState());
    const cooling = Date.now() < coolUntil;
    const mute = h("button", `btn btn-small phrase-mute${muted ? " on" : ""}`, muted ? t.phrasesUnmute : t.phrasesMute);
    mute.type = "button";
    mute.setAttribute("aria-pressed", muted ? "true" : "false");
    mute.addEventListener("click", () => {
      muted = !muted;
      try { localStorage.setItem(MUTE_KEY, muted ? "1" : "0"); } catch { /* private mode */ }
      if (muted) for (const seat of [...bubbles.keys()]) if (seat !== getState()?.me) drop(seat);
      fill();
      showButton();
    });
    // The switch beside the title: always in sight, however long the list below scrolls.
    sheet.replaceChildren(h("div", "phrase-head", h("h2", "phrase-title", t.phrasesTitle), mute));
    if (seated) {
      const reactions = h("div", "phrase-reactions");
      for (const r of lists.reactions) {
        const b = h("button", "phrase-reaction", r.emoji);
        Object.assign(b, { type: "button", title: r.text, disabled: cooling });
        b.dataset.phrase = r.id;
        b.setAttribute("aria-label", r.text);
        b.addEventListener("click", () => say(r.id));
        reactions.append(b);
      }
      const phrases = h("div", "phrase-list");
      for (const p of lists.phrases) {
        const b = h("button", "phrase-item", p.text);
        Object.assign(b, { type: "button", disabled: cooling });
        b.dataset.phrase = p.id;
        b.addEventListener("click", () => say(p.id));
        phrases.append(b);
      }
      sheet.append(reactions, phrases);
    } else {
      sheet.append(h("p", "muted phrase-note", t.phrasesSeatedOnly));
    }
  }

  function say(id) {
    if (Date.now() < coolUntil) return;
    coolUntil = Date.now() + COOL_MS;
    setTimeout(() => { if (!sheet.hidden) fill(); }, COOL_MS + 50);  // (its buttons wake up again)
    send(id);
    close();
  }

  /** Where a seat's bubble goes: under an opponent's name, above my own seat (never over my hand
   * or the action buttons). */
  function place(el, seat) {
    const st = getState();
    const felt = $("felt").getBoundingClientRect();
    const own = seatedIn(st) && st.me === seat;
    const anchor = own ? document.querySelector("#mine .my-info")
      : document.querySelector(`#felt .opponent[data-seat="${seat}"] .seat-head`);
    if (!anchor) {
      Object.assign(el.style, { top: "40%", left: "50%", bottom: "" });
      return;
    }
    const r = anchor.getBoundingClientRect();
    const below = !own && !anchor.closest("#mine");  // an opponent at the top: under his name
    el.classList.toggle("from-above", below);
    el.style.left = `${Math.max(4, Math.min(r.left - felt.left + (own ? 8 : 0), felt.width - 200))}px`;
    if (below) Object.assign(el.style, { top: `${r.bottom - felt.top + 4}px`, bottom: "" });
    else Object.assign(el.style, { top: "", bottom: `${Math.max(4, felt.bottom - r.top + 6)}px` });
  }

  function drop(seat) {
    const b = bubbles.get(seat);
    if (!b) return;
    clearTimeout(b.timer);
    b.el.remove();
    bubbles.delete(seat);
  }

  return {
    render(st) {
      btn.hidden = false;
      if (!sheet.hidden && seatedIn(st) !== Boolean(sheet.querySelector(".phrase-list"))) fill();
      for (const [seat, b] of bubbles) place(b.el, seat);  // (the board was drawn again)
      showButton();
    },
    show(msg) {
      const st = getState();
      const phrase = byId.get(msg.phrase);
      if (!phrase || !st) return;
      const mine = seatedIn(st) && st.me === msg.seat;
      if (muted && !mine) return;
      drop(msg.seat);
      const seatName = (st.seats[msg.seat] && st.seats[msg.seat].name) || "";
      const el = h("div", `phrase-bubble${phrase.emoji ? " reaction" : ""}`, phrase.emoji || phrase.text);
      el.dataset.seat = String(msg.seat);
      el.dataset.phrase = phrase.id;
      el.setAttribute("role", "status");
      el.setAttribute("aria-label", `${seatName}${t.colon}${phrase.text}`);
      layer.append(el);
      place(el, msg.seat);
      bubbles.set(msg.seat, { el, timer: setTimeout(() => drop(msg.seat), BUBBLE_MS) });
    },
  };
}
