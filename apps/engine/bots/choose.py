"""The engine's bots (practice seats and 托管 auto-play): they only ever pick from legal_actions.

- ``random``: uniform over ``legal_actions(seat)``.
- ``greedy``: greedy.py's policy: takes 胡 when offered; takes a 碰/吃 when the groups it lays score
  胡息; discards the card with the fewest partners (pairs, neighbours for sentences, the other case
  for 绞, 二七十).

The levels players choose (``LEVELS``): ``easy`` is greedy that makes a random legal choice one time
in ``EASY_RANDOM`` (it still takes every 胡); ``normal`` is greedy; ``hard`` is the searching bot of
search.py, which decides from ``build_view(hand, seat)`` alone within a time ``budget``.
"""

from __future__ import annotations

import random

from ..actions import HU, Action
from ..play.observer import build_view
from .greedy import greedy

LEVELS = ("easy", "normal", "hard")
KINDS = ("random", "greedy", *LEVELS)
EASY_RANDOM = 0.3  # the share of easy's decisions (胡 aside) made at random


def bot_choose(hand, seat: int, kind: str = "greedy", rng: random.Random | None = None, budget=None) -> Action:
    """One legal action for ``seat``; ValueError when the seat has nothing to decide.

    ``budget``: a ``search.Budget`` for ``hard`` (default ``search.DEFAULT_BUDGET``)."""
    rng = rng or random.Random()
    if kind == "hard":
        from .search import DEFAULT_BUDGET, search_choose

        return search_choose(hand.rs, build_view(hand, seat), rng, budget or DEFAULT_BUDGET)
    legal = hand.decision_actions(seat)  # never ``escape`` (RULES.md §8.6: a player's choice)
    if not legal:
        raise ValueError(f"seat {seat} has nothing to decide")
    if kind == "random":
        return legal[rng.randrange(len(legal))]
    if kind == "easy":
        if HU not in legal and rng.random() < EASY_RANDOM:
            return legal[rng.randrange(len(legal))]
    elif kind not in ("greedy", "normal"):
        raise ValueError(f"unknown bot kind {kind!r}")
    return greedy(hand, seat, legal, rng)
