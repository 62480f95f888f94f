"""Does the 复盘 rank the bot levels? (issue #43, apps/engine/README.md "复盘").

    python scripts/review_ranking.py --preset full --players 3 --deals 100 [--budget-ms 80] [--seed rank43]
    python scripts/review_ranking.py ... --shard K/N > part_K.json   # deals i with i % N == K, then:
    python scripts/review_ranking.py --merge part_*.json
    python scripts/review_ranking.py --one-seat ...   # one seat plays the level, the others normal

Deal ``i`` is the seed ``sha256(f"{seed}:{i}")`` (as ``simulate``); it is played once by each level
(``easy``, ``normal``, ``hard`` in every seat, the bots drawing from ``random.Random(seed_i)``, ``hard``
at the platform's default budget), and every decision of every seat of each hand is reviewed at
``--budget-ms``. A hand's figure is its mean loss per decision; the gaps easy − normal and
normal − hard are paired by deal: ``mean ± 1.96 · sd / √deals``. Prints one JSON object (and, with
``--progress N``, the figures so far to stderr every N deals).

``--one-seat``: the duplicate design of bridge and poker bot matches. In deal ``i`` only seat
``i % players`` plays the level under test, every other seat plays ``normal``, each seat drawing
from its own ``random.Random`` (so the others' draws do not shift with the tested seat's), and only
the tested seat's decisions are reviewed: the three levels meet the same deal and the same
opponents, and the review weighs the level's decisions alone (a third of the review's cost).
"""

from __future__ import annotations

import argparse
import json
import math
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

LEVELS = ("easy", "normal", "hard")


def play(rules, seed: bytes, level: str, tested: int | None = None) -> dict:
    """Deal ``seed`` played by ``level`` in every seat, or (``tested``) by ``level`` in that seat
    and ``normal`` in the others, each seat with its own random draws."""
    hand = Hand(rules, dealer=seed[0] % rules.players, seed=seed)
    if tested is None:
        rng = random.Random(seed)
        while not hand.finished:
            seat = hand.to_act()[0]
            hand.apply(seat, bot_choose(hand, seat, level, rng))
        return record_of(hand)
    rngs = [random.Random(seed + bytes([s])) for s in range(rules.players)]
    while not hand.finished:
        seat = hand.to_act()[0]
        hand.apply(seat, bot_choose(hand, seat, level if seat == tested else "normal", rngs[seat]))
    return record_of(hand)


def interval(xs: list[float]) -> dict:
    n = len(xs)
    mean = sum(xs) / n
    half = 1.96 * statistics.stdev(xs) / math.sqrt(n) if n > 1 else math.inf
    return {"mean": round(mean, 4), "ci95": [round(mean - half, 4), round(mean + half, 4)]}


def summary(args, per_level: dict[str, list[float]], counts: dict[str, int], cpu: list[float], t0: float) -> dict:
    deals = len(per_level["easy"])
    out = {
        "preset": args.preset, "players": args.players, "deals": deals, "seed": args.seed,
        "budget_ms": args.budget_ms, "one_seat": args.one_seat,
        "mean_loss": {lv: round(sum(v) / deals, 4) for lv, v in per_level.items()},
        "decisions": counts,
        "gaps": {
            "easy-normal": interval([a - b for a, b in zip(per_level["easy"], per_level["normal"], strict=True)]),
            "normal-hard": interval([a - b for a, b in zip(per_level["normal"], per_level["hard"], strict=True)]),
        },
        "review_cpu_s_per_hand": {"median": round(statistics.median(cpu), 3), "max": round(max(cpu), 3)},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    out["ranked"] = all(g["ci95"][0] > 0 for g in out["gaps"].values())
    out["per_deal"] = {lv: [round(x, 6) for x in v] for lv, v in per_level.items()}
    out["cpu"] = [round(x, 4) for x in cpu]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="full")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", default="rank43")
    p.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    p.add_argument("--progress", type=int, default=0, metavar="N")
    p.add_argument("--one-seat", action="store_true", help="only seat i %% players plays the level (the others normal)")
    p.add_argument("--shard", default="0/1", metavar="K/N", help="only the deals i with i % N == K")
    p.add_argument("--merge", nargs="+", metavar="FILE", help="combine the outputs of the shards of one run")
    args = p.parse_args(argv)
    if args.merge:
        parts = [json.loads(Path(f).read_text().strip().splitlines()[-1]) for f in args.merge]
        first = parts[0]
        for key in ("preset", "players", "seed", "budget_ms"):
            setattr(args, key, first[key])
        args.one_seat = first.get("one_seat", False)
        merged = {lv: [x for part in parts for x in part["per_deal"][lv]] for lv in LEVELS}
        counts = {lv: sum(part["decisions"][lv] for part in parts) for lv in LEVELS}
        result = summary(args, merged, counts, [x for part in parts for x in part["cpu"]], time.perf_counter())
        result.pop("seconds")
        result["seconds_per_shard"] = [part["seconds"] for part in parts]
        print(json.dumps({k: v for k, v in result.items() if k not in ("per_deal", "cpu")}))
        return 0
    shard, shards = (int(x) for x in args.shard.split("/"))
    rules = resolve_ruleset(args.preset, {}, players=args.players)
    per_level: dict[str, list[float]] = {lv: [] for lv in LEVELS}
    counts = dict.fromkeys(LEVELS, 0)
    cpu: list[float] = []
    t0 = time.perf_counter()
    for i in range(args.deals):
        if i % shards != shard:
            continue
        seed = hand_seed(args.seed, i)
        for level in LEVELS:
            tested = i % args.players if args.one_seat else None
            record = play(rules, seed, level, tested)
            c0 = time.process_time()
            result = review(record, seat=tested, seed=f"{args.seed}:{i}", budget_ms=args.budget_ms)
            cpu.append(time.process_time() - c0)
            losses = [d["loss"] for d in result["decisions"]]
            counts[level] += len(losses)
            per_level[level].append(sum(losses) / len(losses) if losses else 0.0)
        if args.progress and len(per_level["easy"]) % args.progress == 0:
            sys.stderr.write(json.dumps(summary(args, per_level, counts, cpu, t0)) + "\n")
            sys.stderr.flush()
    print(json.dumps(summary(args, per_level, counts, cpu, t0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
