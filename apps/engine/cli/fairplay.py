"""``python -m apps.engine fairplay``: the fair-play signal on seats we control (ENGINE_CLI.md "fairplay").

Hand ``i`` of a run with seed ``S`` is ``simulate``'s (seed ``sha256(f"{S}:{i}")``, dealer
``seed[0] % players``). Seat 0 cheats as asked (``partner``: seats 0 and 1, each told the other's
hand), with its own randomness ``random.Random(sha256(b"cheat:" + seed))`` and the cheating budget
of bots/cheat.py (``CHEAT_BUDGET``, in worlds); the other seats play honestly at ``level`` from
``random.Random(seed)`` (``hard`` with ``HARD_BUDGET``, in worlds: no clock, so a run is a function
of its seed). Then analysis/fairplay.py scores the cheating seat (``none``: seat 0; ``partner``: the
pair, each seat with the other's hand revealed) at the detector's own seed ``fairplay`` and budget.
"""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

from ..analysis.fairplay import fairplay, score
from ..analysis.review import DEFAULT_BUDGET_MS
from ..bots.cheat import CHEATS, cheat_choose
from ..bots.choose import LEVELS, bot_choose
from ..bots.search import Budget
from ..play.hand import Hand
from ..records.replay import record_of
from ..rules import resolve_ruleset
from .simulate import hand_seed

# The honest ``hard`` seats: a fixed number of worlds a decision (about what the platform's 10 ms buy).
HARD_BUDGET = Budget(worlds=4, cpu_ms=None, wall_ms=None)
MAX_STEPS = 2000


def play(rules, seed: bytes, cheat: str, level: str) -> Hand:
    """One hand: the cheating seat(s) as asked, the others honest at ``level``."""
    players = rules.players
    cheaters = {"none": {}, "omniscient": {0: None}, "omniscient-greedy": {0: None}, "partner": {0: 1, 1: 0}}[cheat]
    hand = Hand(rules, dealer=seed[0] % players, seed=seed)
    honest_rng = random.Random(seed)
    cheat_rng = random.Random(hashlib.sha256(b"cheat:" + seed).digest())
    steps = 0
    while not hand.finished:
        steps += 1
        if steps > MAX_STEPS:
            raise RuntimeError("no end to the hand")
        seat = hand.to_act()[0]
        if seat in cheaters:
            action = cheat_choose(hand, seat, cheat, cheat_rng, partner=cheaters[seat])
        else:
            action = bot_choose(hand, seat, level, honest_rng, budget=HARD_BUDGET)
        hand.apply(seat, action)
    return hand


def run(
    cheat: str = "none", level: str = "normal", hands: int = 100, seed: object = 0, preset: str = "full",
    players: int | None = None, budget_ms: float = DEFAULT_BUDGET_MS, honest: bool = False,
) -> dict[str, Any]:
    """The one JSON object of the ``fairplay`` command. ``honest``: also score the seats that play
    honestly (every seat but 0, and but 1 with ``partner``) in the same information mode (every
    hidden card; with ``partner``, the next seat's hand) and give their pooled figures under ``honest``."""
    if cheat not in ("none", *CHEATS):
        raise ValueError(f"unknown cheat {cheat!r}")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if hands < 1:
        raise ValueError("hands must be >= 1")
    rules = resolve_ruleset(preset, {}, players=players)
    if cheat == "partner" and rules.players < 3:
        raise ValueError("partner needs 3 or 4 players")
    pair = cheat == "partner"
    cpu0, wall0 = time.process_time(), time.perf_counter()
    mine: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    detect_cpu = 0.0
    for i in range(hands):
        hand = play(rules, hand_seed(seed, i), cheat, level)
        record = record_of(hand)
        t = time.process_time()
        if pair:
            mine += fairplay(record, 0, [1], budget_ms=budget_ms) + fairplay(record, 1, [0], budget_ms=budget_ms)
        else:
            mine += fairplay(record, 0, "all", budget_ms=budget_ms)
        detect_cpu += time.process_time() - t
        if honest:  # the honest seats, in the cheat's information mode (partner: the next seat's hand)
            for s in range(2 if pair else 1, rules.players):
                others += fairplay(record, s, [(s + 1) % rules.players] if pair else "all", budget_ms=budget_ms)
    see = [1] if pair else "all"
    out: dict[str, Any] = {
        "cheat": cheat, "level": level, "hands": hands, "seed": str(seed), "preset": rules.preset,
        "players": rules.players, "seats": [0, 1] if pair else [0], "budget_ms": budget_ms,
        **score(mine, see),
    }
    if honest:
        honest_score = score(others, see)
        out["honest"] = honest_score
    out["detector_cpu_s"] = round(detect_cpu, 2)
    out["cpu_s"] = round(time.process_time() - cpu0, 2)
    out["seconds"] = round(time.perf_counter() - wall0, 2)
    return out


__all__ = ["HARD_BUDGET", "play", "run"]
