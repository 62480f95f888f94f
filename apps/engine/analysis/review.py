"""复盘: every decision of a finished hand weighed from the deciding seat's own view (ENGINE_CLI.md "review").

``review(record, seat=None, seed="review", budget_ms=DEFAULT_BUDGET_MS)`` re-runs a hand record (or
the hand of a ``paohuzi-hand/1`` export, ``record_of_export``) action by action. Before each action
that is a **decision** — a discard, or an answer to a claim window, with more than one legal choice
and no 胡 among them (胡 is always taken, RULES.md §5.3; a forced single option is no decision) — it
takes ``build_view(hand, seat)`` (what that seat knew at that moment, nothing else) and evaluates **every**
legal candidate (every distinct discard, every 吃 with its 比 groups, 碰, pass):

1. sample a world consistent with the view (``search_bot.Known``, the hard bot's sampler: it reads
   the view only, never another seat's cards or the stock);
2. play every candidate out in that world with greedy bots in every seat, the same world and the
   same play-out seed for every candidate (common random numbers), and score the seat's points at
   base 1 (the preset's scoring and settlement, no 飘; a drawn hand is 0).

It repeats with new worlds until the decision's budget is spent, racing: every candidate is played in
the first ``SCREEN_WORLDS`` worlds, then only the chosen action and the ``FINALISTS`` others with the
highest mean go on. ``ev`` is a candidate's mean over its worlds, ``se`` its standard error. ``best``
is the finalist with the highest ``ev`` (ties: the chosen action, then the first in legal-action
order). The chosen action is told apart from the best when the mean of their paired per-world
difference exceeds ``threshold(worlds)`` standard errors of that difference (Student's t at 95%, at
least ``REVIEW_Z``); ``loss`` is that mean when told apart, else 0; a ``mistake`` is a loss above
``MISTAKE_POINTS``.

Determinism: the budget is counted in *nominal* CPU milliseconds, a fixed cost per play-out step and
per world built (``STEP_US``, ``WORLD_US``, measured on the project's machine), never read off a
clock, and every random draw comes from ``random.Random`` seeded by the review seed and the action's
index: the same record, seat and seed give byte-identical output on any machine and under any load.
"""

from __future__ import annotations

import gc
import hashlib
import math
import random
from typing import Any

from ..actions import HU, Action
from ..bots.greedy import greedy
from ..bots.search import Known
from ..play.hand import Hand
from ..play.observer import build_view
from ..records.replay import hand_of, parse_actions
from ..rules import RuleSet

# The chosen action differs from the best when their paired difference exceeds REVIEW_Z standard errors,
# or Student's t at 95% (two-sided) for the worlds played when that is larger (few worlds: a noisy se).
REVIEW_Z = 2.0
_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 11: 2.20,
        12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09, 20: 2.09, 25: 2.06,
        30: 2.04, 40: 2.02}


def threshold(worlds: int) -> float:
    """How many standard errors a paired difference over ``worlds`` worlds must exceed to count."""
    df = worlds - 1
    if df < 1:
        return math.inf
    return max(REVIEW_Z, _T95[max(k for k in _T95 if k <= df)])  # the table's nearer, larger t
# A mistake: a told-apart loss above this many points (base 1).
MISTAKE_POINTS = 1.0
# Nominal cost of a play-out step (one action by a greedy bot, applied) and of building one world
# (µs of one core of the project's machine); the budget is spent in these units, not read off a clock.
STEP_US = 45.0
WORLD_US = 60.0
# Nominal CPU milliseconds per decision (the ``--budget-ms`` default).
DEFAULT_BUDGET_MS = 80.0
# Worlds per decision. Every candidate is played in the first SCREEN_WORLDS worlds; then only the
# chosen action and the FINALISTS others with the highest ev go on (racing: the budget goes where the
# verdict is decided). At least MIN_WORLDS worlds for the finalists, at most MAX_WORLDS.
SCREEN_WORLDS = 4
FINALISTS = 3
MIN_WORLDS = 8
MAX_WORLDS = 2000
# A play-out that has not ended after this many actions is scored as a draw (never seen).
MAX_STEPS = 2000


def decision_legal(hand: Hand, seat: int) -> list[Action] | None:
    """The candidates when ``seat`` faces a decision now, else None (forced, or 胡 on offer)."""
    legal = [a for a in hand.legal_actions(seat) if a.type != "escape"]
    if len(legal) < 2 or HU in legal:
        return None
    return legal


