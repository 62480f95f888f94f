// The live match page: polls one endpoint (standings.json, a fixed number of queries) every few
// seconds and redraws what it shows without a reload: the state badge, the round, the viewer's own
// entry (status with its reason; only the buttons that apply now: 报名 / 签到 / 退赛), the paused
// banner, the standings, and the "go to my table" prompt. When the match seats the viewer at a new
// table it takes him there after a short countdown he may cancel. Banners of a state that has
// passed (the flash messages of a check-in, ...) go when the state changes.
// Config and strings come from json_script blobs rendered by templates/matches/detail.html.

import { $, h, jsonScript } from "../common/dom.js";
import { fmt } from "../common/text.js";

const cfg = jsonScript("match-config");
const t = jsonScript("match-strings");
const FINAL = new Set(["finished", "cancelled"]);
const BEFORE = new Set(["draft", "registering", "checking_in"]);

const app = { data: null, polls: 0, errors: 0, stopped: false, moving: null, cancelled: new Set(), shownState: cfg.state,
  stage: `${cfg.state}:${cfg.round}`, refreshed: 0 };
// The parts of the page that change only when a round is seated or the match starts or ends: the
// round seatings, the prizes, the entrant list and the fair-seating proof (the seed is revealed
// after round 1). They are taken from a fresh copy of this page when that happens.
const STAGE_PARTS = ["seatings", "prizes", "entrants", "fairness"];
window.matchApp = app;

function badge(status) {
  return h("span", `badge entry-${status.key}`, status.label);
}

function lastCell(row, finished) {
  if (finished) {
    // Final results: the prize (if any) in place of the status.
    return row.prize ? h("span", "badge entry-prize", fmt(t.prize, { n: row.prize })) : "—";
  }
  return badge(row.status);
}

function tableCell(row) {
  if (!row.table) return "—";
  const label = fmt(t.tableNo, { n: row.table.number });
  return row.table.url ? Object.assign(h("a", "", label), { href: row.table.url }) : label;
}

export function renderRows(body, rows, meId, finished = false) {
  body.replaceChildren(
    ...rows.map((r) => {
      const tr = h(
        "tr",
        [r.user_id === meId ? "me" : "", `row-${r.state}`].join(" ").trim(),
        h("td", "num rank", r.rank),
        h("td", "name", r.name, r.user_id === meId ? h("small", "muted", ` (${t.you})`) : "",
          finished && r.status.key !== "done" ? " " : "", finished && r.status.key !== "done" ? badge(r.status) : ""),
        h("td", "num mp", cfg.usesChips ? r.chips : r.match_points),
        h("td", "num gp", r.game_points),
        h("td", "num bh", r.best_hand),
        h("td", "tbl", tableCell(r)),
        h("td", "st", lastCell(r, finished)),
      );
      tr.dataset.user = r.user_id;
      return tr;
    }),
  );
}

function stopMove() {
  clearInterval(app.moving);
  app.moving = null;
  $("move-count").hidden = true;
  $("move-cancel").hidden = true;
}

/** A new table for me (not the one I had when the page loaded): go there in a few seconds. */
function startMove(me) {
  if (app.moving || app.cancelled.has(me.table_url)) return;
  let left = cfg.moveSeconds;
  const count = $("move-count");
  const say = () => { count.textContent = fmt(t.movingIn, { n: me.table_number, s: Math.max(0, left) }); };
  say();
  count.hidden = false;
  const cancel = $("move-cancel");
  cancel.hidden = false;
  cancel.onclick = () => { app.cancelled.add(me.table_url); stopMove(); };
  app.moving = setInterval(() => {
    left -= 1;
    say();
    if (left <= 0) {
      stopMove();
      location.href = me.table_url;
    }
  }, 1000);
}

function renderPrompt(me) {
  const box = $("my-table-prompt");
  if (!box) return;
  const url = me && me.table_url;
  if (!url) {
    box.hidden = true;
    stopMove();
    return;
  }
  const link = $("go-to-table");
  link.href = url;
  box.querySelector(".prompt-text").textContent = me.table_number
    ? fmt(t.seatedAt, { n: me.table_number })
    : t.seated;
  box.hidden = false;
  if (url !== cfg.tableAtLoad) startMove(me);
}

