#!/usr/bin/env bash
# The production-like topology on this machine, on loopback ports, tested by a load run through it:
#
#   nginx (127.0.0.1:$CLUSTER_PORT, 8800) -- /ws/tables/<id>/ hashed by table id --> N Daphne
#   (127.0.0.1:8801..), pages to the page Daphne(s) at nice 10 (8803..), /static/ from collectstatic;
#   one Celery worker; exactly one Celery beat;
#   nginx, the Daphnes, the worker and beat all under one supervisord (restarted when they die).
#
#   scripts/cluster.sh [TABLES] [HANDS]          (default 20 tables of 2 hands)
#
# The files are deploy/nginx/paohuzi.conf and deploy/supervisor/supervisord.conf rendered by
# deploy/render.py into a temporary directory (/etc/nginx is never touched); nginx runs with
# `nginx -c <tmp>/nginx.conf` (daemon off, under the supervisord). PostgreSQL database
# $CLUSTER_DB (default paohuzi_cluster, created fresh, dropped after) and Redis db
# $CLUSTER_REDIS_DB (default 6, flushed before and after). `manage.py loadtest` plays through
# nginx; the run passes (exit 0) when the load tool reports 0 errors and every hand verified, every
# table's sockets went to one Daphne and every page to a page Daphne (nginx's access log), a static
# file came from nginx, every
# finished hand was settled and `ledger_audit` is clean. Everything is torn down on exit.
#
# scripts/fault_run.sh sources this file (CLUSTER_LIB=1) for cluster_up / cluster_down.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
PY="$ROOT/.venv/bin/python"
CLUSTER_PORT=${CLUSTER_PORT:-8800}
CLUSTER_DAPHNE_BASE=${CLUSTER_DAPHNE_BASE:-8801}
CLUSTER_DAPHNES=${CLUSTER_DAPHNES:-2}
# The page Daphnes (nginx's paohuzi_http; supervisord's `pages`, at nice 10), on the ports after the
# table Daphnes' (README "Pages apart from the tables").
CLUSTER_PAGES=${CLUSTER_PAGES:-1}
CLUSTER_PAGE_BASE=${CLUSTER_PAGE_BASE:-$((CLUSTER_DAPHNE_BASE + CLUSTER_DAPHNES))}
CLUSTER_DB=${CLUSTER_DB:-paohuzi_cluster}
CLUSTER_REDIS_DB=${CLUSTER_REDIS_DB:-6}
CLUSTER_WORKER_CONCURRENCY=${CLUSTER_WORKER_CONCURRENCY:-2}
PG_VERSION=$(ls /etc/postgresql 2>/dev/null | head -1)
CLUSTER_DIR=""

log() { echo "[cluster $(date +%H:%M:%S)] $*" >&2; }

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; }

start_postgres() {
    pg_up && return 0
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main start || true
    for _ in $(seq 60); do pg_up && return 0; sleep 0.5; done
    log "PostgreSQL did not come up"; return 1
}

start_redis() {
    redis_up && return 0
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
    for _ in $(seq 60); do redis_up && return 0; sleep 0.5; done
    log "Redis did not come up"; return 1
}

ensure_nginx() {
    command -v nginx >/dev/null && return 0
    if [ "$(id -u)" != 0 ]; then log "nginx is missing (install Debian's nginx as root)"; return 1; fi
    log "installing nginx (apt-get)"
    # Debian's package may start its default site: the scripts only ever run their own nginx -c.
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx >/dev/null 2>&1 \
        || { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive \
             apt-get install -y --no-install-recommends nginx >/dev/null; }
}

supctl() { "$ROOT/.venv/bin/supervisorctl" -c "$CLUSTER_DIR/supervisord.conf" "$@"; }

# Wait until "$1" answers HTTP (any status) within $2 seconds.
wait_http() {
    local url=$1 secs=${2:-60}
    for _ in $(seq $((secs * 4))); do
        curl -s -o /dev/null -m 2 "$url" && return 0
        sleep 0.25
    done
    log "$url did not answer"; return 1
}

wait_log() {  # file, pattern, seconds
    for _ in $(seq $(($3 * 4))); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.25
    done
    log "no '$2' in $1"; return 1
}

