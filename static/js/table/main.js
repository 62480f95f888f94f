// Boot the table page: config and strings come from JSON blobs rendered by the template.
import { renderCenter, renderMine, renderOpponents } from "./board.js";
import { renderActions, renderChiChooser, renderDissolve, renderOver, renderPiao, renderSettlement, renderWaiting } from "./panels.js";
import { TableSocket } from "./socket.js";

const cfg = JSON.parse(document.getElementById("table-config").textContent);
const t = JSON.parse(document.getElementById("table-strings").textContent);
const $ = (id) => document.getElementById(id);

let state = null;
const ui = { selected: null, chi: null, onCard };

const api = {
  act(action) {
    ui.selected = null;
    ui.chi = null;
    socket.act(action);
    render();
  },
  send: (message) => socket.send(message),
  chooseChi(options) { ui.chi = options; render(); },
  async post(url) {
    const token = document.querySelector("[name=csrfmiddlewaretoken]").value;
    const res = await fetch(url, { method: "POST", headers: { "X-CSRFToken": token, Accept: "application/json" } });
    if (!res.ok) showError((await res.json()).message);
  },
};

function onCard(name, key) {
  // First tap selects, a second tap on the same card discards.
  if (ui.selected === key) api.act({ type: "discard", card: name });
  else { ui.selected = key; render(); }
}

function showError(message) {
  const box = $("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 3000);
}

// Bot seats are named here, in the viewer's language (the server sends one copy per seat, not per
// language).
function nameBots(next) {
  next.seats.forEach((s) => { if (!s.user_id && s.bot) s.name = t.botName.replace("%(n)s", s.index + 1); });
  (next.summary || []).forEach((r) => { if (!r.name && next.seats[r.index]) r.name = next.seats[r.index].name; });
}

function render() {
  if (!state) return;
  document.body.dataset.stage = state.stage;
  renderOpponents($("opponents"), state, t);
  renderCenter($("center"), state, t);
  renderMine($("mine"), state, t, ui);
  renderActions($("actions"), state, t, api);
  renderChiChooser($("chi-chooser"), ui.chi, t, api);
  renderWaiting($("waiting"), state, t, api, cfg);
  renderPiao($("piao"), state, t, api);
  renderSettlement($("settlement"), state, t, api, cfg);
  renderOver($("over"), state, t, cfg);
  renderDissolve($("dissolve"), state, t, api);
  const canPropose = state.status === "playing" && state.me !== null && state.me !== undefined && !state.dissolve;
  $("dissolve-btn").hidden = !canPropose;
}

const socket = new TableSocket(cfg.wsPath, {
  onState(next) {
    nameBots(next);
    const legalChanged = !state || JSON.stringify(state.hand && state.hand.legal) !== JSON.stringify(next.hand && next.hand.legal);
    if (legalChanged) { ui.selected = null; ui.chi = null; }
    state = next;
    render();
  },
  onError(msg) { showError(t[`error_${msg.code}`] || t.error_generic); },
  onStatus(status) {
    const el = $("conn");
    el.dataset.status = status;
    el.textContent = status === "open" ? t.connected : t.reconnecting;
    el.hidden = status === "open";
  },
});

$("dissolve-btn").addEventListener("click", () => socket.send({ type: "dissolve", vote: true }));
// Countdowns tick locally from the deadline timestamps the server sends.
setInterval(() => {
  document.querySelectorAll("[data-deadline]").forEach((el) => {
    const left = Math.max(0, Math.ceil((Number(el.dataset.deadline) - Date.now()) / 1000));
    el.textContent = el.textContent.startsWith(" ") ? ` ${left}s` : `${left}s`;
  });
}, 1000);
window.tableApp = { get state() { return state; }, socket };
