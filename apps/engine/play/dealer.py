"""Dealer rotation (RULES.md §2): the winner deals; on a drawn hand (荒庄) the dealer keeps the deal,
except after 3 consecutive draws (``stay3``), or on every draw (``next``, chenzhou)."""

from __future__ import annotations

from ..rules import RuleSet

STAY3_LIMIT = 3


def next_dealer(rs: RuleSet, dealer: int, winner: int | None, consecutive_draws: int) -> tuple[int, int]:
    """``(next dealer, consecutive draws so far)`` after a hand.

    >>> from apps.engine.rules import PRESETS
    >>> next_dealer(PRESETS["full"], 0, None, 2)
    (1, 0)
    >>> next_dealer(PRESETS["full"], 0, 2, 1)
    (2, 0)
    """
    if winner is not None:
        return winner, 0
    draws = consecutive_draws + 1
    if rs.dealer_after_draw == "next":
        return (dealer + 1) % rs.players, draws
    if draws >= STAY3_LIMIT:
        return (dealer + 1) % rs.players, 0
    return dealer, draws