cluster_up() {
    [ -x "$PY" ] || ./dev setup
    [ -x "$ROOT/.venv/bin/supervisord" ] || "$ROOT/.venv/bin/pip" install -q -e "$ROOT[deploy]"
    ensure_nginx
    start_postgres
    start_redis
    CLUSTER_DIR=$(mktemp -d /tmp/paohuzi-cluster.XXXXXX)
    mkdir -p "$CLUSTER_DIR/log" "$CLUSTER_DIR/run" "$CLUSTER_DIR/state" "$CLUSTER_DIR/nginx"
    log "directory $CLUSTER_DIR; database $CLUSTER_DB; Redis db $CLUSTER_REDIS_DB"
    psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $CLUSTER_DB" -c "CREATE DATABASE $CLUSTER_DB"
    redis-cli -h 127.0.0.1 -n "$CLUSTER_REDIS_DB" flushdb >/dev/null
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$CLUSTER_DB"
    export REDIS_URL="redis://127.0.0.1:6379/$CLUSTER_REDIS_DB"
    export ALLOWED_HOSTS="127.0.0.1,localhost"
    # DEBUG is off, so the settings require a key: this run's own unless one is given.
    export SECRET_KEY="${SECRET_KEY:-$("$PY" -c 'import secrets; print(secrets.token_urlsafe(50))')}"
    cat >"$CLUSTER_DIR/env" <<EOF
DATABASE_URL=$DATABASE_URL
REDIS_URL=$REDIS_URL
ALLOWED_HOSTS=$ALLOWED_HOSTS
SECRET_KEY=$SECRET_KEY
DEBUG=false
PYTHONUNBUFFERED=1
EOF
    "$PY" manage.py migrate -v0
    "$PY" manage.py collectstatic --noinput -v0

    local ports=() p
    for ((p = CLUSTER_DAPHNE_BASE; p < CLUSTER_DAPHNE_BASE + CLUSTER_DAPHNES; p++)); do ports+=("$p"); done
    CLUSTER_DAPHNE_PORTS="${ports[*]}"
    local page_ports=()
    for ((p = CLUSTER_PAGE_BASE; p < CLUSTER_PAGE_BASE + CLUSTER_PAGES; p++)); do page_ports+=("$p"); done
    "$PY" deploy/render.py deploy/nginx/paohuzi.conf LISTEN="127.0.0.1:$CLUSTER_PORT" SERVER_NAME=127.0.0.1 \
        STATIC_ROOT="$ROOT/staticfiles" DAPHNE_SERVERS="$("$PY" deploy/render.py --servers "${ports[@]}")" \
        PAGE_SERVERS="$("$PY" deploy/render.py --servers "${page_ports[@]}")" >"$CLUSTER_DIR/nginx/paohuzi.conf"
    # The main nginx.conf of this run: its own pid file, logs and temp dirs; the site above included.
    cat >"$CLUSTER_DIR/nginx/nginx.conf" <<EOF
daemon off;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes 1;
pid $CLUSTER_DIR/run/nginx.pid;
error_log $CLUSTER_DIR/log/nginx-error.log warn;
events { worker_connections 4096; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    log_format routed '\$remote_addr [\$time_local] "\$request" \$status \$body_bytes_sent '
                      'upstream=\$upstream_addr table=\$table_id rt=\$request_time';
    access_log $CLUSTER_DIR/log/nginx-access.log routed;
    client_body_temp_path $CLUSTER_DIR/nginx/body;
    proxy_temp_path $CLUSTER_DIR/nginx/proxy;
    fastcgi_temp_path $CLUSTER_DIR/nginx/fastcgi;
    uwsgi_temp_path $CLUSTER_DIR/nginx/uwsgi;
    scgi_temp_path $CLUSTER_DIR/nginx/scgi;
    include $CLUSTER_DIR/nginx/paohuzi.conf;
}
EOF
    nginx -t -q -p "$CLUSTER_DIR/nginx" -c "$CLUSTER_DIR/nginx/nginx.conf"
    "$PY" deploy/render.py deploy/supervisor/supervisord.conf APP_DIR="$ROOT" ENV_FILE="$CLUSTER_DIR/env" \
        RUN_DIR="$CLUSTER_DIR/run" LOG_DIR="$CLUSTER_DIR/log" STATE_DIR="$CLUSTER_DIR/state" \
        DAPHNE_PORT_BASE="$CLUSTER_DAPHNE_BASE" DAPHNE_COUNT="$CLUSTER_DAPHNES" \
        PAGE_PORT_BASE="$CLUSTER_PAGE_BASE" PAGE_COUNT="$CLUSTER_PAGES" \
        WORKER_CONCURRENCY="$CLUSTER_WORKER_CONCURRENCY" >"$CLUSTER_DIR/supervisord.conf"
    # nginx under the same supervisord here (in production it is Debian's nginx service).
    cat >>"$CLUSTER_DIR/supervisord.conf" <<EOF

[program:nginx]
command=$(command -v nginx) -p $CLUSTER_DIR/nginx -c $CLUSTER_DIR/nginx/nginx.conf
autorestart=true
startsecs=1
stopsignal=QUIT
redirect_stderr=true
stdout_logfile=$CLUSTER_DIR/log/nginx.out
EOF
    "$ROOT/.venv/bin/supervisord" -c "$CLUSTER_DIR/supervisord.conf"
    for p in "${ports[@]}" "${page_ports[@]}"; do wait_http "http://127.0.0.1:$p/" 90; done
    CLUSTER_PAGE_PORTS="${page_ports[*]}"
    wait_http "http://127.0.0.1:$CLUSTER_PORT/" 30
    wait_log "$CLUSTER_DIR/log/worker.log" "ready\." 90
    wait_log "$CLUSTER_DIR/log/beat.log" "beat: Starting" 60
    supctl status >&2
}

