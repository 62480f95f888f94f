// 同一网络 / 距离很近 (issue #47): who at the table is on one network or close together, shown to
// the seated players only (the server sends ``state.nearby`` to them alone), and the 共享位置
// button of a waiting table. The position goes to the server once, in one request; only the
// distance class between players is kept there.
import { $, h } from "../common/dom.js";
import { fmt } from "../common/text.js";

let last = null;  // the server sends ``nearby`` only when the seating changed: keep the last one
let note = "";    // the answer to this page's own 共享位置 (shared, or why not)

const CLASS_STRING = { m100: "nearbyM100", km1: "nearbyKm1" };

/** The warning lines of a ``nearby`` part, in the viewer's language. */
export function nearbyLines(nearby, t) {
  if (!nearby) return [];
  const pair = (p) => ({ a: p.names[0], b: p.names[1] });
  return [
    ...(nearby.network || []).map((p) => fmt(t.nearbyNetwork, pair(p))),
    ...(nearby.distance || []).filter((p) => CLASS_STRING[p.closeness]).map((p) => fmt(t[CLASS_STRING[p.closeness]], pair(p))),
  ];
}

/** Draw the warning (waiting table: the panel with the 共享位置 button; always: the info panel). */
export function renderNearby(state, t, cfg) {
  const seated = state.me !== null && state.me !== undefined;
  if (!seated) last = null;
  else if (state.nearby) last = state.nearby;
  const lines = nearbyLines(last, t);
  const root = $("nearby");
  const info = $("nearby-info");
  if (info) {  // (inside the 规则 details of the top strip)
    info.replaceChildren(h("strong", "", t.nearbyTitle), h("ul", "", ...lines.map((line) => h("li", "nearby-line", line))));
    info.hidden = !lines.length;
  }
  root.replaceChildren();
  const waiting = seated && state.stage === "seating";
  root.hidden = !waiting;
  if (!waiting) return;
  if (lines.length) {
    root.append(h("strong", "nearby-title", t.nearbyTitle));
    const list = h("ul", "nearby-lines");
    lines.forEach((line) => list.append(h("li", "nearby-line", line)));
    root.append(list);
  }
  const btn = h("button", "btn btn-small nearby-share", t.shareLocation);
  btn.type = "button";
  btn.addEventListener("click", () => share(cfg, t, btn));
  root.append(h("div", "nearby-bar", btn, h("span", "muted nearby-note", note || t.locationHelp)));
}

function share(cfg, t, btn) {
  if (!navigator.geolocation) { setNote(t.locationDenied); return; }
  btn.disabled = true;
  navigator.geolocation.getCurrentPosition(async (pos) => {
    const body = new FormData();
    body.append("lat", String(pos.coords.latitude));
    body.append("lon", String(pos.coords.longitude));
    const token = document.querySelector("[name=csrfmiddlewaretoken]").value;
    const res = await fetch(cfg.urls.nearby, { method: "POST", body, headers: { "X-CSRFToken": token, Accept: "application/json" } })
      .catch(() => null);
    const answer = res ? await res.json().catch(() => ({})) : {};
    setNote(res && res.ok ? t.locationShared : answer.message || t.error_generic);
  }, () => setNote(t.locationDenied), { enableHighAccuracy: false, timeout: 15000 });

  function setNote(text) {
    note = text;
    btn.disabled = false;
    const el = document.querySelector("#nearby .nearby-note");
    if (el) el.textContent = text;
  }
}
