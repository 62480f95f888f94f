#!/usr/bin/env bash
# CI step for the rules engine (called by .ci/run):
#   1. 20,000 seeded bot hands across every preset and player count, with the invariants of
#      apps/engine/play/invariants.py (cards conserved, none in two places, laid group shapes, the §5.6
#      count rule) checked after every action of every hand, and the to_json/from_json round trip
#      at the end of every 4th hand (it re-runs the hand: the costliest check), random and greedy
#      bots; zero failures allowed;
#   2. each room option of RULES.md §3.8, §8.6, §9.6 (bottom_shown, escape_penalty, qi_hu,
#      score_cap, forced_win, remove_cards), a few hundred hands each, over every preset and player
#      count that accepts it (simulate --options skips the others), with the same invariants plus
#      the options' own (invariants.option_problems); with escape_penalty the simulated players
#      leave hands at random;
#   3. `python -m apps.engine replay` over every record in tests/engine/records/.
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

# room options: "name hands options" (JSON without spaces), every preset and player count that
# accepts the options; each lane plays them with its bots (so twice the hands listed).
option_runs=(
    'escape 200 {"escape_penalty":true}'
    'forced 150 {"forced_win":true}'
    'qihu18 150 {"qi_hu":18}'
    'qihu21 100 {"qi_hu":21}'
    'cap 150 {"score_cap":4}'
    'remove 150 {"remove_cards":20}'
    'bottom 150 {"bottom_shown":true,"four_player_mode":"sit_out"}'
    'all 150 {"escape_penalty":true,"forced_win":true,"qi_hu":15,"score_cap":6}'
    'all2p 150 {"escape_penalty":true,"forced_win":true,"qi_hu":18,"score_cap":3,"remove_cards":20}'
    'all4p 150 {"escape_penalty":true,"forced_win":true,"qi_hu":15,"score_cap":2,"bottom_shown":true,"four_player_mode":"sit_out"}'
)

simulate_run() {  # name, then the simulate arguments
    local name=$1
    shift
    if "$PY" -m apps.engine simulate "$@" --roundtrip-every 4 >"$out/$name.json" 2>"$out/$name.err"; then
        echo "ok" >"$out/$name.status"
    else
        echo "FAIL" >"$out/$name.status"
    fi
}

lane() {
    local lane_bots=$1
    for run in "${runs[@]}"; do
        set -- $run
        simulate_run "$1-$lane_bots" --preset "$1" --hands "$2" --seed "ci-$1-$lane_bots" --bots "$lane_bots"
    done
    for run in "${option_runs[@]}"; do
        set -- $run
        simulate_run "opt-$1-$lane_bots" --hands "$2" --seed "ci-opt-$1-$lane_bots" --bots "$lane_bots" --options "$3"
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
    line = f"{name:20} hands={r['hands']} wins={r['wins']} draws={r['draws']} invalid={r['invalid']}"
    if "escapes" in r:
        configs = sorted(f"{p}/{n}" for p, row in r["by_preset"].items() for n in row["players"])
        line += f" escapes={r['escapes']} configs={','.join(configs)}"
    print(("ok   " if ok else "FAIL ") + line + f" events={r['events']} {r['hands_per_second']}/s")
    if not ok:
        failed += 1
        for f in r.get("failures", []):
            print("     ", json.dumps(f, ensure_ascii=False))
        print((out / f"{name}.err").read_text(), end="")
print(f"simulated {total} hands")
if total < 20000 + 2 * 1500:
    print("FAIL: fewer than 20,000 preset hands and 3,000 room-option hands simulated")
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
