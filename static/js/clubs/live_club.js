// The club page keeps itself true (issue #46/#47): when its club is nudged over the page's own
// socket (live.js follows it through #open-tables' data-live-*), or the socket came back after a
// drop, it fetches the open tables' list and the managers' pending count once (a short, jittered
// wait gathers a burst of nudges into one fetch and spreads the members' fetches) and puts them in.
const box = document.querySelector("#open-tables[data-live-url]");
const WAIT_MS = 300;
const JITTER_MS = 700;
let timer = null;

async function refresh() {
  timer = null;
  const res = await fetch(box.dataset.liveUrl, { headers: { Accept: "application/json" } }).catch(() => null);
  if (!res || !res.ok) return;
  const data = await res.json().catch(() => null);
  if (!data) return;
  box.innerHTML = data.tables;  // our own server's template fragment (no script in it)
  const count = document.querySelector("[data-pending-link] .count");
  if (count && data.pending !== null) {
    count.textContent = String(data.pending);
    count.hidden = data.pending <= 0;
  }
}

if (box) {
  document.addEventListener("live:message", ({ detail }) => {
    const nudged = detail.type === "nudge" && detail.what === box.dataset.liveFollow && String(detail.id) === box.dataset.liveId;
    if ((nudged || (detail.type === "hello" && detail.again)) && !timer) {
      timer = setTimeout(refresh, WAIT_MS + Math.random() * JITTER_MS);
    }
  });
}
