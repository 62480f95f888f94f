"""Settlement between players (RULES.md §9.3, §9.4): who pays whom, always zero-sum.

>>> from apps.engine.rules import PRESETS
>>> settle_amounts(PRESETS["full"], 0, 10, [0, 1, 2])["total"]
{0: 20, 1: -10, 2: -10}
"""

from __future__ import annotations

from typing import Any

from .rules import RuleSet


def _piao_part(rs: RuleSet, piao: dict[int, int], winner: int, loser: int) -> int:
    """What a loser pays for 飘 (§9.3): both sides' piao, or only the loser's / winner's."""
    if not rs.piao:
        return 0
    own, theirs = piao.get(loser, 0), piao.get(winner, 0)
    return {"both": own + theirs, "loser": own, "winner": theirs}[rs.piao_mode]


def settle_amounts(
    rs: RuleSet,
    winner: int | None,
    score: Any,
    active_seats: list[int],
    base: int = 1,
    piao: dict[int, int] | None = None,
    discarder: int | None = None,
) -> dict[str, dict[int, int]]:
    """Per-seat amounts of a finished hand: ``{"score": …, "piao": …, "total": …}``.

    Each loser (an active seat other than the winner) pays ``score × base`` plus its piao part; with
    ``discard_win`` and ``pao_pays = "all"`` the discarder alone pays what all losers would have. A
    seat outside ``active_seats`` (a 4-player sit_out sitter) gets 0; a draw (``winner`` None) is all
    zeros. ``score`` is an int or anything with a ``.score`` (a ``ScoreResult``).
    """
    seats = sorted(set(range(rs.players)) | set(active_seats))
    out: dict[str, dict[int, int]] = {part: dict.fromkeys(seats, 0) for part in ("score", "piao", "total")}
    if winner is None:
        return out
    points = int(getattr(score, "score", score)) * base
    piao = piao or {}
    pays_all = rs.discard_win and rs.pao_pays == "all" and discarder is not None and discarder != winner
    for loser in active_seats:
        if loser == winner:
            continue
        payer = discarder if pays_all else loser
        for part, amount in (("score", points), ("piao", _piao_part(rs, piao, winner, loser))):
            out[part][payer] -= amount
            out[part][winner] += amount
    for seat in seats:
        out["total"][seat] = out["score"][seat] + out["piao"][seat]
    return out


def settle(hand: Any, base: int = 1, piao: dict[int, int] | None = None) -> dict[str, dict[int, int]]:
    """Per-seat amounts of a finished ``Hand`` at a table's base score with the seats' 飘 choices.

    The single source of money amounts for the platform: ``{"score": {seat: n}, "piao": {seat: n},
    "total": {seat: n}}``, each part zero-sum; a draw (荒庄) is all zeros.

    >>> from apps.engine import Hand, resolve_ruleset
    >>> h = Hand(resolve_ruleset("basic"), 0, seed=bytes(32))
    >>> settle(h)
    Traceback (most recent call last):
    ...
    ValueError: the hand is not finished
    """
    if not hand.finished or hand.result is None:
        raise ValueError("the hand is not finished")
    if isinstance(base, bool) or not isinstance(base, int) or base < 1:
        raise ValueError("base must be a positive integer")
    result = hand.result
    winner = result.get("winner")
    score = result["settlement"]["score"] if winner is not None else 0
    clean_piao = {int(seat): int(value) for seat, value in (piao or {}).items()}
    return settle_amounts(
        hand.rs, winner, score, list(hand.active_seats), base=base, piao=clean_piao, discarder=result.get("discarder")
    )
