#!/usr/bin/env bash
# Fault run on the production-like topology (scripts/cluster.sh): while tables play through nginx,
# kill -9 a Daphne, kill -9 the Celery worker, restart Redis, restart PostgreSQL; then require that
# nothing is lost, doubled or stuck (scripts/fault_run.py prints the JSON line and decides).
#
#   scripts/fault_run.sh [--short]     --short: each fault once (CI); default: 3 rounds of all four
#
# Uses its own PostgreSQL database (paohuzi_fault, created fresh, dropped after) and Redis db 7.
# Redis and PostgreSQL are restarted for real (every client of this machine's servers sees it);
# they are always left running, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=3; TABLES=16; HANDS=16; BOT_TABLES=8; BOT_HANDS=6; GAP=6; END_WAIT=180
if [ "${1:-}" = "--short" ]; then
    ROUNDS=1; TABLES=10; HANDS=4; BOT_TABLES=5; BOT_HANDS=2; GAP=4; END_WAIT=20
fi
export CLUSTER_DB=${CLUSTER_DB:-paohuzi_fault} CLUSTER_REDIS_DB=${CLUSTER_REDIS_DB:-7}
export CLUSTER_PORT=${CLUSTER_PORT:-8810} CLUSTER_DAPHNE_BASE=${CLUSTER_DAPHNE_BASE:-8811}
CLUSTER_LIB=1 source scripts/cluster.sh
started=$(date +%s)
trap cluster_down EXIT
cluster_up
OUT="$CLUSTER_DIR/fault"; mkdir -p "$OUT"
RC=0
"$PY" scripts/fault_run.py --url "http://127.0.0.1:$CLUSTER_PORT" --supervisor-conf "$CLUSTER_DIR/supervisord.conf" \
    --daphne-ports "${CLUSTER_DAPHNE_PORTS// /,}" --pg-version "$PG_VERSION" --rounds "$ROUNDS" \
    --tables "$TABLES" --hands "$HANDS" --bot-tables "$BOT_TABLES" --bot-hands "$BOT_HANDS" --gap "$GAP" --end-wait "$END_WAIT" \
    --out "$OUT" || RC=$?
log "fault run: $([ $RC = 0 ] && echo ok || echo FAILED) in $(( $(date +%s) - started ))s"
if [ $RC != 0 ]; then  # the evidence, before the teardown removes it
    tail -5 "$OUT/loadtest.out" >&2 || true
    grep -h -A3 "Traceback\|ERROR\|Unrecoverable" "$CLUSTER_DIR"/log/worker.log "$CLUSTER_DIR"/log/beat.log 2>/dev/null \
        | tail -40 >&2 || true
fi
exit $RC
