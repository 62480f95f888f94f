// Live standings of a match page: polls the standings endpoint every few seconds and redraws the
// table, the round, the paused banner and the "go to my table" prompt without a reload.
// Config and strings come from json_script blobs rendered by templates/matches/detail.html.

import { $, h, jsonScript } from "../common/dom.js";
import { fmt } from "../common/text.js";

const cfg = jsonScript("match-config");
const t = jsonScript("match-strings");
const FINAL = new Set(["finished", "cancelled"]);

const app = { data: null, polls: 0, errors: 0, stopped: false };
window.matchApp = app;

function statusBadge(row, finished) {
  if (finished) {
    // Final results: the prize (if any) in place of "playing".
    return row.prize ? h("span", "badge entry-prize", fmt(t.prize, { n: row.prize })) : "—";
  }
  return h("span", `badge entry-${row.state}`, t.status[row.state] || row.state);
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
        h("td", "name", r.name, r.user_id === meId ? h("small", "muted", ` (${t.you})`) : ""),
        h("td", "num mp", cfg.usesChips ? r.chips : r.match_points),
        h("td", "num gp", r.game_points),
        h("td", "num bh", r.best_hand),
        h("td", "tbl", tableCell(r)),
        h("td", "st", statusBadge(r, finished)),
      );
      tr.dataset.user = r.user_id;
      return tr;
    }),
  );
}

function renderPrompt(me) {
  const box = $("my-table-prompt");
  if (!box) return;
  const url = me && me.table_url;
  if (!url) {
    box.hidden = true;
    return;
  }
  const link = box.querySelector("a");
  link.href = url;
  box.querySelector(".prompt-text").textContent = me.table_number
    ? fmt(t.seatedAt, { n: me.table_number })
    : t.seated;
  box.hidden = false;
}

function render(data) {
  app.data = data;
  const body = $("standings-body");
  const finished = data.state === "finished";
  if (body) renderRows(body, data.rows, cfg.userId, finished);
  const title = $("standings-title");
  if (title && finished) title.textContent = t.finalResults;
  const lastHead = $("standings-last-head");
  if (lastHead && finished) lastHead.textContent = t.prizeHead;
  const empty = $("standings-empty");
  if (empty) empty.hidden = data.rows.length > 0;
  const round = $("match-round");
  if (round && FINAL.has(data.state)) {
    round.textContent = t.states[data.state];
    round.parentElement.querySelector(".live-dot")?.remove();
  } else if (round && data.round) {
    round.textContent = data.in_final ? t.final : fmt(t.roundOf, { n: data.round, total: data.rounds || "?" });
  }
  const paused = $("match-paused");
  if (paused) paused.hidden = !data.paused;
  const updated = $("standings-updated");
  if (updated) updated.textContent = new Date().toLocaleTimeString();
  renderPrompt(data.me);
  const badge = $("match-state");
  if (badge && t.states[data.state]) {
    badge.textContent = t.states[data.state];
    badge.className = `badge state-${data.state}`;
  }
  const countdown = $("countdown-box");
  if (countdown && !["draft", "registering", "checking_in"].includes(data.state)) countdown.hidden = true;
  if (data.state !== cfg.state) {
    const notice = $("match-changed");
    if (notice) notice.hidden = false;
  }
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
    render(data);
    if (FINAL.has(data.state)) app.stopped = true; // nothing changes any more
  } catch {
    app.errors += 1;
  }
  if (!app.stopped) setTimeout(poll, app.errors > 5 ? cfg.pollMs * 4 : cfg.pollMs);
}

if (cfg.standingsUrl) poll();
