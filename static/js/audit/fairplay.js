// 信息优势 page (templates/replays/audit/fairplay.html): while the job waits or runs, poll its small
// JSON state and reload the page once it is done or failed.
const box = document.getElementById("fairplay");
const POLL_MS = 3000;
if (box && box.dataset.state) {
  const poll = async () => {
    try {
      const response = await fetch(box.dataset.state, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (response.ok) {
        const { status } = await response.json();
        if (status !== box.dataset.status && (status === "done" || status === "failed" || status === "running")) {
          window.location.reload();
          return;
        }
      }
    } catch (_err) {
      // offline for a moment: try again
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}
