"""Fair play (信息优势): does a seat play as if it saw cards it should not? (issue #44, README "Fair play")

Built on the 复盘 (review.py). For every **decision** of a seat (review.py's: a discard or a claim
answer with more than one legal choice and no 胡 on offer) ``fairplay(record, seat, see)`` weighs the
legal candidates twice with ``review.weigh`` (the same racing play-outs, greedy bots in every seat,
the same nominal budget):

1. **own view**: worlds sampled from what the seat saw (``build_view``), the 复盘's evaluation. The
   racing's anchor is the first legal action, never the action taken, so ``own_best`` is a function
   of the view alone;
2. **informed**: worlds sampled by a ``Known`` told more, read off the true hand (bots/cheat.py
   ``informed``): ``see="all"`` every hidden card (the other hands, their face-down 偎 and the stock:
   every world is the true one, only the play-out randomness is left), or ``see=[s]`` seat ``s``'s
   concealed cards (a partner who shares his hand). The anchor is ``own_best``, so the informed
   evaluation pairs the informed best against it world by world.

A decision is **telling** when the informed best differs from ``own_best`` *and* beats it in the
informed worlds by more than ``review.threshold(worlds)`` standard errors of the paired difference
(``gain``: that mean, in points at base 1). It is **matched** when the action taken is the informed
best or cannot be told apart from it in the informed worlds (``chosen_loss`` 0). A seat that sees
nothing it should not takes the informed side of a telling decision only by luck or by skill the view
allows; one that sees more takes it more often.

A second, narrower part, **feeding** (the issue's "never feeds them"): at a discard, what each legal
discard would hand the seats seen (the other seats, or the partner) in the true world — 3 a 胡, 2 a 碰,
1 a 吃, 0 nothing (bots/cheat.py ``feeds``). The decision is ``feed_telling`` when ``own_best`` feeds
more than the least-feeding discard, ``feed_matched`` when the discard taken feeds the least. The EV
part misses a player who only ever avoids feeding (a 吃 or 碰 handed over costs little in the
play-outs, so it is seldom telling there); this part sees him at once.

``score(decisions, see)``: for each part, over ``n`` telling decisions with ``m`` matched, the
one-sided test of "matched at most at the honest rate ``p0``" (``BASELINE``, per part and mode: at
least the highest rate measured for honest bots of every level, README "Fair play"):
``z = (m - n·p0) / sqrt(n·p0·(1-p0))`` and the exact binomial ``p = P(X ≥ m)``, ``X ~ Bin(n, p0)``.
The result is the part with the smaller p, its p doubled (Bonferroni: two tests were looked at):
``score`` its z, ``p``, ``telling`` both parts' telling decisions; ``flagged`` when ``p < ALPHA``
(0.001) on at least ``MIN_TELLING`` telling decisions of that part. A score with a p-value, never a
verdict: ``p`` assumes independent decisions, while decisions of one hand are not quite (the
conservative ``p0`` is there for that too).

Determinism: as the 复盘, a budget in nominal milliseconds and worlds drawn from
``random.Random(sha256(f"{seed}:{own|informed|feed}:{index}"))``: the same record, seat, mode and seed
give the same decisions on any machine.
"""

from __future__ import annotations

import hashlib
import math
import random
from typing import Any

from ..actions import Action
from ..bots.cheat import feeds, informed
from ..play.observer import build_view
from .review import DEFAULT_BUDGET_MS, start, walk_decisions, weigh

# The honest rate ``p0`` per part ("ev": the informed best; "feed": the discard feeding the least) and
# information mode ("all": every hidden card; "partner": one other seat's hand): at least the share of
# telling decisions on which honest bots took the better-informed choice, over every level (easy,
# normal, hard) and the presets measured (README "Fair play": pooled 0.35 "ev" and 0.31 "feed", the
# highest of 12 samples 0.50 and 0.40; partner mode: 12 of 19 "ev", 25 of 86 "feed"), rounded up.
BASELINE = {("ev", "all"): 0.5, ("feed", "all"): 0.5, ("ev", "partner"): 0.65, ("feed", "partner"): 0.5}
# Flag when the one-sided p-value is below ALPHA, on at least MIN_TELLING telling decisions.
ALPHA = 0.001
MIN_TELLING = 10


