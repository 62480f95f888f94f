"""Settlement between players (RULES.md §9.3, §9.4): who pays whom, always zero-sum.

>>> from apps.engine.rules import PRESETS
>>> settle_amounts(PRESETS["full"], 0, 10, [0, 1, 2])["total"]
{0: 20, 1: -10, 2: -10}
"""

from __future__ import annotations

from typing import Any

from ..rules import RuleSet


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
    "total": {seat: n}}``, each part zero-sum; a draw (荒庄) is all zeros; an escape (§8.6) is the
    leaver's penalty × base split among the others, no 飘; a capped win (§9.6) pays the capped
    score × base plus 飘.

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
    if "escape" in result:  # §8.6: the leaver pays penalty × base to the others; no 飘
        score = escape_split(hand.rs, result["escape"], result["penalty"] * base, list(hand.active_seats))
        return {"score": score, "piao": dict.fromkeys(score, 0), "total": dict(score)}
    winner = result.get("winner")
    score = result["settlement"]["score"] if winner is not None else 0
    clean_piao = {int(seat): int(value) for seat, value in (piao or {}).items()}
    return settle_amounts(
        hand.rs, winner, score, list(hand.active_seats), base=base, piao=clean_piao, discarder=result.get("discarder")
    )


def capped(rs: RuleSet, settlement: dict[str, Any]) -> dict[str, Any]:
    """A win's settlement with ``score_cap`` applied (RULES.md §9.6 封顶): each loser's ``score``
    (tun × fan, before the base and 飘) is at most the cap, and ``"cap"`` says so when the cap
    changed anything. A copy; the input is left as it is.

    >>> from apps.engine.rules import resolve_ruleset
    >>> capped(resolve_ruleset("full", {"score_cap": 8}), {"win": True, "score": 12})
    {'win': True, 'score': 8, 'cap': 8}
    """
    out = dict(settlement)
    cap = rs.score_cap
    if cap and out.get("win") and out.get("score", 0) > cap:
        out["score"] = cap
        out["cap"] = cap
    return out


def escape_penalty(total_huxi: int) -> int:
    """RULES.md §8.6: what a leaver pays at base 1, ``max(0, floor((H − 12) / 3)) + 8``.

    >>> [escape_penalty(h) for h in (0, 11, 12, 14, 15, 30)]
    [8, 8, 8, 8, 9, 14]
    """
    return max(0, (total_huxi - 12) // 3) + 8


def escape_split(rs: RuleSet, leaver: int, amount: int, active_seats: list[int]) -> dict[int, int]:
    """Per-seat amounts of an escape (§8.6): the leaver pays ``amount``, split equally among the
    other active players, a remainder one point each in seat order from the leaver's next.

    >>> from apps.engine.rules import PRESETS
    >>> escape_split(PRESETS["full"], 1, 17, [0, 1, 2])
    {0: 8, 1: -17, 2: 9}
    """
    seats = sorted(set(range(rs.players)) | set(active_seats))
    out = dict.fromkeys(seats, 0)
    i = active_seats.index(leaver)
    others = active_seats[i + 1 :] + active_seats[:i]  # seat order from the leaver's next
    share, rest = divmod(amount, len(others))
    for k, seat in enumerate(others):
        out[seat] = share + (1 if k < rest else 0)
    out[leaver] = -amount
    return out


def escape_amounts(hand: Any, leaver: int, base: int = 1) -> dict[str, Any]:
    """The escape of ``leaver`` from ``hand`` in play (§8.6): each other active seat's current best
    胡息 (``seat_huxi``), their sum *H* (``total_huxi``), the ``penalty`` at base 1 and the per-seat
    ``score`` / ``piao`` (no 飘 is paid: all zero) / ``total`` amounts at ``base``."""
    from .huxi import current_huxi

    seat_huxi = {
        s: current_huxi(hand.rs, hand.hands[s], hand.groups[s]) for s in hand.active_seats if s != leaver
    }
    total_huxi = sum(seat_huxi.values())
    penalty = escape_penalty(total_huxi)
    score = escape_split(hand.rs, leaver, penalty * base, list(hand.active_seats))
    return {
        "seat_huxi": seat_huxi,
        "total_huxi": total_huxi,
        "penalty": penalty,
        "score": score,
        "piao": dict.fromkeys(score, 0),
        "total": dict(score),
    }