def record_of_export(doc: dict[str, Any]) -> dict[str, Any]:
    """The hand record of a one-hand ``paohuzi-hand/1`` export (EXPORT.md): rules, dealer, seed, actions."""
    from ..records.verifier import check_shape

    check_shape(doc)  # BadDocument (a ValueError) when it is not an export
    if len(doc["hands"]) != 1:
        raise ValueError("review one hand at a time: export the hand (scope 'hand')")
    hand = doc["hands"][0]
    rules = RuleSet.from_json(hand["ruleset"])
    actions = [{"seat": ev["payload"]["seat"], "action": ev["payload"]["action"]}
               for ev in hand["events"] if ev["type"] == "action"]
    return {"rules": rules, "dealer": hand["dealer"], "seed": hand["seed"], "actions": actions}


def start(record: dict[str, Any]) -> Hand:
    """The hand of a record (or of ``record_of_export``'s record) at its deal, before any action."""
    if isinstance(record.get("rules"), RuleSet):
        from ..shuffle import parse_seed

        return Hand(record["rules"], dealer=int(record["dealer"]), seed=parse_seed(record["seed"]))
    return hand_of(record)


def load(doc: Any) -> dict[str, Any]:
    """A hand record, or the record of a ``paohuzi-hand/1`` export; ValueError otherwise."""
    if not isinstance(doc, dict):
        raise ValueError("expected a JSON object: a hand record or a paohuzi-hand/1 export")
    if "format" in doc:
        return record_of_export(doc)
    return doc