def fairplay(
    record: dict[str, Any], seat: int, see: str | list[int] = "all", seed: object = "fairplay",
    budget_ms: float = DEFAULT_BUDGET_MS,
) -> list[dict[str, Any]]:
    """Every decision of ``seat`` in the hand ``record``: own-view best, informed best, chosen, telling.

    ``see``: ``"all"`` (every hidden card) or a list of other seats whose concealed cards are revealed."""
    hand = start(record)
    players = hand.rs.players
    if not 0 <= seat < players:
        raise ValueError(f"seat must be 0-{players - 1}")
    if see != "all" and (not see or any(not 0 <= s < players or s == seat for s in see)):
        raise ValueError("see: 'all' or other seats of the table")
    out = [_decision(hand, s, action, index, see, seed, budget_ms)
           for index, s, action in walk_decisions(hand, record, (seat,))]
    return out


def _rng(seed: object, part: str, index: int) -> random.Random:
    return random.Random(hashlib.sha256(f"{seed}:{part}:{index}".encode()).digest())


def _decision(hand, seat: int, action: Action, index: int, see, seed: object, budget_ms: float) -> dict[str, Any]:
    view = build_view(hand, seat)
    legal = [a for a in map(Action.from_wire, view["legal_actions"]) if a.type != "escape"]
    if action not in legal:
        raise ValueError(f"action {index} ({seat}: {action.to_wire()}) is not legal")
    own = weigh(hand.rs, view, legal, legal[0], _rng(seed, "own", index), budget_ms, index)
    own_best = Action.from_wire(own["best"])
    _, known = informed(hand, seat, see)
    inf = weigh(hand.rs, view, legal, own_best, _rng(seed, "informed", index), budget_ms, index, known=known,
                also=action)
    telling = inf["loss"] > 0  # the informed best differs from own_best and is told apart from it
    feed: dict[str, Any] = {"feed_telling": False, "feed_matched": False}
    if view["phase"] == "discard" and len(legal) > 1:
        # what each discard hands the seats seen (the true world, see="all": every other seat)
        _, truth = (None, known) if see == "all" else informed(hand, seat, "all")
        to = None if see == "all" else list(see)
        fed = {a: feeds(truth, legal, a, _rng(seed, "feed", index), to) for a in legal}
        least = min(fed.values())
        feed = {"feed_telling": fed[own_best] > least, "feed_matched": fed[own_best] > least and fed[action] == least,
                "fed": fed[action], "own_best_fed": fed[own_best], "least_fed": least}
    return {
        "index": index,
        "seat": seat,
        "chosen": action.to_wire(),
        "own_best": own["best"],
        "informed_best": inf["best"],
        "telling": telling,
        # the action taken is the informed best, or cannot be told apart from it in the informed worlds
        "matched": bool(telling and inf["also_loss"] == 0),
        "gain": inf["loss"],
        "chosen_loss": inf["also_loss"],
        "chosen_gain": inf["also_gain"],
        **feed,
    }


def binomial_tail(m: int, n: int, p0: float) -> float:
    """P(X >= m) for X ~ Bin(n, p0)."""
    if m <= 0:
        return 1.0
    if m > n:
        return 0.0
    log_p, log_q = math.log(p0), math.log1p(-p0)
    terms = [math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p + (n - k) * log_q
             for k in range(m, n + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def _test(n: int, m: int, p0: float) -> dict[str, Any]:
    z = (m - n * p0) / math.sqrt(n * p0 * (1 - p0)) if n else 0.0
    return {"telling": n, "matched": m, "rate": round(m / n, 4) if n else None, "baseline": p0,
            "score": round(z, 3), "p": binomial_tail(m, n, p0)}


def score(
    decisions: list[dict[str, Any]], see: str | list[int] = "all", baselines: dict[str, float] | None = None,
) -> dict[str, Any]:
    """The signal over many decisions (of one seat, or of a pair): see the module docstring."""
    mode = "all" if see == "all" else "partner"
    base = baselines or {part: BASELINE[(part, mode)] for part in ("ev", "feed")}
    parts = {}
    for part, telling_key, matched_key in (("ev", "telling", "matched"), ("feed", "feed_telling", "feed_matched")):
        telling = [d for d in decisions if d[telling_key]]
        parts[part] = _test(len(telling), sum(d[matched_key] for d in telling), base[part])
    # the stronger of the two parts, its p-value doubled (Bonferroni: two tests looked at)
    top = min(parts.values(), key=lambda t: (t["p"], -t["score"]))
    p = min(1.0, 2 * top["p"])
    for t in parts.values():
        t["p"] = float(f"{t['p']:.4g}")
    return {
        "score": top["score"],
        "p": float(f"{p:.4g}"),
        "telling": parts["ev"]["telling"] + parts["feed"]["telling"],
        "decisions": len(decisions),
        "flagged": bool(p < ALPHA and top["telling"] >= MIN_TELLING),
        "ev": parts["ev"],
        "feed": parts["feed"],
    }


__all__ = ["ALPHA", "BASELINE", "MIN_TELLING", "binomial_tail", "fairplay", "score"]
