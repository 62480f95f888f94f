// Panels around the board: action buttons, 吃 choices, waiting room, piao, settlement, summary
// (the 解散 vote is a bar above the hand: notices.js).
import { h } from "../common/dom.js";
import { fmt } from "../common/text.js";
import { cardEl } from "./cards.js";
import { inviteButton } from "./invite.js";
import { deadlineTotal, legalActions, ringEl, secondsLeft, showsCountdown } from "./board.js";

function button(text, cls, onClick) {
  const b = h("button", `btn ${cls}`, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

/** Buttons for exactly the legal claim actions; on my turn to discard, 出牌 (the raised card goes:
 * a tap on a card raises it) and, until the player has discarded once, how to do it. */
export function renderActions(root, state, t, api) {
  root.replaceChildren();
  const legal = legalActions(state.hand);
  if (legal.some((a) => a.type === "discard")) {
    if (api.hint) root.append(h("p", "discard-hint", t.discardHint));
    const raised = api.raised();
    const b = button(t.discard, "btn-primary act act-discard", () => api.discardRaised());
    b.disabled = !raised;
    b.title = raised ? "" : t.raiseFirst;
    root.append(b);
  }
  const chis = legal.filter((a) => a.type === "chi");
  const order = ["hu", "peng", "chi", "pass"];
  for (const type of order) {
    if (type === "chi") {
      if (!chis.length) continue;
      root.append(button(t.chi, "act act-chi", () => (chis.length === 1 ? api.act(chis[0]) : api.chooseChi(chis))));
    } else if (legal.some((a) => a.type === type)) {
      root.append(button(t[type], `act act-${type}`, () => api.act({ type })));
    }
  }
  const seat = state.me !== null && state.me !== undefined ? state.seats[state.me] : null;
  if (seat && seat.tuoguan) root.append(button(t.cancelTuoguan, "act act-cancel-tuoguan", () => api.send({ type: "tuoguan", on: false })));
}

/** The 吃 chooser: each option shown as the groups it lays (比 included). */
export function renderChiChooser(root, options, t, api) {
  root.replaceChildren();
  if (!options) { root.hidden = true; return; }
  root.hidden = false;
  root.append(h("h3", "", t.chooseChi));
  options.forEach((opt) => {
    const b = h("button", "chi-option");
    b.type = "button";
    opt.groups.forEach((g) => {
      const col = h("span", "group");
      g.forEach((c) => col.append(cardEl(c, { size: "sm" })));
      b.append(col);
    });
    b.addEventListener("click", () => api.act(opt));
    root.append(b);
  });
  root.append(button(t.cancel, "", () => api.chooseChi(null)));
}

export function renderWaiting(root, state, t, api, cfg) {
  root.replaceChildren();
  if (state.stage !== "seating") { root.hidden = true; return; }
  root.hidden = false;
  root.append(h("h2", "", state.name), h("p", "muted waiting-line", readyLine(state, t)));
  const list = h("ul", "seat-list");
  state.seats.forEach((s) => {
    const li = h("li", s.ready ? "ready" : "");
    li.append(h("span", "", s.name || t.emptySeat));
    if (s.user_id || s.bot) li.append(h("span", `badge ${s.ready ? "is-ready" : "not-ready"}`, s.ready ? t.seatReady : t.seatNotReady));
    list.append(li);
  });
  root.append(list);
  const mine = state.me !== null && state.me !== undefined ? state.seats[state.me] : null;
  const free = state.seats.some((s) => !s.user_id && !s.bot);
  const bar = h("div", "actions");
  if (!mine && free) bar.append(button(t.join, "btn-primary", () => api.post(cfg.urls.join)));
  if (mine && !mine.ready) bar.append(button(t.ready, "btn-primary act-ready", () => api.send({ type: "ready" })));
  if (state.practice && state.created_by === cfg.userId && free) bar.append(button(t.addBot, "", () => api.post(cfg.urls.bot)));
  if (mine && free && cfg.urls.invite) bar.append(inviteButton(t, cfg));  // 邀请 (invite.js)
  if (mine && state.created_by !== cfg.userId) bar.append(button(t.leave, "", () => api.post(cfg.urls.leave)));
  if (mine && !cfg.arranged && state.created_by === cfg.userId) bar.append(button(t.dissolveTable, "btn-danger act-dissolve", () => api.dissolve()));
  root.append(bar);
}

/** Who the table waits for, in words: seats still empty (等待玩家入座), else the players not ready
 * yet (你 first), else that the hand is about to start. */
export function readyLine(state, t) {
  if (state.seats.some((s) => !s.user_id && !s.bot)) return t.waitingPlayers;
  const waiting = state.seats.filter((s) => !s.ready);
  if (!waiting.length) return t.allReady;
  const me = state.me !== null && state.me !== undefined ? state.me : -1;
  const names = waiting.sort((a, b) => (b.index === me) - (a.index === me)).map((s) => (s.index === me ? t.youInLine : s.name));
  return fmt(t.waitingReady, { names: names.join("、") });
}

export function renderPiao(root, state, t, api) {
  root.replaceChildren();
  const mine = state.me !== null && state.me !== undefined ? state.seats[state.me] : null;
  if (state.stage !== "piao" || !mine || mine.piao_chosen) { root.hidden = true; return; }
  root.hidden = false;
  const title = h("h3", "", `${t.choosePiao} `);
  title.append(countdown(state.deadline));
  root.append(title);
  const bar = h("div", "actions");
  state.piao_choices.forEach((v) => {
    const b = button(String(v), "btn-primary act-piao", () => api.send({ type: "piao", value: v }));
    b.dataset.value = String(v);  // (its pending mark: main.js markFor)
    bar.append(b);
  });
  root.append(bar);
}

/** A countdown that main.js ticks every second (no re-render, so buttons stay clickable). */
export function countdown(deadline) {
  const el = h("span", "countdown", deadline ? `${secondsLeft(deadline)}s` : "");
  if (deadline) el.dataset.deadline = String(deadline);
  return el;
}

const signed = (n) => (n > 0 ? `+${n}` : `${n}`);

export function renderSettlement(root, state, t, api, cfg) {
  root.replaceChildren();
  const hand = state.hand;
  const over = state.stage === "over";
  // A hand cut short by 解散 has no result to show: the over panel says so (renderOver).
  if (!hand || hand.status !== "finished" || !(state.stage === "settle" || over)) { root.hidden = true; return; }
  root.hidden = false;
  const result = hand.result || {};
  const s = result.settlement || {};
  const totals = (hand.totals && hand.totals.total) || {};
  // The session is over: said first, for players and watchers alike (issue #46).
  if (over) root.append(h("p", "session-over", state.status === "dissolved" ? t.dissolved : t.finished));
  root.append(h("h2", "", `${t.settlement} · ${t.hand} ${hand.number}/${state.hands_per_session}`));
  if (result.escape !== null && result.escape !== undefined) {
    // 逃跑 (RULES.md §8.6): who left and what he pays, split among the others (the table below)
    const leaver = state.seats[result.escape];
    const pays = hand.totals ? -Number(hand.totals.total[String(result.escape)] || 0) : result.penalty;
    root.append(h("p", "result-line escape-line", fmt(t.escapeResult, { name: leaver ? leaver.name : "", n: pays })));
  } else if (result.winner === null || result.winner === undefined) {
    root.append(h("p", "result-line", hand.status === "dissolved" ? t.dissolved : t.draw));
  } else {
    const winner = state.seats[result.winner];
    root.append(h("p", "result-line", `${t.winner}${t.colon}${winner.name} · ${t["win_" + result.win_by] || result.win_by}`));
    const groups = h("div", "settle-groups");
    // The winning card (result.card) is marked in the last group that holds it: the group it formed.
    const winGroup = result.card ? (s.groups || []).map((g) => g.cards.includes(result.card)).lastIndexOf(true) : -1;
    (s.groups || []).forEach((g, gi) => {
      const col = h("span", `group g-${g.kind}${gi === winGroup ? " has-win-card" : ""}`);
      let marked = false;
      g.cards.forEach((c) => {
        const win = gi === winGroup && !marked && c === result.card;
        if (win) marked = true;
        col.append(cardEl(c, { size: "sm", extra: win ? "win-card" : "" }));
      });
      col.append(h("small", "huxi", `${t[g.kind] || g.kind} ${g.huxi}`));
      groups.append(col);
    });
    root.append(groups);
    const facts = h("dl", "facts");
    const fact = (k, v) => facts.append(h("dt", "", k), h("dd", "", String(v)));
    fact(t.huxi, s.huxi ?? "");
    fact(t.tun, s.tun ?? "");
    (s.mingtang || []).forEach((m) => fact(`${t.mingtang} ${t.mingtangNames[m.name] || m.name}`, `${m.fan} ${t.fan}`));
    fact(t.fan, s.fan ?? 1);
    // 封顶 (RULES.md §9.6): the settlement carries the cap when it lowered the score
    fact(t.score, s.cap ? `${s.score} · ${fmt(t.capped, { n: s.cap })}` : (s.score ?? ""));
    root.append(facts);
  }
  const table = h("table", "deltas");
  const head = h("tr");
  const fees = hand.fees || {};
  const anyFee = Object.keys(fees).length > 0;  // the table fee (桌费) goes to the club, not to a player
  [t.player, t.score, t.piao, t.change].concat(anyFee ? [t.fee] : []).forEach((x) => head.append(h("th", "", x)));
  table.append(head);
  state.seats.forEach((seat) => {
    const tr = h("tr", seat.index === state.me ? "me" : "");
    const k = String(seat.index);
    tr.append(h("td", "", seat.name), h("td", "", signed((hand.totals && hand.totals.score[k]) || 0)),
      h("td", "", signed((hand.totals && hand.totals.piao[k]) || 0)), h("td", "delta", signed(totals[k] || 0)));
    if (anyFee) tr.append(h("td", "fee", fees[k] ? signed(-fees[k]) : ""));
    table.append(tr);
  });
  root.append(table);
  // The seed and its hash are for checking the deal (README: technical detail goes in a fold).
  const proof = h("details", "proof tech");
  proof.append(h("summary", "", t.techDetails), h("code", "", `${t.seed} ${hand.seed}`), h("code", "", `${t.seedHash} sha256 ${hand.seed_hash}`));
  root.append(proof);
  const bar = h("div", "actions");
  const mine = state.me !== null && state.me !== undefined ? state.seats[state.me] : null;
  if (!over && api.send) root.append(h("p", "muted ready-line", readyLine(state, t)));
  if (!over && mine) bar.append(button(mine.ready ? t.readyDone : t.nextHand, "btn-primary act-ready", () => api.send({ type: "ready" })));
  if (over) bar.append(backLink(t, cfg));
  // The hand's replay (apps/replays), once it has ended: cfg.replayUrl has a %(number)s slot.
  if (cfg.replayUrl) bar.append(Object.assign(h("a", "btn act-replay", t.replay), { href: fmt(cfg.replayUrl, { number: hand.number }) }));
  // A table that starts its next hand by itself (a match table): the seconds left, from the
  // server's deadline (RULES.md §11.6 timers; main.js ticks the ring), in the button row that
  // stays at the panel's foot, so a long result never scrolls it out of sight.
  if (!over && state.deadline_kind === "next" && showsCountdown(state)) {
    bar.append(h("p", "next-hand-line", h("span", "", t.nextHandAuto), ringEl(state.deadline, deadlineTotal(state), "next-ring")));
  }
  root.append(bar);
  if (over && state.summary) root.append(summaryEl(state, t, api, cfg));
}

/** The 大局 summary after the last hand: per player total, 胡, 自摸, 放炮 (when the rules have 点炮),
 * best 胡息, the big winner (大赢家) marked; 再来一局 for seated players when the server offers it. */
export function summaryEl(state, t, api, cfg, { title = true } = {}) {
  const box = h("div", "session-summary");
  if (title) box.append(h("h2", "", state.status === "dissolved" ? t.dissolved : t.summary));
  const rows = (state.summary || []).filter((r) => r.name);  // a seat nobody took has no row
  const has = (k) => rows.some((r) => r[k] !== null && r[k] !== undefined);
  const cols = [["total", t.total, (r) => signed(r.total ?? 0), "delta"], ["wins", t.wins, (r) => String(r.wins ?? 0), ""]];
  if (has("zimo")) cols.push(["zimo", t.zimo, (r) => String(r.zimo ?? 0), ""]);
  if (has("dianpao")) cols.push(["dianpao", t.dianpao, (r) => (r.dianpao === null || r.dianpao === undefined ? "" : String(r.dianpao)), ""]);
  if (has("best_huxi")) cols.push(["best_huxi", t.bestHuxi, (r) => String(r.best_huxi ?? 0), ""]);
  const sum = h("table", "summary");
  const hr = h("tr");
  [t.player, ...cols.map((c) => c[1])].forEach((x) => hr.append(h("th", "", x)));
  sum.append(hr);
  rows.forEach((r) => {
    const tr = h("tr", `${r.big_winner ? "big-winner" : ""}${r.index === state.me ? " me" : ""}`.trim());
    const name = h("td", "summary-name", r.name || "");
    if (r.big_winner) name.append(h("span", "badge big-winner-badge", t.bigWinner));
    tr.append(name);
    cols.forEach(([key, , fmtCell, cls]) => tr.append(h("td", `${cls} col-${key}`.trim(), fmtCell(r))));
    sum.append(tr);
  });
  box.append(sum);
  const bar = h("div", "actions");
  const mine = state.me !== null && state.me !== undefined;
  const played = state.hands_played > 0;  // 再来一局 and the hands' replays need a hand played
  if (mine && played && cfg.urls && cfg.urls.rematch) bar.append(button(t.rematch, "btn-primary act-rematch", () => api.rematch()));
  if (played && cfg.handsUrl) bar.append(Object.assign(h("a", "btn btn-small hands-link", cfg.handsLabel || t.replay), { href: cfg.handsUrl }));
  box.append(bar);
  return box;
}

export function renderOver(root, state, t, cfg, api) {
  // A session that ended without a settled last hand (dissolved before any hand, or during one):
  // one message, the summary of the hands played (if any), the way back.
  root.replaceChildren();
  const hand = state.hand;
  if (state.stage !== "over" || (hand && hand.status === "finished")) { root.hidden = true; return; }
  root.hidden = false;
  root.append(h("h2", "", state.status === "dissolved" ? t.dissolved : t.finished));
  if (hand && hand.status === "dissolved") root.append(h("p", "muted cut-short", fmt(t.handCutShort, { n: hand.number })));
  if (state.hands_played > 0 && state.summary && state.summary.length) root.append(summaryEl(state, t, api, cfg, { title: false }));
  else if (!hand) root.append(h("p", "muted no-hands", t.noHandPlayed));
  const bar = h("div", "actions");
  bar.append(backLink(t, cfg));
  root.append(bar);
}

/** The way back from a table: to the club, or to the match for a match table (cfg.back). */
function backLink(t, cfg) {
  const back = cfg.back || { url: cfg.clubUrl, label: t.backToClub };
  return Object.assign(h("a", "btn act-back", back.label), { href: back.url });
}