function show(id, on) {
  const el = $(id);
  if (el) el.hidden = !on;
  return el;
}

function renderEntry(data) {
  const box = $("register-box");
  if (!box) return;
  const o = data.options || {};
  show("form-register", o.register);
  show("form-check-in", o.check_in);
  const withdraw = show("form-withdraw", o.withdraw);
  if (withdraw && o.withdraw_note) withdraw.dataset.confirm = o.withdraw_note;
  const why = show("why-not", Boolean(o.why_not));
  if (why) why.textContent = o.why_not || "";
  const entry = data.entry;
  const status = show("my-status", Boolean(entry));
  const reason = show("my-status-reason", Boolean(entry && entry.status.reason));
  if (entry) {
    status.textContent = entry.status.label;
    status.className = `badge entry-${entry.status.key}`;
    reason.textContent = entry.status.reason;
  }
  const checked = show("checked-in-line", Boolean(entry && entry.checked_in && BEFORE.has(data.state)));
  if (checked && entry && entry.checked_in) checked.textContent = fmt(t.checkedInAt, { at: entry.checked_in_at });
  // Nothing to do and nothing to say here (a member watching a running match): no empty box.
  box.hidden = BEFORE.has(data.state) ? !(entry || o.register || o.why_not) : !entry;
}

function renderStandings(data) {
  const finished = data.state === "finished";
  const section = $("standings");
  if (section) section.hidden = !data.standings;
  const body = $("standings-body");
  if (body) renderRows(body, data.rows, cfg.userId, finished);
  const title = $("standings-title");
  if (title) title.textContent = finished ? t.finalResults : t.liveStandings;
  const lastHead = $("standings-last-head");
  if (lastHead) lastHead.textContent = finished ? t.prizeHead : t.statusHead;
  show("standings-empty", data.rows.length === 0);
  show("standings-updated-line", data.state === "running");
  const updated = $("standings-updated");
  if (updated) updated.textContent = new Date().toLocaleTimeString();
}

function render(data) {
  app.data = data;
  if (data.state !== app.shownState) {
    // The state moved on: messages about the one before (e.g. "checked in, stay on this page") go.
    document.querySelectorAll(".messages").forEach((el) => el.remove());
    app.shownState = data.state;
  }
  renderStandings(data);
  renderEntry(data);
  show("round-box", data.state === "running");
  const round = $("match-round");
  if (round && data.round) {
    round.textContent = data.in_final ? t.final : fmt(t.roundOf, { n: data.round, total: data.rounds || "?" });
  }
  show("match-paused", data.paused);
  renderPrompt(data.me);
  const stateBadge = $("match-state");
  if (stateBadge) {
    stateBadge.textContent = data.state_label;
    stateBadge.className = `badge state-${data.state}`;
  }
  show("countdown-box", BEFORE.has(data.state));
  const count = $("entrant-count");
  if (count && BEFORE.has(data.state)) count.textContent = data.entrants;
}

async function refreshParts() {
  try {
    const res = await fetch(location.pathname, { cache: "no-store", credentials: "same-origin" });
    if (!res.ok) return;
    const fresh = new DOMParser().parseFromString(await res.text(), "text/html");
    STAGE_PARTS.forEach((id) => {
      const now = $(id);
      const next = fresh.getElementById(id);
      if (now && next) now.replaceWith(document.importNode(next, true));
    });
    app.refreshed += 1;
  } catch { /* the next stage change tries again */ }
}

async function poll() {
  if (app.stopped) return;
  if (document.hidden) {
    setTimeout(poll, cfg.pollMs);
    return;
  }
  try {
    const res = await fetch(cfg.standingsUrl, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" });
    if (!res.ok) throw new Error(String(res.status));
    const data = await res.json();
    app.polls += 1;
    app.errors = 0;
    render(data);
    const stage = `${data.state}:${data.round}`;
    if (stage !== app.stage) {
      app.stage = stage;
      await refreshParts();
    }
    if (FINAL.has(data.state)) app.stopped = true; // nothing changes any more
  } catch {
    app.errors += 1;
  }
  if (!app.stopped) setTimeout(poll, app.errors > 5 ? cfg.pollMs * 4 : cfg.pollMs);
}

if (cfg.standingsUrl) poll();
