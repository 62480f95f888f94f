// The page's own socket (/ws/me/, apps/accounts/live.py): one per signed-in page. It keeps the
// bell's unread count (templates/base.html) and shows each incoming notice as a toast
// (toast.js), reconnecting with backoff when it drops. Its words come from the page
// (#live-config, json_script): the notices themselves arrive already worded by the server.
// Other modules may listen for ``live:message`` on document (every message, its data in detail;
// a ``hello`` with ``again: true`` follows a reconnect, when nudges may have been missed).
// A part of a page marked ``data-live-refresh="<kind> …"`` (with an id) is fetched again when a
// notice of one of those kinds comes, so the page tells the truth without a reload (my disputes:
// the answer appears where the dispute is; the club tab bar's counts); a part with a field the
// reader is filling in is left as it is; a page that now leads elsewhere (a join request
// approved: the club) is followed there.
import { showToast } from "./toast.js";

const PING_MS = 25000;              // the server counts him online while pings come (notices.STALE_SECONDS)
const BACKOFF_MS = [1000, 2000, 4000, 8000, 15000, 30000];
// Closes that end retrying: signed out, refused, and 4429 (too many of his pages hold one already:
// a retry would be refused the same way; a reload tries again).
const REFUSED = new Set([4401, 4403, 4429]);

const config = JSON.parse(document.getElementById("live-config")?.textContent || "null");
const bell = document.querySelector("[data-live-bell]");
const badge = bell?.querySelector(".bell-count");

function setUnread(n) {
  if (!badge) return;
  badge.textContent = n > 99 ? "99+" : String(n);
  badge.hidden = n <= 0;
  bell.dataset.unread = String(n);
}

let unread = 0;
let greeted = false;
let retry = 0;
let pinger = null;

// What else the page follows ([data-live-follow="club"][data-live-id]: the club page's open tables).
function path() {
  let out = config.path;
  for (const el of document.querySelectorAll("[data-live-follow][data-live-id]")) {
    out += `&${encodeURIComponent(el.dataset.liveFollow)}=${encodeURIComponent(el.dataset.liveId)}`;
  }
  return out;
}

/** A field the reader changed and has not sent (a half-written answer): its part is left alone. */
function edited(part) {
  return [...part.querySelectorAll("input, textarea, select")].some((f) => {
    if (f.type === "hidden" || f.type === "submit") return false;
    if (f.tagName === "SELECT") return [...f.options].some((o) => o.selected !== o.defaultSelected);
    if (f.type === "checkbox" || f.type === "radio") return f.checked !== f.defaultChecked;
    return f.value !== f.defaultValue;
  });
}

async function refreshParts(kind) {
  const parts = [...document.querySelectorAll("[data-live-refresh][id]")]
    .filter((el) => el.dataset.liveRefresh.split(/\s+/).includes(kind));
  if (!parts.length) return;
  try {
    const response = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    const found = parts.map((el) => [el, fresh.getElementById(el.id)]).filter(([, again]) => again);
    // The page moved on (an approved request's join page now leads into the club): follow it.
    if (!found.length && response.redirected) { location.assign(response.url); return; }
    for (const [el, again] of found) if (!edited(el)) el.replaceChildren(...again.childNodes);
  } catch { /* the network is away: the toast has told him; a later notice or a reload shows it */ }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}${path()}`);
  ws.addEventListener("open", () => {
    retry = 0;
    pinger = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('{"type":"ping"}'), PING_MS);
  });
  ws.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "hello") {
      message.again = greeted;
      greeted = true;
      unread = message.unread;
      setUnread(unread);
    } else if (message.type === "notice") {
      const n = message.notice;
      setUnread(++unread);
      showToast({ text: n.text, action: n.url ? { label: n.label, url: n.url, post: n.post } : null,
                  closeLabel: config.strings.close });
      refreshParts(n.kind);
    }
    document.dispatchEvent(new CustomEvent("live:message", { detail: message }));
  });
  ws.addEventListener("close", (event) => {
    clearInterval(pinger);
    if (REFUSED.has(event.code)) return;
    const wait = BACKOFF_MS[Math.min(retry++, BACKOFF_MS.length - 1)];
    setTimeout(connect, wait * (0.8 + Math.random() * 0.4));
  });
}

if (config) connect();
