#!/usr/bin/env bash
# The page-rush benchmark (issue #45; a command that prints a figure, never a timed test):
#
#   scripts/bench_pages.sh [TABLES] [PAGES] [CONCURRENCY]        (defaults: 50 1000 50)
#
# On a fresh PostgreSQL database (paohuzi_pages, owned by a role of its own limited to
# BENCH_ROLE_LIMIT=70 connections, so running out of connections cannot starve the shared server)
# and Redis db 11, it starts 2 Daphne processes (BENCH_DAPHNES) on 127.0.0.1:8860..., each with its own
# application_name: the first BENCH_PAGE_DAPHNES (1) serve the pages only, at nice BENCH_PAGE_NICE
# (10), the others the tables' sockets only, as deploy/ routes them (BENCH_PAGE_DAPHNES=0: every
# process serves both). After an unmeasured warm-up (`loadtest --tables BENCH_WARMUP_TABLES`, 10: a
# fresh server's start-up would otherwise land in the first phase), it plays `manage.py loadtest
# --tables TABLES` alone, then again while PAGES requests
# as signed-in players and PAGES as visitors load pages at CONCURRENCY clients each. One JSON line:
# page statuses, errors, p50/p99; peak PostgreSQL backends per Daphne (pg_stat_activity, sampled
# every 20 ms) against DB_POOL_MAX; the servers' log lines with "too many clients", tracebacks or
# "_session_cache"; the tables' move p99 alone and with the pages (move_p99_ratio). Exit 0 when no
# page or table errors and every Daphne stayed within its bound. The settings come from the
# environment: `DB_POOL_MAX=0 CONN_MAX_AGE=60 scripts/bench_pages.sh` is the way before #45.
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres) and Redis on 127.0.0.1:6379. Server log:
# BENCH_LOG (default /tmp/bench_pages.log).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || ./dev setup
exec .venv/bin/python scripts/bench_pages.py "$@"
