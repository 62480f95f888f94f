#!/usr/bin/env bash
# The live tables benchmark (a command that prints a figure, never a timed test):
#
#   scripts/bench_tables.sh TABLES [HANDS] [DAPHNES]        (defaults: 100 1 2)
#
# On a fresh PostgreSQL database (paohuzi_bench) and Redis db (6) it starts DAPHNES Daphne
# processes on 127.0.0.1:8840..., runs `manage.py loadtest --tables TABLES --hands HANDS` against
# them (BENCH_SPREAD=table|seat, default table; BENCH_SPECTATORS=N: N admin sockets per table) and prints one JSON line: the load tool's figures
# (latency_ms p50/p95/p99, errors, verified_hands, ...) plus server_cpu_ms_per_action,
# client_cpu_ms_per_action, server_peak_rss_mb and the load average. It cleans up after itself.
# The servers run on uvloop (config/loop.py) unless SERVER_LOOP=asyncio; the load tool runs on
# uvloop whatever the servers do, unless BENCH_CLIENT_LOOP=asyncio (an A/B changes one side only).
# BENCH_SERVER=uvicorn runs the same application under uvicorn instead (a comparison of the serving
# layer only; the design keeps Daphne).
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres) and Redis on 127.0.0.1:6379.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || ./dev setup
exec .venv/bin/python scripts/bench_tables.py "$@"
