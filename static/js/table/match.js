// A match table's page follows its player through the match (config.follow, given by the match
// that arranged the table): once this table's session is over, it asks the match where he plays
// next (his own table only; spectators never ask) and takes him there after a short countdown he
// may cancel; until then it says why he waits (the next round, a bye, out); after the last round
// it leads to the final standings.
import { $, h, jsonScript } from "../common/dom.js";
import { fmt } from "../common/text.js";

const cfg = jsonScript("table-config");
const follow = cfg.follow;
const t = follow.strings;
const box = $("follow");
const app = { polls: 0, cancelled: false, timer: null, target: null, done: false };
window.tableFollow = app;

const seated = (s) => s && s.me !== null && s.me !== undefined;
const over = (s) => s && (s.stage === "over" || s.status === "finished" || s.status === "dissolved");

function link(label, url, cls) {
  return Object.assign(h("a", `btn ${cls}`, label), { href: url });
}

function show(...children) {
  box.replaceChildren(...children);
  box.hidden = false;
}

function moveTo(table) {
  if (app.target === table.url) return;  // already counting down (or cancelled) for this table
  app.target = table.url;
  let left = follow.seconds;
  const text = h("p", "follow-count", fmt(t.movingIn, { s: left }));
  const stay = h("button", "btn follow-stay", t.stay);
  stay.type = "button";
  stay.addEventListener("click", () => {
    app.cancelled = true;
    clearInterval(app.timer);
    text.remove();
    stay.remove();
  });
  const bar = h("div", "actions", link(fmt(t.go, { n: table.number }), table.url, "btn-primary follow-go"), stay);
  show(h("h3", "", fmt(t.next, { n: table.number })), text, bar);
  app.timer = setInterval(() => {
    left -= 1;
    text.textContent = fmt(t.movingIn, { s: Math.max(0, left) });
    if (left <= 0) {
      clearInterval(app.timer);
      location.href = table.url;
    }
  }, 1000);
}

function render(data) {
  if (data.table && data.table.id !== cfg.tableId) {
    moveTo(data.table);
    return;
  }
  if (data.state === "finished" || data.state === "cancelled") {
    app.done = true;
    show(h("h3", "", t.finished), h("div", "actions", link(t.standings, data.url, "btn-primary follow-standings")));
    return;
  }
  if (data.table && data.table.id === cfg.tableId) return;  // still this round's table
  // Where he is in the match now, in the server's words (status.py): 等待下一轮 while this round's
  // other tables play, 轮空 once the next round has started without him, out, absent...
  const key = data.status ? data.status.key : "waiting";
  const why = data.status && data.status.reason ? data.status.reason : t.waiting;
  show(h("p", `follow-why follow-${key}`, why), h("div", "actions", link(t.back, data.url, "follow-back")));
}

async function poll() {
  const state = window.tableApp && window.tableApp.state;
  if (!app.done && seated(state) && over(state) && !document.hidden) {
    try {
      const res = await fetch(follow.url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" });
      if (res.ok) {
        app.polls += 1;
        render(await res.json());
      }
    } catch { /* offline a moment: ask again at the next tick */ }
  }
  if (!app.done) setTimeout(poll, follow.pollMs);
}

if (box) setTimeout(poll, 500);
