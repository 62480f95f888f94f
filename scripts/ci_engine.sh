#!/usr/bin/env bash
# CI step for the rules engine (called by .ci/run):
#   1. 20,000 seeded bot hands across every preset and player count, with the invariants of
#      apps/engine/invariants.py (cards conserved, none in two places, laid group shapes, the §5.6
#      count rule) checked after every action of every hand, and the to_json/from_json round trip
#      at the end of every 4th hand (it re-runs the hand: the costliest check), random and greedy
#      bots; zero failures allowed;
#   2. `python -m apps.engine replay` over every record in tests/engine/records/.
# Runs in two lanes (the machine has 2 cores). Exits non-zero on any failure, printing its seed.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
start=$(date +%s)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# preset hands: 5 three-player presets x 2,000 + chenzhou 5,000 + luzhou 5,000 (2/3/4 players
# in turn) = 20,000 hands, half with random bots, half with greedy ones.
runs=(
    "basic 1000" "half 1000" "full 1000" "changsha 1000" "quanmin 1000" "chenzhou 2500" "luzhou 2500"
)

lane() {
    local lane_bots=$1
    for run in "${runs[@]}"; do
        set -- $run
        local name="$1-$lane_bots"
        if "$PY" -m apps.engine simulate --preset "$1" --hands "$2" --seed "ci-$name" --bots "$lane_bots" \
            --roundtrip-every 4 >"$out/$name.json" 2>"$out/$name.err"; then
            echo "ok" >"$out/$name.status"
        else
            echo "FAIL" >"$out/$name.status"
        fi
    done
}

lane random &
random_pid=$!
lane greedy &
greedy_pid=$!
wait "$random_pid" "$greedy_pid"

# One summary line per run; the failing runs print their failures (seed, preset, players, error).
"$PY" - "$out" <<'PYEOF'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
total = failed = 0
for status in sorted(out.glob("*.status")):
    name = status.stem
    text = (out / f"{name}.json").read_text().strip()
    ok = status.read_text().strip() == "ok"
    try:
        r = json.loads(text)
    except ValueError:
        r = None
    if r is None:
        print(f"FAIL {name}: no result\n{(out / f'{name}.err').read_text()}")
        failed += 1
        continue
    total += r["hands"]
    line = f"{name:16} hands={r['hands']} wins={r['wins']} draws={r['draws']} invalid={r['invalid']}"
    print(("ok   " if ok else "FAIL ") + line + f" events={r['events']} {r['hands_per_second']}/s")
    if not ok:
        failed += 1
        for f in r.get("failures", []):
            print("     ", json.dumps(f, ensure_ascii=False))
        print((out / f"{name}.err").read_text(), end="")
print(f"simulated {total} hands")
if total < 20000:
    print("FAIL: fewer than 20,000 hands simulated")
    failed += 1
sys.exit(1 if failed else 0)
PYEOF
status=$?
echo "simulation: $(( $(date +%s) - start ))s"

replays=0
for record in tests/engine/records/*.json; do
    if result=$("$PY" -m apps.engine replay "$record"); then
        replays=$((replays + 1))
    else
        echo "FAIL replay $record: $result"
        status=1
    fi
done
echo "replayed $replays records"
if [ "$replays" -eq 0 ]; then
    echo "FAIL: no records replayed"
    status=1
fi
echo "engine CI step: $([ $status -eq 0 ] && echo ok || echo FAILED) in $(( $(date +%s) - start ))s"
exit $status
