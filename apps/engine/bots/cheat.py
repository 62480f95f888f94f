"""Seats that play with cards they should not see: the fair-play analysis's informed sampler and the
cheating bots its calibration plays against (analysis/fairplay.py, ``python -m apps.engine fairplay``).

Never a practice or 托管 seat: ``bot_choose`` (choose.py) knows none of these.

- ``informed(hand, seat, see)``: the seat's view (``build_view``) and a ``search.Known`` sampler told,
  from the true ``hand``, the concealed cards of the seats in ``see`` (their hands and face-down 偎),
  and with ``see="all"`` the stock too: then every world it samples is the true one.
- ``cheat_choose(hand, seat, cheat, rng, …)``:
  ``omniscient``: the searching bot (level ``hard``) told the true world;
  ``omniscient-greedy``: the greedy bot that also never discards a card another seat could 碰, 吃 or
  胡 on: of the discards in the greedy order (fewest partners first) it takes the first that feeds
  nobody; when every discard feeds someone (often: in 2 players the next seat can 吃 most cards), the
  first that feeds the least (a 吃 rather than a 碰, a 碰 rather than a 胡);
  ``partner``: the searching bot told its partner's hand (``partner``: that seat).

The cheating searches count their budget in worlds (``CHEAT_BUDGET``), never a clock, so a
calibration run is a function of its seed.
"""

from __future__ import annotations

import random
from typing import Any

from ..actions import Action
from ..play.hand import Hand
from ..play.observer import build_view
from .greedy import greedy, partners
from .search import Budget, Known, search_choose

CHEATS = ("omniscient", "omniscient-greedy", "partner")
# The cheating searches: this many worlds a decision (the true world replayed with new play-out seeds
# for ``omniscient``; worlds sampled with the partner's hand known for ``partner``).
CHEAT_BUDGET = Budget(worlds=8, cpu_ms=None, wall_ms=None)


def informed(hand: Hand, seat: int, see: str | list[int]) -> tuple[dict[str, Any], Known]:
    """``seat``'s view and a sampler told the concealed cards of ``see`` (seats), or of everyone and
    the stock (``"all"``), read off the true ``hand``."""
    view = build_view(hand, seat)
    known = Known(hand.rs, view)
    seats = [s for s in range(hand.rs.players) if s != seat] if see == "all" else list(see)
    for s in seats:
        if s == seat:
            raise ValueError("a seat is not told its own cards")
        known.tell(s, list(hand.hands[s]), [hand.groups[s][i].cards[0] for i in known.hidden_wei[s]])
    if see == "all":
        known.tell_stock(hand.stock_cards())
    return view, known


# How much a discard feeds another seat: the best it may do with it.
_FEED = {"chi": 1, "peng": 2, "hu": 3}


def feeds(
    known: Known, legal: list[Action], discard: Action, rng: random.Random, to: list[int] | None = None,
) -> int:
    """What ``discard`` hands another seat (of ``to``; None: any) in the world ``known`` samples (the
    true one when it was told everything): 3 a 胡, 2 a 碰, 1 a 吃, 0 nothing."""
    world = known.world(known.sample(rng), legal)
    if world is None:
        return 0
    seats = [s for s in range(known.players) if s != known.seat] if to is None else to
    events = world.apply(known.seat, discard)
    fed = max((_FEED.get(e.type, 0) for e in events if e.seat in seats), default=0)
    claim = world.claim
    if world.phase == "claim" and claim is not None:
        fed = max([fed, *(_FEED.get(a.type, 0) for s, opts in claim.options.items() if s in seats for a in opts)])
    return fed


def cheat_choose(
    hand: Hand, seat: int, cheat: str, rng: random.Random, partner: int | None = None,
    budget: Budget = CHEAT_BUDGET,
) -> Action:
    """The cheating seat's action (see the module docstring)."""
    if cheat == "omniscient":
        view, known = informed(hand, seat, "all")
        return search_choose(hand.rs, view, rng, budget, known=known)
    if cheat == "partner":
        if partner is None:
            raise ValueError("partner: name the partner's seat")
        view, known = informed(hand, seat, [partner])
        return search_choose(hand.rs, view, rng, budget, known=known)
    if cheat != "omniscient-greedy":
        raise ValueError(f"unknown cheat {cheat!r}")
    legal = hand.decision_actions(seat)
    if not legal:
        raise ValueError(f"seat {seat} has nothing to decide")
    discards = [a for a in legal if a.type == "discard"]
    if len(discards) > 1:
        _, known = informed(hand, seat, "all")
        counts = hand.hands[seat]
        ranked = sorted(discards, key=lambda a: (partners(counts, a.card), a.card))
        fed = [feeds(known, legal, a, rng) for a in ranked]
        return ranked[fed.index(min(fed))]
    return greedy(hand, seat, legal, rng)


__all__ = ["CHEATS", "CHEAT_BUDGET", "cheat_choose", "feeds", "informed"]