cluster_down() {
    local rc=$?
    set +e
    if [ -n "$CLUSTER_DIR" ] && [ -f "$CLUSTER_DIR/run/supervisord.pid" ]; then
        local spid
        spid=$(cat "$CLUSTER_DIR/run/supervisord.pid")
        supctl shutdown >/dev/null 2>&1
        for _ in $(seq 120); do kill -0 "$spid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$spid" 2>/dev/null
    fi
    start_postgres >/dev/null 2>&1  # a fault run may have stopped them: always leave them running
    start_redis >/dev/null 2>&1
    if [ -z "${CLUSTER_KEEP:-}" ]; then
        psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $CLUSTER_DB WITH (FORCE)" >/dev/null 2>&1
        redis-cli -h 127.0.0.1 -n "$CLUSTER_REDIS_DB" flushdb >/dev/null 2>&1
        [ -n "$CLUSTER_DIR" ] && rm -rf "$CLUSTER_DIR"
    else
        log "kept $CLUSTER_DIR and database $CLUSTER_DB (CLUSTER_KEEP set)"
    fi
    return $rc
}

# Every table's sockets went to one Daphne: "tables N, on one upstream M, split S" from nginx's log.
routing_report() {
    grep -o 'GET /ws/tables/[0-9]*/ [^"]*" 101 [0-9]* upstream=[0-9.:]*' "$CLUSTER_DIR/log/nginx-access.log" \
        | sed -E 's#GET /ws/tables/([0-9]+)/.* upstream=([0-9.:]+)#\1 \2#' | sort -u \
        | awk '{n[$1]++; u[$2]++} END {one=0; for (t in n) {tables++; if (n[t]==1) one++}
               printf "{\"tables\": %d, \"one_upstream\": %d, \"upstreams\": {", tables, one;
               s=""; for (k in u) {printf "%s\"%s\": %d", s, k, u[k]; s=", "} printf "}}\n"}'
}

# Pages went to the page Daphnes and sockets never did: {"pages": N, "on_page_daphnes": M,
# "sockets_on_page_daphnes": K} from nginx's log.
page_routing_report() {
    local pat
    pat=$(echo "$CLUSTER_PAGE_PORTS" | sed -E 's/ +/|/g')
    awk -v pat=":($pat)\$" '
        /upstream=/ { split($0, a, "upstream="); split(a[2], b, " "); up = b[1] }
        /"GET \/ws\// { if (up ~ pat) ws++; next }
        /"(GET|POST|HEAD) \// && $0 !~ /\/static\// && up != "-" { pages++; if (up ~ pat) on++ }
        END { printf "{\"pages\": %d, \"on_page_daphnes\": %d, \"sockets_on_page_daphnes\": %d}\n", pages, on, ws }
    ' "$CLUSTER_DIR/log/nginx-access.log"
}

