// A page's one-time notice ([data-toast], e.g. a club's new 公告): closed by its button, or by
// itself after a while. The server already counted it as shown; this only tidies the screen.
const SHOW_MS = 12000;

for (const toast of document.querySelectorAll("[data-toast]")) {
  const close = () => toast.remove();
  toast.querySelector("[data-toast-close]")?.addEventListener("click", close);
  setTimeout(close, SHOW_MS);
}
