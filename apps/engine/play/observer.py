"""What one viewer may see of a hand (RULES.md §4.1 visibility; ARCHITECTURE.md "Observer").

``build_view(hand, seat)``: own hand, every seat's laid groups (偎 face down for others unless
``wei_shown == "one"``; a 臭偎 and a 提 show one card), discard rows, hand sizes, stock count, the
reveal card, the card in question, whose turn, the viewer's own options and legal actions, each
seat's visible 胡息, with ``escape_penalty`` the least the viewer would pay if he left now
(``escape``: ``{"at_least": n}`` at base 1, exactly when ``escape`` is legal for him, RULES.md
§8.6), with ``bottom_shown`` the shown last stock card (``bottom_card``), with
``remove_cards`` the number of set-aside cards (``set_aside``; their cards in the audit view only), ``seq`` (the number of the hand's events the viewer may see: the last one's in
his copy, ``Event.for_viewer``; the audit view counts every event), and the result at the end (when every hand is shown). ``None`` (a spectator)
sees no hidden card at all — only what every player sees; ``AUDIT`` sees everything.
``build_views(hand, viewers)`` gives the same views for several viewers at once (an update's copies).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..cards import KINDS, card_name, cards_of
from ..groups import Group
from ..scoring.huxi import group_huxi, group_huxi_by_key, table_key
from ..scoring.settlement import escape_penalty
from .events import AUDIT, viewer_seq

ESCAPE_WIRE = {"type": "escape"}

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
    return build_views(hand, [viewer])[0]


def build_views(hand: Hand, viewers: list[int | str | None]) -> list[dict[str, Any]]:
    """``[build_view(hand, v) for v in viewers]``, what every viewer sees alike computed once.

    An update goes to every seat and the spectators at once. The views share those parts (the
    discards, a seat's groups as others see them, ...): treat them as read-only.
    """
    seats = range(hand.players)
    # A seat's laid groups and their visible 胡息, as its owner (or anyone, at the end) sees them
    # and as the others do: built on first use, once.
    as_seen: dict[tuple[int, bool], tuple[list, int]] = {}

    def groups_of(s: int, owner_view: bool) -> tuple[list, int]:
        got = as_seen.get((s, owner_view))
        if got is None:
            shown, total = [], 0
            for g in hand.groups[s]:
                wire, visible = _group_for(hand, s, g, s if owner_view else None)
                shown.append(wire)
                if visible:
                    total += group_huxi(hand.rs, g)
            got = as_seen[(s, owner_view)] = (shown, total)
        return got

    claim = hand.claim
    in_claim = hand.phase == "claim" and claim is not None
    active_seats = list(hand.active_seats)
    reveal = None if hand.reveal is None else card_name(hand.reveal)
    rs = hand.rs
    bottom = hand.bottom_card
    stock = hand.stock_left()
    hand_sizes = {s: sum(hand.hands[s]) for s in seats}
    discards = {s: [card_name(c) for c in hand.discards[s]] for s in seats}
    dead = {s: hand.dead[s] for s in seats}
    out = []
    for viewer in viewers:
        everything = viewer == AUDIT or hand.finished
        groups: dict[int, list] = {}
        huxi: dict[int, int] = {}
        for s in seats:
            groups[s], huxi[s] = groups_of(s, everything or viewer == s)
        table = None
        if in_claim:
            visible = claim.source != "self" or everything or viewer == claim.seat
            table = {"card": card_name(claim.card) if visible else None, "source": claim.source, "seat": claim.seat}
        view: dict[str, Any] = {
            "viewer": viewer,
            "preset": hand.rs.preset,
            "players": hand.players,
            "active_seats": active_seats,
            "dealer": hand.dealer,
            "phase": hand.phase,
            "turn": hand.turn,
            "to_act": _public_to_act(hand, viewer),
            "reveal": reveal,
            "stock": stock,
            "hand_sizes": hand_sizes,
            "hands": {
                s: ([card_name(c) for c in cards_of(hand.hands[s])] if everything or s == viewer else None)
                for s in seats
            },
            "groups": groups,
            "discards": discards,
            "huxi": huxi,
            "table": table,
            "dead": dead,
            "seq": len(hand.events) if viewer == AUDIT else viewer_seq(len(hand.events), hand.passes, viewer),
            "finished": hand.finished,
            "result": hand.result,
        }
        if rs.bottom_shown:  # §3.8: the stock's last card is public while the stock holds it
            view["bottom_card"] = None if bottom is None else card_name(bottom)
        if rs.remove_cards:  # §9.6: how many were set aside, never which (audit only)
            view["set_aside"] = len(hand.set_aside)
        if isinstance(viewer, int):
            view["pending"] = hand.pending.get(viewer, [])
            view["legal_actions"] = [a.to_wire() for a in hand.legal_actions(viewer)]
            view["chou"] = sorted(card_name(c) for c in hand.chou(viewer))
            if ESCAPE_WIRE in view["legal_actions"]:  # §8.6: what he is told before he leaves
                view["escape"] = {"at_least": _escape_at_least(hand, viewer, groups, huxi)}
        elif viewer == AUDIT:
            view["pending"] = {s: opts for s, opts in hand.pending.items()}
            view["legal_actions"] = {s: [a.to_wire() for a in hand.legal_actions(s)] for s in hand.to_act()}
            view["stock_cards"] = [card_name(c) for c in hand.stock_cards()]
            if rs.remove_cards:
                view["set_aside_cards"] = [card_name(c) for c in hand.set_aside]
            view["chou"] = {s: sorted(card_name(c) for c in hand.chou(s)) for s in seats}
        else:  # a spectator has no options and learns nobody else's
            view["pending"] = []
            view["legal_actions"] = []
        out.append(view)
    return out


def _escape_at_least(hand: Hand, viewer: int, groups: dict[int, list], huxi: dict[int, int]) -> int:
    """The least ``viewer`` would pay at base 1 if he left now (逃跑, RULES.md §8.6), from what he
    sees: each other active seat's laid groups as he sees them (``huxi``: the visible ones scored),
    a face-down 偎 whose card he has not seen counting as the least a 偎 can be (a small one), the
    concealed cards 0. The exact amount counts them all and is told only at the hand's end."""
    least_wei = _least_wei(table_key(hand.rs))
    seen = 0
    for s in hand.active_seats:
        if s != viewer:
            hidden = sum(1 for g in groups[s] if all(c is None for c in g["cards"]))
            seen += huxi[s] + hidden * least_wei
    return escape_penalty(seen)


@lru_cache(maxsize=8)
def _least_wei(key: tuple[bool, bool]) -> int:
    """The least 胡息 a 偎 can score under the 胡息 table ``key`` (a small one)."""
    return min(group_huxi_by_key(key, "wei", (c, c, c)) for c in range(KINDS))


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
