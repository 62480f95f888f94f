// Rule template form: show only the chosen preset's description and options, and offer only the
// player counts that preset supports (the server refuses others too). Without this script every
// preset's options show (each under its preset's name) and the server reads the chosen one's.
// Options for some player counts only (data-players: 底牌明示 with 4, one sitting out; 抽牌 with 2)
// show at those counts; 底牌明示 turns on when the count becomes 4 (its default there, RULES.md §3.8).
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
  syncCounts(false);
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

/** The options of some player counts: shown only at those counts (and 底牌明示 only while one seat
 * sits out); hidden ones go back to off / none so that they are never sent on. ``changed``: the
 * player count or the 4-player mode was just changed by the user (底牌明示 takes its default). */
function syncCounts(changed) {
  if (!players) return;
  for (const input of form.querySelectorAll("[data-players]")) {
    const name = input.name || "";
    const prefix = name.slice(0, name.lastIndexOf("_bottom_shown") + 1);
    const mode = name.endsWith("_bottom_shown") ? form.querySelector(`select[name="${prefix}four_player_mode"]`) : null;
    const ok = input.dataset.players.split(",").includes(players.value) && (!mode || mode.value === "sit_out");
    const field = input.closest(".field");
    if (field) field.hidden = !ok;
    if (!ok) {
      if (input.type === "checkbox") input.checked = false;
      else input.value = "0";
    } else if (changed && input.type === "checkbox" && name.startsWith("opt_luzhou_")) {
      input.checked = true;  // luzhou with 4 players, one sitting out: on by default
    }
  }
}

if (preset) {
  preset.addEventListener("change", sync);
  if (players) players.addEventListener("change", () => syncCounts(true));
  for (const mode of form.querySelectorAll("select[name$=_four_player_mode]")) {
    mode.addEventListener("change", () => syncCounts(true));
  }
  sync();
}
