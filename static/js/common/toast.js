// Toasts. A page's one-time notice ([data-toast], e.g. a club's new 公告): closed by its button, or
// by itself after a while; the server already counted it as shown, this only tidies the screen.
// ``showToast`` puts up one made here (a live notice: static/js/common/live.js), built the same way.
const SHOW_MS = 12000;

function arm(toast, ms = SHOW_MS) {
  const close = () => toast.remove();
  toast.querySelector("[data-toast-close]")?.addEventListener("click", close);
  if (ms) setTimeout(close, ms);
}

for (const toast of document.querySelectorAll("[data-toast]")) arm(toast);

/**
 * Show ``text`` with an optional action (``{label, url, post}``: a link, or for ``post`` a form
 * POSTed with the page's CSRF token) and a close button labelled ``closeLabel``; toasts stack at
 * the top of the screen. Returns the toast element.
 */
export function showToast({ text, action = null, closeLabel = "×", ms = SHOW_MS }) {
  let stack = document.getElementById("toast-stack");
  if (!stack) {
    stack = document.createElement("div");
    stack.id = "toast-stack";
    stack.className = "toast-stack";
    document.body.append(stack);
  }
  const toast = document.createElement("div");
  toast.className = "notice-toast";
  toast.setAttribute("role", "status");
  toast.dataset.toast = "";
  const words = document.createElement("p");
  words.textContent = text;
  const buttons = document.createElement("div");
  buttons.className = "notice-toast-actions";
  if (action && action.url) buttons.append(actionElement(action));
  const close = document.createElement("button");
  close.type = "button";
  close.className = "btn btn-small";
  close.dataset.toastClose = "";
  close.textContent = closeLabel;
  buttons.append(close);
  toast.append(words, buttons);
  stack.prepend(toast);
  arm(toast, ms);
  return toast;
}

function actionElement({ label, url, post }) {
  if (!post) {
    const link = document.createElement("a");
    link.className = "btn btn-small btn-primary";
    link.href = url;
    link.textContent = label;
    return link;
  }
  const form = document.createElement("form");
  form.method = "post";
  form.action = url;
  form.className = "inline";
  const token = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (token) form.append(token.cloneNode());
  const button = document.createElement("button");
  button.type = "submit";
  button.className = "btn btn-small btn-primary";
  button.textContent = label;
  form.append(button);
  return form;
}
