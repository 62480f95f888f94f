"""Two bot levels on duplicate deals (ENGINE_CLI.md "duel"): luck cancels, the difference is skill.

Deal ``i`` of a run with seed ``S`` is the 32-byte seed ``sha256(f"{S}:{i}")`` (as ``simulate``), its
dealer ``seed[0] % players``. Each deal is played once per active seat: A in that seat, B in all the
others, the same cards every time. A hand's difference is A's points minus the mean of the B seats'
points (the preset's scoring and settlement at base 1, no 飘; a drawn hand is 0 for all). The 95%
interval is clustered by deal: the mean of each deal's rotations is one observation (the rotations
of one deal share its cards, so they are not independent), ``mean ± 1.96 · sd / √deals``. The bots
of every rotation draw from ``random.Random(seed)``: a level against itself differs by exactly 0.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from ..bots.choose import KINDS, bot_choose
from ..bots.search import DEFAULT_BUDGET, Budget
from ..play.hand import Hand
from ..rules import resolve_ruleset
from .simulate import MAX_STEPS, hand_seed


def duel(
    a: str,
    b: str,
    deals: int,
    preset: str,
    players: int,
    seed: object = 0,
    budget: Budget = DEFAULT_BUDGET,
    progress: Callable[[dict[str, Any]], None] | None = None,
    every: int = 100,
) -> dict[str, Any]:
    """Play ``deals`` deals in every seat rotation; the ENGINE_CLI result object.

    ``progress``, if given, receives the result over the deals played so far every ``every`` deals."""
    for kind in (a, b):
        if kind not in KINDS:
            raise ValueError(f"unknown bot level {kind!r} (one of {', '.join(KINDS)})")
    if deals < 1:
        raise ValueError("deals must be >= 1")
    rules = resolve_ruleset(preset, {}, players=players)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    per_deal: list[float] = []
    hands = wins_a = wins_b = draws = 0
    points_a: list[float] = []
    points_b: list[float] = []
    abs_points: list[float] = []
    cpu_ms: list[float] = []
    wall_ms: list[float] = []
    for i in range(deals):
        seed_i = hand_seed(seed, i)
        dealer = seed_i[0] % players
        diffs = []
        for a_seat in rules.active_seats(dealer):
            hand = Hand(rules, dealer=dealer, seed=seed_i)
            rng = random.Random(seed_i)  # the same draws in every rotation: a level against itself is 0
            steps = 0
            while not hand.finished:
                steps += 1
                if steps > MAX_STEPS:
                    raise RuntimeError(f"deal {i}: no end after {MAX_STEPS} actions")
                seat = hand.to_act()[0]
                if seat == a_seat:
                    c0, w0 = time.thread_time(), time.perf_counter()
                    action = bot_choose(hand, seat, a, rng, budget)
                    cpu_ms.append((time.thread_time() - c0) * 1000)
                    wall_ms.append((time.perf_counter() - w0) * 1000)
                else:
                    action = bot_choose(hand, seat, b, rng, budget)
                hand.apply(seat, action)  # the engine's checked path: an illegal move raises
            result = hand.result or {}
            winner = result.get("winner")
            deltas = result["settlement"]["deltas"] if winner is not None else {}
            b_seats = [s for s in hand.active_seats if s != a_seat]
            pa = float(deltas.get(a_seat, 0))
            pb = sum(float(deltas.get(s, 0)) for s in b_seats) / len(b_seats)
            hands += 1
            if winner is None:
                draws += 1
            elif winner == a_seat:
                wins_a += 1
            else:
                wins_b += 1
            points_a.append(pa)
            points_b.append(pb)
            abs_points.extend(abs(float(deltas.get(s, 0))) for s in hand.active_seats)
            diffs.append(pa - pb)
        per_deal.append(sum(diffs) / len(diffs))
        if progress is not None and (i + 1) % every == 0 and i + 1 < deals:
            progress(_summary(a, b, preset, players, seed, budget, per_deal, hands, wins_a, wins_b, draws, points_a,
                              points_b, abs_points, cpu_ms, wall_ms, cpu0, wall0))
    return _summary(a, b, preset, players, seed, budget, per_deal, hands, wins_a, wins_b, draws, points_a, points_b,
                    abs_points, cpu_ms, wall_ms, cpu0, wall0)


def _summary(a, b, preset, players, seed, budget, per_deal, hands, wins_a, wins_b, draws, points_a, points_b,
             abs_points, cpu_ms, wall_ms, cpu0, wall0) -> dict[str, Any]:
    deals = len(per_deal)
    mean = sum(per_deal) / deals
    half = 1.96 * statistics.stdev(per_deal) / math.sqrt(deals) if deals > 1 else float("inf")
    mean_abs = sum(abs_points) / len(abs_points)
    cpu_s = time.process_time() - cpu0
    return {
        "a": a,
        "b": b,
        "preset": preset,
        "players": players,
        "deals": deals,
        "hands": hands,
        "seed": str(seed),
        "mean_diff": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "mean_a": round(sum(points_a) / hands, 4),
        "mean_b": round(sum(points_b) / hands, 4),
        "mean_abs_score": round(mean_abs, 4),
        "diff_share_of_abs": round(mean / mean_abs, 4) if mean_abs else None,
        "win_rate": {"a": round(wins_a / hands, 4), "b": round(wins_b / hands, 4)},
        "draw_rate": round(draws / hands, 4),
        "decisions": len(cpu_ms),
        "ms_per_decision": _percentiles(cpu_ms),
        "wall_ms_per_decision": _percentiles(wall_ms),
        "budget": {"worlds": budget.worlds, "cpu_ms": budget.cpu_ms, "wall_ms": budget.wall_ms},
        "cpu_s": round(cpu_s, 2),
        "seconds": round(time.perf_counter() - wall0, 2),
    }


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None}
    ordered = sorted(values)

    def pick(q: float) -> float:  # nearest rank
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)

    return {"p50": pick(0.5), "p99": pick(0.99)}
