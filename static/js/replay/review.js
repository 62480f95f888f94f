// 复盘 on the replay viewer: ask for the review of a seat (the viewer's own; any seat for managers),
// poll its small JSON state while it waits or runs, then a review mode: at each of the seat's
// decisions what was chosen and what the review prefers, every candidate's expected points as a bar,
// mistakes in red with the points they cost, 上一个失误 / 下一个失误, and the seat's summary.
import { $, h, jsonScript } from "../common/dom.js";
import { fmt } from "../common/text.js";
import { cardEl, cardText } from "../table/cards.js";

const box = $("review");
const app = window.replayApp;
if (box && app && $("review-strings")) {
  const w = jsonScript("review-strings");
  const t = jsonScript("replay-strings");
  const data = jsonScript("replay-data");
  const POLL_MS = 1500;
  const state = { seat: box.dataset.seat === "" ? null : Number(box.dataset.seat), review: null, timer: null };
  const seatSelect = $("review-seat");
  if (seatSelect) state.seat = Number(seatSelect.value);

  const num = (x, digits = 2) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));
  const signed = (x) => (x > 0 ? `+${num(x)}` : num(x));
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  /** An action as the viewer shows it: its word, then its cards as tiles (never ids like s8). */
  function actionEl(action) {
    const el = h("span", "review-action");
    el.append(h("span", "review-word", t[action.type] || action.type));
    const cards = action.card ? [[action.card]] : (action.groups || []);
    cards.forEach((group) => {
      const g = h("span", "review-cards");
      g.setAttribute("aria-label", group.map(cardText).join(""));
      group.forEach((c) => g.append(cardEl(c, { size: "sm" })));
      el.append(g);
    });
    return el;
  }

  const decisions = () => (state.review ? state.review.decisions : []);
  const mistakes = () => decisions().filter((d) => d.mistake);

  /** The decision shown at step k: the one about to be made (frame = its action's index), or the one just made. */
  function decisionAt(k) {
    const list = decisions();
    return list.find((d) => d.index === k) || list.find((d) => d.index === k - 1) || null;
  }

  function setStatus(text) { $("review-status").textContent = text; }

  function renderSummary() {
    const s = state.review.summary;
    const root = $("review-summary");
    root.replaceChildren();
    const dl = h("dl", "review-facts");
    const fact = (key, label, value) => {
      const pair = h("div", "review-fact");
      const dd = h("dd", "", value);
      dd.dataset.key = key;
      pair.append(h("dt", "", label), dd);
      dl.append(pair);
    };
    fact("agreement", w.agreement, s.agreement === null ? "—" : `${Math.round(s.agreement * 100)}%`);
    fact("loss", w.pointsLost, num(s.loss));
    fact("mistakes", w.mistakes, String(s.mistakes));
    fact("decisions", w.decisions, String(s.decisions));
    fact("mean_loss", w.meanLoss, num(s.mean_loss));
    root.append(dl);
    if (!s.mistakes) root.append(h("p", "review-clean", w.noMistake));
    root.hidden = false;
    $("review-nav").hidden = !s.mistakes;
  }

  function markMoves() {
    document.querySelectorAll("#moves .move").forEach((li) => li.classList.remove("review-decision", "review-mistake"));
    for (const d of decisions()) {
      const li = document.querySelector(`#moves .move[data-k="${d.index + 1}"]`);
      if (!li) continue;
      li.classList.add("review-decision");
      if (d.mistake) {
        li.classList.add("review-mistake");
        const btn = li.querySelector(".move-btn");
        if (btn && !btn.querySelector(".review-mark")) btn.append(h("span", "badge review-mark", `${w.mistakeMark} −${num(d.loss)}`));
      }
    }
  }

  function renderDecision(k) {
    const root = $("review-decision");
    if (!state.review) { root.hidden = true; return; }
    root.replaceChildren();
    root.hidden = false;
    const d = decisionAt(k);
    const list = decisions();
    root.classList.toggle("mistake", Boolean(d && d.mistake));
    if (!d) {
      root.dataset.index = "";
      root.append(h("p", "muted small", w.notDecision));
      return;
    }
    root.dataset.index = String(d.index);
    const head = h("div", "review-head");
    head.append(h("strong", "", fmt(w.decisionOf, { k: list.indexOf(d) + 1, n: list.length })));
    head.append(h("span", "muted small", fmt(w.worlds, { n: d.worlds })));
    root.append(head);
    const agrees = same(d.chosen, d.best) || d.loss === 0;
    const chosenLine = h("p", "review-line review-chosen");
    chosenLine.append(h("span", "review-label", w.chosen), actionEl(d.chosen));
    root.append(chosenLine);
    if (!same(d.chosen, d.best)) {
      const bestLine = h("p", "review-line review-best");
      bestLine.append(h("span", "review-label", w.preferred), actionEl(d.best));
      root.append(bestLine);
    }
    const verdict = h("p", `review-verdict${d.mistake ? " bad" : agrees ? " ok" : ""}`);
    verdict.dataset.loss = String(d.loss);
    verdict.textContent = d.mistake ? fmt(w.mistakeCost, { loss: num(d.loss) })
      : d.loss > 0 ? fmt(w.smallLoss, { loss: num(d.loss) }) : same(d.chosen, d.best) ? w.agrees : w.tooClose;
    root.append(verdict);
    // Every candidate's expected points as a bar, scaled over the candidates' range (points can be < 0).
    const evs = d.candidates.map((c) => c.ev);
    const lo = Math.min(0, ...evs);
    const hi = Math.max(0, ...evs);
    const span = hi - lo || 1;
    const bars = h("ul", "review-bars");
    bars.setAttribute("aria-label", w.ev);
    for (const c of d.candidates) {
      const isChosen = same(c.action, d.chosen);
      const isBest = same(c.action, d.best);
      const li = h("li", `review-bar${isChosen ? " chosen" : ""}${isBest ? " best" : ""}${isChosen && d.mistake ? " mistake" : ""}`);
      li.dataset.ev = String(c.ev);
      const track = h("span", "bar-track");
      const fill = h("span", `bar-fill${c.ev < 0 ? " neg" : ""}`);
      fill.style.left = `${((Math.min(c.ev, 0) - lo) / span) * 100}%`;
      fill.style.width = `${(Math.abs(c.ev) / span) * 100}%`;
      const zero = h("span", "bar-zero");
      zero.style.left = `${((0 - lo) / span) * 100}%`;
      track.append(fill, zero);
      li.append(actionEl(c.action), track, h("span", "bar-value", signed(c.ev)));
      bars.append(li);
    }
    root.append(bars);
  }

  function show(review) {
    state.review = review;
    box.dataset.status = "done";
    setStatus("");
    $("review-form").hidden = !seatSelect;
    renderSummary();
    markMoves();
    // The reviewed seat at the bottom of the felt.
    const bottom = $("bottom-seat");
    if (bottom && Number(bottom.value) !== state.seat) {
      bottom.value = String(state.seat);
      bottom.dispatchEvent(new Event("change"));
    }
    renderDecision(app.step);
  }

  function apply(body) {
    clearTimeout(state.timer);
    box.dataset.status = body.status;
    if (body.status === "done") { show(body.review); return; }
    state.review = null;
    $("review-summary").hidden = true;
    $("review-nav").hidden = true;
    $("review-decision").hidden = true;
    markMoves();
    if (body.status === "pending" || body.status === "running") {
      setStatus(w[body.status]);
      $("review-ask").disabled = true;
      state.timer = setTimeout(poll, POLL_MS);
      return;
    }
    $("review-ask").disabled = false;
    setStatus(body.status === "failed" ? w[body.error] || w.engine : "");
  }

  async function poll() {
    const url = `${box.dataset.state}?seat=${state.seat}`;
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      const body = await response.json();
      if (!response.ok) { setStatus(body.message || ""); return; }
      apply(body);
    } catch {
      state.timer = setTimeout(poll, POLL_MS * 2);  // a network blip: try again a little later
    }
  }

  $("review-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const form = e.target;
    $("review-ask").disabled = true;
    setStatus(w.pending);
    try {
      const response = await fetch(form.action, { method: "POST", body: new FormData(form), headers: { Accept: "application/json" } });
      const body = await response.json();
      if (!response.ok) { setStatus(body.message || ""); $("review-ask").disabled = false; return; }
      apply(body);
    } catch {
      $("review-ask").disabled = false;
      setStatus(w.engine);
    }
  });

  if (seatSelect) {
    seatSelect.addEventListener("change", () => {
      state.seat = Number(seatSelect.value);
      poll();
    });
  }

  function jump(direction) {
    const d = decisionAt(app.step);
    const here = d ? d.index : app.step - 0.5;
    const list = mistakes();
    const target = direction > 0 ? list.find((m) => m.index > here) : [...list].reverse().find((m) => m.index < here);
    if (target) { app.pause(); app.go(target.index); }
  }
  $("review-prev-mistake").addEventListener("click", () => jump(-1));
  $("review-next-mistake").addEventListener("click", () => jump(1));

  $("replay-app").addEventListener("replay:step", (e) => renderDecision(e.detail.k));
  if (state.seat !== null) poll();  // a review asked for earlier is shown at once
}
