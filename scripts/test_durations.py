"""Write tests/durations.json, each test file's seconds, from pytest's JUnit XML reports.

    ./dev test --junitxml=/tmp/junit.xml && .venv/bin/python scripts/test_durations.py /tmp/junit.xml

tests/conftest.py hands the files to the xdist workers slowest first, so that no long browser file
starts last and leaves one core idle while the other finishes it (issue #42). Several reports (one
per database, say) are averaged. Figures are seconds on the machine that wrote them; only their
order matters, so refresh it when files are added or become much slower, not on every run.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "durations.json"


def file_seconds(report: str) -> dict[str, float]:
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).iter("testcase"):
        # classname: tests.e2e.test_x, or tests.e2e.test_x.TestSomething for a class's tests
        module = [part for part in case.get("classname", "").split(".") if not part[:1].isupper()]
        seconds["/".join(module) + ".py"] += float(case.get("time") or 0)
    return seconds


def main(reports: list[str]) -> int:
    if not reports:
        print(__doc__, file=sys.stderr)
        return 2
    runs = [file_seconds(r) for r in reports]
    files = sorted({f for run in runs for f in run})
    mean = {f: round(sum(run.get(f, 0.0) for run in runs) / len(runs), 1) for f in files}
    OUT.write_text(json.dumps(dict(sorted(mean.items(), key=lambda kv: -kv[1])), indent=0) + "\n")
    print(f"{OUT}: {len(mean)} files, {round(sum(mean.values()))} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
