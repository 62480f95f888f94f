"""A hand as a list of frames for a replay viewer: one engine replay, one frame per step.

``frames(record)`` takes the engine hand record of ENGINE_CLI.md "replay" (preset, options, players,
dealer, seed or deck, actions) and returns::

    [{"index": 0, "actor": None, "action": None, "events": [the deal ... up to the first decision],
      "view": {...}},
     {"index": k, "actor": seat, "action": {wire action}, "events": [what action k produced],
      "view": {...}},                                                        # k = 1 … len(actions)
     ...]

``events`` are audit wire events (every card shown). ``view`` is ``build_view(hand, AUDIT)`` after
the step, made compact (``compact_view``): every hand, groups, discard rows, per-seat 胡息 of the
laid groups, the stock count, the card in question, ``pending`` (who may still decide what on it),
``claim`` (the whole claim window: every seat's options and what each has decided so far: a pass
is seen here before the engine emits its ``pass`` event when the claim resolves) and ``result`` at
the end. Seat keys are ints (JSON turns them into strings).

Only for hands that have ended: an AUDIT frame shows every hidden card. The callers (the replay
pages) check that the hand is over before they call this.
"""

from __future__ import annotations

from typing import Any

from ..cards import card_name
from ..play.events import AUDIT
from ..play.observer import build_view
from .replay import hand_of, parse_actions

# Keys of build_view(hand, AUDIT) a replay never needs: ``stock_cards`` (the undrawn cards in order:
# up to 60 names per frame, and the deck is derivable from the seed anyway), ``legal_actions``
# (every claimant's full list, 比 combinations included: ``pending`` and ``claim`` say who could do
# what), ``viewer`` (always "audit"); ``preset``, ``players`` and ``active_seats`` never change
# during a hand: they are in frame 0 only.
DROPPED = ("stock_cards", "legal_actions", "viewer")
CONSTANT = ("preset", "players", "active_seats")


def compact_view(hand: Any, *, first: bool = False) -> dict[str, Any]:
    """``build_view(hand, AUDIT)`` without the keys of ``DROPPED`` (and of ``CONSTANT`` unless
    ``first``), plus ``claim``: the open claim window, or None."""
    view = build_view(hand, AUDIT)
    for key in DROPPED:
        view.pop(key, None)
    if not first:
        for key in CONSTANT:
            view.pop(key, None)
    view["claim"] = claim_window(hand)
    return view


def claim_window(hand: Any) -> dict[str, Any] | None:
    """The card in question and every seat's options on it (option types), with the decisions so far."""
    claim = hand.claim
    if hand.phase != "claim" or claim is None:
        return None
    return {
        "card": card_name(claim.card),
        "source": claim.source,
        "seat": claim.seat,
        "options": {s: sorted({a.type for a in opts}) for s, opts in sorted(claim.options.items())},
        "decided": {s: a.type for s, a in sorted(claim.decided.items())},
    }


def frames(record: dict) -> list[dict[str, Any]]:
    """Frame 0 (the deal) and one frame per recorded action; ValueError / IllegalAction for a bad record."""
    hand = hand_of(record)
    actions = parse_actions(record)
    out = [{
        "index": 0, "actor": None, "action": None,
        "events": [ev.to_wire() for ev in hand.events],
        "view": compact_view(hand, first=True),
    }]
    for k, (seat, action) in enumerate(actions, start=1):
        new = hand.apply(seat, action)
        out.append({
            "index": k, "actor": seat, "action": action.to_wire(),
            "events": [ev.to_wire() for ev in new],
            "view": compact_view(hand),
        })
    return out
