// 邀请 (issue #47): a seated player at a waiting table with a free seat opens the list of the
// club's members online now and not at the table, and invites them one by one. The server
// (/tables/<id>/invite/, apps/tables/verbs/invite.py) decides everything: who is listed, who may
// be invited, how often; its answer (or refusal) is shown in the list as it comes.
import { h } from "../common/dom.js";

/** The 邀请 button of the waiting panel (panels.js renderWaiting). */
export function inviteButton(t, cfg) {
  const btn = h("button", "btn act-invite", t.invite);
  btn.type = "button";
  btn.addEventListener("click", () => openInvite(t, cfg));
  return btn;
}

async function call(url, options = {}) {
  const token = document.querySelector("[name=csrfmiddlewaretoken]").value;
  const res = await fetch(url, { ...options, headers: { "X-CSRFToken": token, Accept: "application/json",
                                                        "Content-Type": "application/json" } }).catch(() => null);
  const answer = res ? await res.json().catch(() => ({})) : {};
  return { ok: Boolean(res && res.ok && answer.ok), ...answer };
}

async function openInvite(t, cfg) {
  const dialog = h("dialog", "confirm-dialog invite-dialog");
  const status = h("p", "muted invite-status", t.inviteLoading);
  status.setAttribute("role", "status");
  const list = h("ul", "invite-list");
  const close = h("button", "btn invite-close", t.close);
  close.type = "button";
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  dialog.addEventListener("click", (ev) => { if (ev.target === dialog) dialog.close(); });  // the backdrop
  dialog.append(h("h3", "", t.inviteTitle), status, list, h("div", "actions", close));
  document.body.append(dialog);
  dialog.showModal();
  const answer = await call(cfg.urls.invite);
  if (!answer.ok) { status.textContent = answer.message || t.inviteFailed; return; }
  status.textContent = answer.members.length ? t.inviteHelp : t.inviteNobody;
  for (const member of answer.members) {
    const btn = h("button", "btn btn-small btn-primary invite-send", t.invite);
    btn.type = "button";
    btn.dataset.user = String(member.id);
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      const sent = await call(cfg.urls.invite, { method: "POST", body: JSON.stringify({ user: member.id }) });
      status.textContent = sent.message || t.inviteFailed;
      btn.textContent = sent.ok ? t.invited : t.invite;
      btn.disabled = sent.ok;
    });
    list.append(h("li", "invite-member", h("span", "invite-name", member.name), btn));
  }
}
