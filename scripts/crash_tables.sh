#!/usr/bin/env bash
# Crash safety of live tables (issue "Live tables"): kill -9 the server mid-hand, start it again,
# and every table plays on from its last event and every hand verifies.
#
#   scripts/crash_tables.sh [TABLES] [HANDS] [KILL_AFTER_SECONDS]
#
# Uses $DATABASE_URL / $REDIS_URL when set (e.g. PostgreSQL + Redis), else the embedded default
# (SQLite file db.sqlite3, in-memory channel layer). A Daphne is started on port 8790 (fire_deadlines
# is not needed: the load tool's players act themselves); `manage.py loadtest` plays TABLES tables of
# HANDS hands; after KILL_AFTER_SECONDS the Daphne is killed with SIGKILL and started again a few
# seconds later; the load tool's players reconnect (as the table page does) and get the state again.
# Exit status 0 when the load tool reports zero errors and every hand verified.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLES=${1:-20}; HANDS=${2:-2}; KILL_AFTER=${3:-12}; PORT=${CRASH_PORT:-8790}
PY=.venv/bin/python
[ -x "$PY" ] || ./dev setup
"$PY" manage.py migrate -v0
OUT=$(mktemp)
start_server() { .venv/bin/python -m config.server -p "$PORT" config.asgi:application >>"$OUT.server" 2>&1 & echo $!; }
SERVER=$(start_server)
trap 'kill -9 $SERVER 2>/dev/null || true' EXIT
sleep 3
"$PY" manage.py loadtest --url "http://127.0.0.1:$PORT" --tables "$TABLES" --hands "$HANDS" \
    --think-ms 100,400 >"$OUT" 2>&1 &
LOAD=$!
sleep "$KILL_AFTER"
PLAYING=$("$PY" manage.py shell -v 0 -c "from apps.tables.models import Hand; print(Hand.objects.filter(status='playing').count())")
echo "kill -9 the server (pid $SERVER) with $PLAYING hands being played"
kill -9 "$SERVER"
sleep 3
SERVER=$(start_server)
echo "server started again (pid $SERVER)"
wait "$LOAD" || true
RESULT=$(tail -1 "$OUT")
echo "$RESULT"
"$PY" - "$RESULT" "$PLAYING" <<'PY'
import json, sys
r, playing = json.loads(sys.argv[1]), int(sys.argv[2])
ok = (playing > 0 and r["errors"] == 0 and r["hands"] > 0 and r["verified_hands"] == r["hands"]
      and r.get("reconnects", 0) > 0)
print("crash run:", "ok" if ok else "FAILED",
      f"(killed with {playing} hands in play; {r['verified_hands']}/{r['hands']} hands verified,",
      f"{r['errors']} errors, {r.get('reconnects', 0)} reconnects)")
sys.exit(0 if ok else 1)
PY
