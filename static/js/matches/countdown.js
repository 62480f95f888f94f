// Countdowns: <time data-countdown="ISO-8601" data-done="text shown at zero">…</time>.
// The remaining time is shown as "2天 03:04:05" / "03:04:05" / "04:05"; the day word comes from the
// element's data-day attribute (translated by the template). Ticks once a second.

function pad(n) {
  return String(n).padStart(2, "0");
}

export function formatRemaining(ms, dayWord = "d") {
  let s = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(s / 86400);
  s -= days * 86400;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const clock = h || days ? `${pad(h)}:${pad(m)}:${pad(sec)}` : `${pad(m)}:${pad(sec)}`;
  return days ? `${days}${dayWord} ${clock}` : clock;
}

export function tick(root = document) {
  const now = Date.now();
  root.querySelectorAll("[data-countdown]").forEach((el) => {
    const at = Date.parse(el.dataset.countdown);
    if (Number.isNaN(at)) return;
    const left = at - now;
    if (left <= 0) {
      el.textContent = el.dataset.done || formatRemaining(0);
      el.classList.add("countdown-done");
    } else {
      el.textContent = formatRemaining(left, el.dataset.day || "d");
      el.classList.remove("countdown-done");
    }
  });
}

tick();
setInterval(tick, 1000);
