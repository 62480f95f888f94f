"""Live play beside a busy 复盘 worker (issue #43): ``bench_tables.sh TABLES`` alternated, once with
the machine's review work idle and once with reviews running beside it, as the review worker runs
them (deploy/: one review at a time, at nice 15).

    .venv/bin/python scripts/bench_review_beside.py [TABLES] [ROUNDS]      (defaults: 100 3)

The busy side is the review worker's CPU work itself: ``nice -n 15 python -m apps.engine review`` of
recorded 3-player hands, one after another without a pause, at the default budget (the worker adds
a row read and a row write per review, nothing a core notices). Prints one JSON line: each run's move
p99 and server CPU per action, their medians per side and the busy-over-idle ratios, and how many
reviews ran beside the busy runs.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / ".venv" / "bin" / "python")


class Reviews(threading.Thread):
    """Reviews at nice 15, one after another, until stopped."""

    def __init__(self, records: list[Path]):
        super().__init__(daemon=True)
        self.records, self.done, self.stop = records, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            record = self.records[self.done % len(self.records)]
            subprocess.run(["nice", "-n", "15", PY, "-m", "apps.engine", "review", str(record)], cwd=ROOT,
                           stdout=subprocess.DEVNULL, check=True)
            self.done += 1


def bench(tables: int) -> dict:
    out = subprocess.run(["bash", "scripts/bench_tables.sh", str(tables)], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    row = json.loads(out.strip().splitlines()[-1])
    return {"p99_ms": row["latency_ms"]["p99"], "server_cpu_ms_per_action": row["server_cpu_ms_per_action"],
            "errors": row["errors"], "verified": row["verified_hands"]}


def main() -> int:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([PY, "-m", "apps.engine", "simulate", "--preset", "full", "--players", "3", "--hands", "20",
                        "--seed", "beside", "--bots", "normal", "--records", tmp], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        records = sorted(Path(tmp).glob("*.json"))
        runs: dict[str, list[dict]] = {"idle": [], "busy": []}
        reviewed = 0
        for _ in range(rounds):
            runs["idle"].append(bench(tables))
            worker = Reviews(records)
            worker.start()
            try:
                runs["busy"].append(bench(tables))
            finally:
                worker.stop.set()
                worker.join()
            reviewed += worker.done
    med = {side: {k: statistics.median(r[k] for r in rs) for k in ("p99_ms", "server_cpu_ms_per_action")}
           for side, rs in runs.items()}
    print(json.dumps({"tables": tables, "rounds": rounds, "runs": runs, "median": med, "reviews_beside": reviewed,
                      "busy_over_idle": {k: round(med["busy"][k] / med["idle"][k], 3) for k in med["idle"]}}))
    return 0 if all(r["errors"] == 0 for rs in runs.values() for r in rs) else 1


if __name__ == "__main__":
    sys.exit(main())
