"""What one viewer may see of a hand (RULES.md §4.1 visibility; ARCHITECTURE.md "Observer").

``build_view(hand, seat)``: own hand, every seat's laid groups (偎 face down for others unless
``wei_shown == "one"``; a 臭偎 and a 提 show one card), discard rows, hand sizes, stock count, the
reveal card, the card in question, whose turn, the viewer's own options and legal actions, each
seat's visible 胡息, and the result at the end (when every hand is shown). ``None`` (a spectator)
sees no hidden card at all — only what every player sees; ``AUDIT`` sees everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import card_name, cards_of
from .events import AUDIT
from .groups import Group
from .huxi import group_huxi

if TYPE_CHECKING:
    from .hand import Hand


def _group_for(hand: Hand, owner: int, g: Group, viewer: int | str | None) -> tuple[dict[str, Any], bool]:
    """A laid group as ``viewer`` sees it, and whether its card is visible to him."""
    names = [card_name(c) for c in g.cards]
    sees_all = viewer == AUDIT or viewer == owner or hand.finished
    if sees_all or g.kind in ("pao", "peng", "chi"):
        return {"kind": g.kind, "cards": names}, True
    if g.kind == "wei" and hand.rs.wei_shown == "none":
        return {"kind": g.kind, "cards": [None] * len(names)}, False
    # 提, 臭偎, and 偎 with wei_shown "one": one card up, the rest down.
    return {"kind": g.kind, "cards": [names[0]] + [None] * (len(names) - 1)}, True


def build_view(hand: Hand, viewer: int | str | None) -> dict[str, Any]:
    """The JSON-able view of ``hand`` for ``viewer`` (a seat, ``None`` spectator, ``AUDIT``)."""
    seats = range(hand.players)
    everything = viewer == AUDIT or hand.finished
    groups: dict[int, list] = {}
    huxi: dict[int, int] = {}
    for s in seats:
        shown = []
        total = 0
        for g in hand.groups[s]:
            wire, visible = _group_for(hand, s, g, viewer)
            shown.append(wire)
            if visible:
                total += group_huxi(hand.rs, g)
        groups[s] = shown
        huxi[s] = total
    claim = hand.claim
    table = None
    if hand.phase == "claim" and claim is not None:
        visible = claim.source != "self" or everything or viewer == claim.seat
        table = {"card": card_name(claim.card) if visible else None, "source": claim.source, "seat": claim.seat}
    view: dict[str, Any] = {
        "viewer": viewer,
        "preset": hand.rs.preset,
        "players": hand.players,
        "active_seats": list(hand.active_seats),
        "dealer": hand.dealer,
        "phase": hand.phase,
        "turn": hand.turn,
        "to_act": _public_to_act(hand, viewer),
        "reveal": card_name(hand.reveal),
        "stock": hand.stock_left(),
        "hand_sizes": {s: sum(hand.hands[s]) for s in seats},
        "hands": {
            s: ([card_name(c) for c in cards_of(hand.hands[s])] if everything or s == viewer else None)
            for s in seats
        },
        "groups": groups,
        "discards": {s: [card_name(c) for c in hand.discards[s]] for s in seats},
        "huxi": huxi,
        "table": table,
        "dead": {s: hand.dead[s] for s in seats},
        "seq": len(hand.events),
        "finished": hand.finished,
        "result": hand.result,
    }
    if isinstance(viewer, int):
        view["pending"] = hand.pending.get(viewer, [])
        view["legal_actions"] = [a.to_wire() for a in hand.legal_actions(viewer)]
        view["chou"] = sorted(card_name(c) for c in hand.chou(viewer))
    elif viewer == AUDIT:
        view["pending"] = {s: opts for s, opts in hand.pending.items()}
        view["legal_actions"] = {s: [a.to_wire() for a in hand.legal_actions(s)] for s in hand.to_act()}
        view["stock_cards"] = [card_name(c) for c in hand.stock[hand._stock_pos :]]
        view["chou"] = {s: sorted(card_name(c) for c in hand.chou(s)) for s in seats}
    else:  # a spectator has no options and learns nobody else's
        view["pending"] = []
        view["legal_actions"] = []
    return view


def _public_to_act(hand: Hand, viewer: int | str | None) -> list[int]:
    """Who must act, as ``viewer`` may know it.

    While claims are open, who else holds an option (a pair, a sentence, a winning hand) is hidden
    information: a player sees only himself among the claimants; the seat whose turn it is (a
    discard) is public.
    """
    seats = hand.to_act()
    if viewer == AUDIT or hand.phase != "claim":
        return seats
    return [s for s in seats if s == viewer]
