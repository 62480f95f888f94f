// The page's own confirmation dialog (a modal <dialog>), for actions that cannot be taken back.
// Unlike window.confirm it speaks the page's language on its buttons, follows the page's style and
// can be driven by browser tests. Forms use data-confirm (confirm.js); scripts call askConfirm.
import { h } from "./dom.js";

/**
 * Show ``message`` with a confirm and a cancel button; resolves true only when confirmed (Escape,
 * the cancel button and a tap outside the box resolve false).
 * @param {{title?: string, message: string, ok: string, cancel: string, danger?: boolean}} opts
 */
export function askConfirm({ title = "", message, ok, cancel, danger = false }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", "confirm-dialog");
    const okBtn = h("button", `btn ${danger ? "btn-danger-solid" : "btn-primary"} confirm-ok`, ok);
    const cancelBtn = h("button", "btn confirm-cancel", cancel);
    okBtn.type = "button";
    cancelBtn.type = "button";
    const bar = h("div", "actions");
    bar.append(cancelBtn, okBtn);
    if (title) dialog.append(h("h3", "", title));
    dialog.append(h("p", "", message), bar);
    let answered = false;
    const finish = (yes) => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(yes);
    };
    okBtn.addEventListener("click", () => finish(true));
    cancelBtn.addEventListener("click", () => finish(false));
    dialog.addEventListener("cancel", (ev) => { ev.preventDefault(); finish(false); });
    dialog.addEventListener("click", (ev) => { if (ev.target === dialog) finish(false); });  // the backdrop
    document.body.append(dialog);
    dialog.showModal();
    cancelBtn.focus();
  });
}