if [ -n "${CLUSTER_LIB:-}" ]; then
    return 0
fi

TABLES=${1:-20}; HANDS=${2:-2}
started=$(date +%s)
trap cluster_down EXIT
cluster_up
STATIC=$(find staticfiles -type f -name '*.css' | head -1)
STATIC_URL_PATH="/static/${STATIC#staticfiles/}"
STATIC_STATUS=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$CLUSTER_PORT$STATIC_URL_PATH")
# Static files are nginx's: the Daphnes (no runserver) do not serve them.
DAPHNE_STATIC=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$CLUSTER_DAPHNE_BASE$STATIC_URL_PATH")
log "static $STATIC_URL_PATH: nginx $STATIC_STATUS, a Daphne directly $DAPHNE_STATIC"
for path in / /accounts/login/ /accounts/signup/; do
    curl -s -o /dev/null "http://127.0.0.1:$CLUSTER_PORT$path"
done
log "loadtest: $TABLES tables x $HANDS hands through nginx (http://127.0.0.1:$CLUSTER_PORT)"
"$PY" manage.py loadtest --url "http://127.0.0.1:$CLUSTER_PORT" --tables "$TABLES" --hands "$HANDS" \
    --trace "$CLUSTER_DIR/trace.txt" >"$CLUSTER_DIR/loadtest.out" 2>&1 || true
RESULT=$(tail -1 "$CLUSTER_DIR/loadtest.out")
echo "$RESULT"
# Settlement is the worker's: wait (at most 90 s) until every finished hand has its transaction.
for _ in $(seq 90); do
    LEFT=$("$PY" manage.py shell -v 0 -c "from apps.ledgers.invariants import hands_without_settlement; print(hands_without_settlement()[0])")
    [ "$LEFT" = 0 ] && break
    sleep 1
done
AUDIT_RC=0; "$PY" manage.py ledger_audit >"$CLUSTER_DIR/audit.out" 2>&1 || AUDIT_RC=$?
VERIFY_RC=0; "$PY" manage.py verify_hands >"$CLUSTER_DIR/verify.out" 2>&1 || VERIFY_RC=$?
ROUTING=$(routing_report)
PAGE_ROUTING=$(page_routing_report)
"$PY" - "$RESULT" "$ROUTING" "$PAGE_ROUTING" "$STATIC_STATUS" "$DAPHNE_STATIC" "$AUDIT_RC" "$VERIFY_RC" "$LEFT" \
    "$(( $(date +%s) - started ))" "$CLUSTER_DAPHNES" <<'PY'
import json, sys
raw, routing, page_routing, static, daphne_static, audit_rc, verify_rc, left, wall, daphnes = sys.argv[1:]
try:
    r = json.loads(raw)
except ValueError:
    print("cluster run: FAILED (the load tool printed no result)")
    sys.exit(1)
routing, page_routing = json.loads(routing), json.loads(page_routing)
out = {"cluster": {"daphnes": int(daphnes), "static_nginx": int(static), "static_daphne": int(daphne_static),
                   "routing": routing, "page_routing": page_routing, "unsettled": int(left), "ledger_audit": "clean" if audit_rc == "0" else "FAILED",
                   "verify_hands": "ok" if verify_rc == "0" else "FAILED", "wall_s": int(wall)},
       "loadtest": {k: r[k] for k in ("tables", "hands", "verified_hands", "errors", "latency_ms", "reconnects",
                                       "seconds")}}
print(json.dumps(out))
ok = (r["errors"] == 0 and r["hands"] > 0 and r["verified_hands"] == r["hands"] and static == "200"
      and daphne_static != "200" and routing["tables"] == r["tables"] and routing["one_upstream"] == r["tables"]
      and page_routing["pages"] >= 3 and page_routing["on_page_daphnes"] == page_routing["pages"]
      and page_routing["sockets_on_page_daphnes"] == 0
      and audit_rc == "0" and verify_rc == "0" and left == "0")
print("cluster run:", "ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
PY
