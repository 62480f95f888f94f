"""Where does ``easy`` lose in the 复盘? (issue #43, apps/engine/README.md "复盘").

    python scripts/review_easy_split.py --preset full --players 3 --deals 30 [--seed rank43]

Plays deals ``0..N-1`` of ``review_ranking.py`` (same seeds, same bot draws) once by ``easy`` and
once by ``normal`` in every seat, reviews every decision at the default budget and prints one JSON
line: the mean loss per decision of easy's random choices, of easy's greedy choices and of
normal's choices, each with its count. Easy's choice is made here as ``bots.choose.bot_choose``
makes it (one ``rng.random()`` draw, then a random legal action or greedy), so that each of its
decisions can be labelled.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from apps.engine.actions import HU  # noqa: E402
from apps.engine.analysis.review import review  # noqa: E402
from apps.engine.bots.choose import EASY_RANDOM  # noqa: E402
from apps.engine.bots.greedy import greedy  # noqa: E402
from apps.engine.cli.simulate import hand_seed  # noqa: E402
from apps.engine.play.hand import Hand  # noqa: E402
from apps.engine.records.replay import record_of  # noqa: E402
from apps.engine.rules import resolve_ruleset  # noqa: E402


def play(rules, seed: bytes, level: str) -> tuple[dict, dict[int, bool]]:
    """The hand's record and, per action index, whether easy chose it at random."""
    hand = Hand(rules, dealer=seed[0] % rules.players, seed=seed)
    rng = random.Random(seed)
    at_random: dict[int, bool] = {}
    index = 0
    while not hand.finished:
        seat = hand.to_act()[0]
        legal = hand.decision_actions(seat)
        if level == "easy" and HU not in legal and rng.random() < EASY_RANDOM:
            action, at_random[index] = legal[rng.randrange(len(legal))], True
        else:
            action, at_random[index] = greedy(hand, seat, legal, rng), False
        hand.apply(seat, action)
        index += 1
    return record_of(hand), at_random


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="full")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--deals", type=int, default=30)
    p.add_argument("--seed", default="rank43")
    args = p.parse_args(argv)
    rules = resolve_ruleset(args.preset, {}, players=args.players)
    losses: dict[str, list[float]] = {"easy_random": [], "easy_greedy": [], "normal": []}
    for i in range(args.deals):
        seed = hand_seed(args.seed, i)
        for level in ("easy", "normal"):
            record, at_random = play(rules, seed, level)
            for d in review(record, seed=f"{args.seed}:{i}")["decisions"]:
                key = "normal" if level == "normal" else "easy_random" if at_random[d["index"]] else "easy_greedy"
                losses[key].append(d["loss"])
    print(json.dumps({"preset": args.preset, "players": args.players, "deals": args.deals, "seed": args.seed,
                      **{k: {"mean_loss": round(statistics.mean(v), 4) if v else None, "decisions": len(v)}
                         for k, v in losses.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
