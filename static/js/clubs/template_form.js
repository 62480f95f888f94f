// Rule template form: show only the chosen preset's description and options, and offer only the
// player counts that preset supports (the server refuses others too). Without this script every
// preset's options show (each under its preset's name) and the server reads the chosen one's.
import { $, jsonScript } from "../common/dom.js";

const form = $("rule-template-form");
const preset = form && form.querySelector("select[name=preset]");
const players = form && form.querySelector("select[name=players]");
const presetPlayers = $("preset-players") ? jsonScript("preset-players") : {};

function sync() {
  for (const el of form.querySelectorAll("[data-preset-only]")) {
    el.hidden = el.dataset.presetOnly !== preset.value;
  }
  syncPlayers();
}

/** Only the preset's player counts are offered; a count it does not support moves to one it does
 * (3 when it can). */
function syncPlayers() {
  const allowed = (presetPlayers[preset.value] || []).map(String);
  if (!players || !allowed.length) return;
  for (const opt of players.options) {
    const ok = allowed.includes(opt.value);
    opt.hidden = !ok;
    opt.disabled = !ok;
  }
  if (!allowed.includes(players.value)) players.value = allowed.includes("3") ? "3" : allowed[0];
}

if (preset) {
  preset.addEventListener("change", sync);
  sync();
}
