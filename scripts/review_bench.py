"""What a 复盘 costs: CPU seconds to review all seats of a hand (issue #43, apps/engine/README.md "复盘").

    python scripts/review_bench.py [--hands 50] [--preset full] [--players 3] [--bots normal] [--budget-ms 80]

Plays ``--hands`` seeded hands (the seeds of ``simulate``) with ``--bots`` in every seat, reviews all
seats of each at ``--budget-ms`` and prints one JSON object: the CPU seconds per hand
(``time.process_time``, one core: the reviewer is single-threaded) as median, p90 and max, the
decisions per hand and the worlds per decision.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from apps.engine.analysis.review import DEFAULT_BUDGET_MS, review  # noqa: E402
from apps.engine.bots.choose import bot_choose  # noqa: E402
from apps.engine.cli.simulate import hand_seed  # noqa: E402
from apps.engine.play.hand import Hand  # noqa: E402
from apps.engine.records.replay import record_of  # noqa: E402
from apps.engine.rules import resolve_ruleset  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=50)
    p.add_argument("--preset", default="full")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--bots", default="normal")
    p.add_argument("--seed", default="bench43")
    p.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    args = p.parse_args(argv)
    rules = resolve_ruleset(args.preset, {}, players=args.players)
    cpu, decisions, worlds = [], [], []
    for i in range(args.hands):
        seed = hand_seed(args.seed, i)
        hand = Hand(rules, dealer=seed[0] % rules.players, seed=seed)
        rng = random.Random(seed)
        while not hand.finished:
            seat = hand.to_act()[0]
            hand.apply(seat, bot_choose(hand, seat, args.bots, rng))
        record = record_of(hand)
        c0 = time.process_time()
        result = review(record, budget_ms=args.budget_ms)
        cpu.append(time.process_time() - c0)
        decisions.append(len(result["decisions"]))
        worlds.extend(d["worlds"] for d in result["decisions"])
    ordered = sorted(cpu)
    print(json.dumps({
        "preset": args.preset, "players": args.players, "bots": args.bots, "hands": args.hands,
        "budget_ms": args.budget_ms,
        "cpu_s_per_hand": {"median": round(statistics.median(cpu), 3),
                           "p90": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 3),
                           "max": round(ordered[-1], 3)},
        "decisions_per_hand": round(statistics.mean(decisions), 1),
        "worlds_per_decision": round(statistics.mean(worlds), 1) if worlds else None,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
