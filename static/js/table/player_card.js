// The player card (issue #47): tapping a seat's avatar or name shows that player's name, his
// record in the table's club this month and, to a seated player, whether the two of them share a
// network or are close together, from /ledgers/tables/<id>/seats/<seat>/card/ (members of the
// club only; the words come translated from the server). Kept apart from board.js and
// panels.js: it only listens to taps on what they draw.
import { h } from "../common/dom.js";

const app = document.getElementById("table-app");
const tableId = app && app.dataset.table;

function seatOf(target) {
  // The waiting room's list (panels.js) names the seats in their order: its nth line is seat n.
  const line = target.closest("#waiting .seat-list > li");
  if (line) return String([...line.parentElement.children].indexOf(line));
  const head = target.closest(".avatar, .seat-name");
  if (!head) return null;
  const box = head.closest("[data-seat]");
  if (box) return box.dataset.seat;
  return head.closest("#mine") ? "me" : null;  // my own seat's head carries no index
}

function show(card) {
  document.querySelector("dialog.player-card")?.remove();
  const dialog = h("dialog", "player-card");
  dialog.append(h("h3", "player-card-name", card.name));
  if (card.record) {
    dialog.append(h("p", "player-card-title muted small", card.title));
    const list = h("dl", "player-card-record");
    for (const [label, value] of card.lines) list.append(h("dt", "", label), h("dd", "", value));
    dialog.append(list);
  }
  // 同一网络 / 距离 between the viewer and this player, in the table warning's words (a seated
  // viewer's card of another seated player only; the server leaves it empty otherwise): one line.
  if (card.nearby && card.nearby.length) dialog.append(h("p", "player-card-nearby", card.nearby.join(" · ")));
  const close = h("button", "btn player-card-close", card.close);
  close.type = "button";
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (ev) => { if (ev.target === dialog) dialog.close(); });  // the backdrop
  dialog.addEventListener("close", () => dialog.remove());
  dialog.append(close);
  document.body.append(dialog);
  dialog.showModal();
}

if (tableId) {
  app.addEventListener("click", async (ev) => {
    const seat = seatOf(ev.target);
    if (seat === null) return;
    const response = await fetch(`/ledgers/tables/${tableId}/seats/${seat}/card/`, {
      headers: { Accept: "application/json" }, credentials: "same-origin",
    });
    if (response.ok) show(await response.json());
  });
}