def walk_decisions(hand: Hand, record: dict[str, Any], seats: tuple[int, ...] | None = None):
    """Re-run ``record``'s actions on ``hand``, yielding ``(index, seat, action)`` before each action
    that is a decision (``decision_legal``) of one of ``seats`` (None: every seat), the hand as that
    seat saw it; the action is applied when the caller asks for the next. Play-outs allocate many
    short-lived objects: the collector is off meanwhile and collects between decisions instead."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        for index, (s, action) in enumerate(parse_actions(record)):
            if (seats is None or s in seats) and decision_legal(hand, s) is not None:
                yield index, s, action
                if collecting:
                    gc.collect(0)
            hand.apply(s, action)
    finally:
        if collecting:
            gc.enable()


def review(
    record: dict[str, Any], seat: int | None = None, seed: object = "review", budget_ms: float = DEFAULT_BUDGET_MS
) -> dict[str, Any]:
    """The review object of ENGINE_CLI.md "review" (see the module docstring and the README)."""
    hand = start(record)
    players = hand.rs.players
    if seat is not None and not 0 <= seat < players:
        raise ValueError(f"seat must be 0-{players - 1}")
    decisions = []
    for index, s, action in walk_decisions(hand, record, None if seat is None else (seat,)):
        view = build_view(hand, s)  # all the weighing reads: what the seat knew, its own options included
        legal = [a for a in map(Action.from_wire, view["legal_actions"]) if a.type != "escape"]
        if action not in legal:
            raise ValueError(f"action {index} ({s}: {action.to_wire()}) is not legal")
        rng = random.Random(hashlib.sha256(f"{seed}:{index}".encode()).digest())
        decisions.append(weigh(hand.rs, view, legal, action, rng, budget_ms, index))
    seats: dict[str, dict[str, Any]] = {}
    for s in range(players) if seat is None else [seat]:
        mine = [d for d in decisions if d["seat"] == s]
        n = len(mine)
        seats[str(s)] = {
            "decisions": n,
            "agreement": round(sum(d["loss"] == 0 for d in mine) / n, 4) if n else None,
            "mean_loss": round(sum(d["loss"] for d in mine) / n, 4) if n else None,
            "mistakes": sum(d["mistake"] for d in mine),
            "loss": round(sum(d["loss"] for d in mine), 4),
        }
    return {
        "decisions": decisions,
        "seats": seats,
        "review": {"seed": str(seed), "budget_ms": budget_ms, "z": REVIEW_Z, "mistake_points": MISTAKE_POINTS},
    }


def weigh(
    rules: RuleSet, view: dict[str, Any], legal: list[Action], chosen: Action, rng: random.Random,
    budget_ms: float = DEFAULT_BUDGET_MS, index: int | None = None, known: Known | None = None,
    also: Action | None = None,
) -> dict[str, Any]:
    """One decision: every candidate's ``ev``/``se`` from ``view`` alone, the best, the loss.

    For the fair-play analysis (analysis/fairplay.py; the 复盘 passes neither): ``known``, the worlds'
    sampler instead of ``Known(rules, view)`` (one told more than the view); ``also``, a second
    candidate kept to the end of the racing like ``chosen``, whose told-apart loss to the best is
    given as ``also_loss`` and its told-apart gain over ``chosen`` as ``also_gain`` (0 when not told apart)."""
    if known is None:
        known = Known(rules, view)
    seat = known.seat
    n = len(legal)
    values: list[list[float]] = [[] for _ in range(n)]
    c = legal.index(chosen)
    kept = [c] if also is None else sorted({c, legal.index(also)})
    active = list(range(n))
    budget_us = budget_ms * 1000.0
    spent = 0.0
    worlds = 0
    while worlds < MAX_WORLDS and (worlds < MIN_WORLDS or spent < budget_us):
        if worlds == SCREEN_WORLDS and len(active) > FINALISTS + 1:
            means = [sum(v) / worlds for v in values]
            others = sorted((i for i in range(n) if i not in kept), key=lambda i: (-means[i], i))[:FINALISTS]
            active = sorted([*kept, *others])
        deal = known.sample(rng)
        play_seed = rng.getrandbits(64)
        for i in active:
            world = known.world(deal, legal)
            if world is None:  # the view admits no such deal (a forced 跑): the seat could not be here
                value, steps = 0.0, 0
            else:
                value, steps = _play_out(world, seat, legal[i], play_seed)
            values[i].append(value)
            spent += WORLD_US + STEP_US * steps
        worlds += 1
        if worlds == MIN_WORLDS and all(values[i] == values[c] for i in active):
            break  # the candidates still weighed play exactly alike in every world: nothing to tell apart
    evs = [sum(v) / len(v) for v in values]
    # the best among the candidates weighed to the end (the others fell behind in the screening)
    best = max(active, key=lambda i: (evs[i], i == c, -i))  # a tie with the chosen action keeps it
    diff_mean, diff_se = _paired(values[best], values[c])
    told_apart = best != c and diff_mean > threshold(len(values[c])) * diff_se
    loss = diff_mean if told_apart else 0.0
    extra = {}
    if also is not None:
        a = legal.index(also)
        also_mean, also_se = _paired(values[best], values[a])
        extra["also_loss"] = round(also_mean, 4) if best != a and also_mean > threshold(len(values[a])) * also_se else 0.0
        gain_mean, gain_se = _paired(values[a], values[c])
        extra["also_gain"] = round(gain_mean, 4) if a != c and gain_mean > threshold(len(values[c])) * gain_se else 0.0
    return {
        "index": index,
        "seat": seat,
        "chosen": chosen.to_wire(),
        "best": legal[best].to_wire(),
        "candidates": [
            {"action": a.to_wire(), "ev": round(evs[i], 4), "se": round(_se(values[i]), 4), "worlds": len(values[i])}
            for i, a in enumerate(legal)
        ],
        "loss": round(loss, 4),
        "loss_se": round(diff_se, 4) if best != c else 0.0,
        "mistake": bool(told_apart and loss > MISTAKE_POINTS),
        "worlds": worlds,
        **extra,
    }


def _se(xs: list[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    mean = sum(xs) / n
    return math.sqrt(max(0.0, sum((x - mean) ** 2 for x in xs) / (n - 1)) / n)


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of the per-world difference a - b."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    return sum(d) / len(d), _se(d)


def _play_out(world: Hand, seat: int, action: Action, seed: int) -> tuple[float, int]:
    """Apply ``action`` for ``seat``, greedy bots finish the hand: the seat's points and the steps."""
    rng = random.Random(seed)
    world.apply(seat, action)
    steps = 0
    while not world.finished:
        steps += 1
        if steps > MAX_STEPS:
            return 0.0, steps
        s = world.to_act()[0]
        world.apply(s, greedy(world, s, world.decision_actions(s), rng))
    result = world.result or {}
    if result.get("winner") is None:
        return 0.0, steps
    return float(result["settlement"]["deltas"].get(seat, 0)), steps


__all__ = [
    "DEFAULT_BUDGET_MS", "MISTAKE_POINTS", "REVIEW_Z", "decision_legal", "load", "record_of_export", "review", "walk_decisions",
    "start", "threshold", "weigh",
]
