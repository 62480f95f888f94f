// Rule template form: show only the chosen preset's description and options. Without this script
// every preset's options show (each under its preset's name) and the server reads the chosen one's.
import { $ } from "../common/dom.js";

const form = $("rule-template-form");
const preset = form && form.querySelector("select[name=preset]");

function sync() {
  for (const el of form.querySelectorAll("[data-preset-only]")) {
    el.style.display = el.dataset.presetOnly === preset.value ? "" : "none";
  }
}

if (preset) {
  preset.addEventListener("change", sync);
  sync();
}
