"""The page-rush benchmark behind scripts/bench_pages.sh (issue #45; see there for the usage).

On a fresh PostgreSQL database (owned by a role of its own with a CONNECTION LIMIT, so a run that
runs out of connections runs the bench's role out, not the shared server) and Redis db, it starts
DAPHNES Daphne processes, each with its own ``application_name``, then:

1. ``manage.py loadtest --tables TABLES`` alone: the tables' move latency without pages;
2. the same again while PAGES requests as signed-in players (club members: home, clubs, club page,
   my ledger, leaderboard, profile) and PAGES as visitors (home, sign-in, sign-up, an invite link)
   are loaded at CONCURRENCY clients each, round robin over the servers.

While it runs a sampler reads pg_stat_activity every 20 ms: the peak backends per process. It
prints one JSON line: page status counts, errors (anything but 200/302), p50/p99 per kind, peak
backends per Daphne against the configured bound (DB_POOL_MAX), the servers' log lines with
"too many clients", "Traceback" or "_session_cache", and the move p99 with and without pages.
It stops what it started and drops the database and the role, whatever happens.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tables import PY, ROOT, fresh_services, psql, server_command, stop_and_drop, wait_port  # noqa: E402

SEED = r"""
import json, secrets
from datetime import timedelta
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from apps.clubs.models import Club, Invite, Membership

User = get_user_model()
owner = User.objects.create_user(username="pages-owner", display_name="pages owner")
club = Club.objects.create(name="pages club", owner=owner)
Membership.objects.create(club=club, user=owner, role="owner")
cookies = []
for i in range(PLAYERS):
    user = User.objects.create_user(username=f"pages-{i}", display_name=f"player {i}")
    Membership.objects.create(club=club, user=user, role="member")
    s = SessionStore()
    s[SESSION_KEY] = str(user.pk)
    s[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    s[HASH_SESSION_KEY] = user.get_session_auth_hash()
    s.save()
    cookies.append(f"{settings.SESSION_COOKIE_NAME}={s.session_key}")
invite = Invite.objects.create(club=club, code=secrets.token_hex(5).upper(), created_by=owner,
                               expires_at=timezone.now() + timedelta(days=7))
print(json.dumps({"club": club.pk, "cookies": cookies, "invite": invite.code}))
"""


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 1)


class Sampler(threading.Thread):
    """Peak backends per application_name on the bench database, sampled every 20 ms."""

    def __init__(self, db: str):
        super().__init__(daemon=True, name="bench-sampler")
        import psycopg

        self.conn = psycopg.connect(host="127.0.0.1", user="postgres", dbname="postgres", autocommit=True,
                                    application_name="bench-sampler")
        self.db = db
        self.peak: dict[str, int] = {}
        self.peak_total = 0
        self.stop = threading.Event()

    def reset(self) -> None:
        self.peak, self.peak_total = {}, 0

    def run(self) -> None:
        while not self.stop.is_set():
            rows = self.conn.execute(
                "SELECT application_name, count(*) FROM pg_stat_activity WHERE datname = %s GROUP BY 1",
                [self.db]).fetchall()
            total = 0
            for name, n in rows:
                self.peak[name] = max(self.peak.get(name, 0), n)
                total += n
            self.peak_total = max(self.peak_total, total)
            self.stop.wait(0.02)


async def fetch(host: str, port: int, path: str, cookie: str | None, timeout: float = 60.0) -> int:
    """One GET over a new connection (Connection: close): its status."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept-Language: zh-hans\r\nConnection: close\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        writer.write((head + "\r\n").encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return int(m.group(1)) if m else 0


async def load_pages(ports: list[int], paths: list[str], cookies: list[str | None], requests: int,
                     concurrency: int) -> dict:
    """``requests`` GETs at ``concurrency`` clients, round robin over servers, paths and cookies."""
    counter = iter(range(requests))
    statuses: dict[str, int] = {}
    latencies: list[float] = []

    async def client(k: int) -> None:
        for i in counter:
            port = ports[i % len(ports)]
            path = paths[i % len(paths)]
            cookie = cookies[(i + k) % len(cookies)]
            t0 = time.perf_counter()
            try:
                status = await fetch("127.0.0.1", port, path, cookie)
            except (TimeoutError, OSError):
                status = 0
            latencies.append((time.perf_counter() - t0) * 1000)
            statuses[str(status)] = statuses.get(str(status), 0) + 1

    started = time.perf_counter()
    await asyncio.gather(*(client(k) for k in range(concurrency)))
    seconds = time.perf_counter() - started
    errors = sum(n for s, n in statuses.items() if s not in ("200", "302"))
    return {"requests": requests, "concurrency": concurrency, "statuses": statuses, "errors": errors,
            "p50_ms": percentile(latencies, 0.5), "p99_ms": percentile(latencies, 0.99),
            "max_ms": percentile(latencies, 1.0), "per_second": round(requests / seconds, 1)}


def run_loadtest(env: dict, urls: str, tables: int, hands: int, pages=None) -> tuple[dict, dict | None]:
    """``manage.py loadtest``; with ``pages`` (a coroutine factory) started once its tables are ready."""
    proc = subprocess.Popen([PY, "manage.py", "loadtest", "--url", urls, "--tables", str(tables),
                             "--hands", str(hands)], cwd=ROOT, env={**env, "DB_APPLICATION_NAME": "loadtest", "PGAPPNAME": "loadtest"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    page_result = None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if pages is not None and page_result is None and "tables ready" in line:
            time.sleep(2.0)  # the first hands are dealt: pages load while moves are made
            page_result = asyncio.run(pages())
    err = proc.stderr.read()
    proc.wait()
    if proc.returncode != 0 or not lines:
        sys.stderr.write("".join(lines)[-2000:] + err[-4000:])
        raise SystemExit("bench: loadtest failed")
    return json.loads(lines[-1]), page_result


def log_counts(path: Path, start: int) -> dict:
    text = path.read_bytes()[start:].decode(errors="replace")
    return {"too_many_clients": text.count("too many clients") + text.count("too many connections"),
            "tracebacks": text.count("Traceback (most recent call last)"),
            "session_cache_errors": text.count("_session_cache"),
            "database_unavailable_503": text.count("database unavailable:")}


def main() -> int:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    pages = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    concurrency = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    daphnes = int(os.environ.get("BENCH_DAPHNES", "2"))
    # The split (deploy/: paohuzi-pages@ at Nice=10 behind nginx's page upstream): the first
    # BENCH_PAGE_DAPHNES processes serve the pages only, at BENCH_PAGE_NICE, the others the tables'
    # sockets only. 0: every process serves both (the way before the split).
    page_daphnes = int(os.environ.get("BENCH_PAGE_DAPHNES", "1"))
    page_nice = int(os.environ.get("BENCH_PAGE_NICE", "10"))
    if not 0 <= page_daphnes < daphnes:
        raise SystemExit("bench: BENCH_PAGE_DAPHNES must leave at least one Daphne for the tables")
    base_port = int(os.environ.get("BENCH_PORT", "8860"))
    db = os.environ.get("BENCH_DB", "paohuzi_pages")
    redis_db = os.environ.get("BENCH_REDIS_DB", "11")
    role = os.environ.get("BENCH_ROLE", "paohuzi_pages")
    role_limit = int(os.environ.get("BENCH_ROLE_LIMIT", "70"))
    env = fresh_services(db, redis_db)
    psql(f"DROP DATABASE IF EXISTS {db}", f"DROP ROLE IF EXISTS {role}",
         f"CREATE ROLE {role} LOGIN CONNECTION LIMIT {role_limit}", f"CREATE DATABASE {db} OWNER {role}")
    env.update({"DATABASE_URL": f"postgres://{role}@127.0.0.1:5432/{db}",
                "SECRET_KEY": env.get("SECRET_KEY") or "bench-pages-" + "k" * 40, "DEBUG": "false",
                "TABLES_STAGES_DIR": "", "TABLES_TRACE_STAGES": ""})
    log_path = Path(os.environ.get("BENCH_LOG", "/tmp/bench_pages.log"))
    log = open(log_path, "ab")
    servers: list[subprocess.Popen] = []
    sampler = None
    try:
        subprocess.run([PY, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        seed = subprocess.run([PY, "manage.py", "shell", "-c", SEED.replace("PLAYERS", "50")], cwd=ROOT, env=env,
                              check=True, capture_output=True, text=True)
        seeded = json.loads(seed.stdout.strip().splitlines()[-1])
        ports = [base_port + i for i in range(daphnes)]
        log_start = log_path.stat().st_size
        page_ports = ports[:page_daphnes] or ports
        table_ports = ports[page_daphnes:]
        for port in ports:
            niced = port in ports[:page_daphnes] and page_nice
            servers.append(subprocess.Popen(server_command("daphne", port), cwd=ROOT,
                                            env={**env, "DB_APPLICATION_NAME": f"daphne-{port}",
                                                 "PGAPPNAME": f"daphne-{port}"},  # (libpq's: older trees)
                                            stdout=log, stderr=log,
                                            preexec_fn=(lambda n=niced: os.nice(n)) if niced else None))
        for port in ports:
            wait_port(port)
        time.sleep(1.0)
        sampler = Sampler(db)
        sampler.start()
        urls = ",".join(f"http://127.0.0.1:{p}" for p in table_ports)
        club = seeded["club"]
        player_paths = ["/", "/clubs/", f"/clubs/{club}/", f"/ledgers/{club}/me/", f"/ledgers/{club}/leaderboard/",
                        "/accounts/profile/"]
        visitor_paths = ["/", "/accounts/login/", "/accounts/signup/", f"/clubs/join/{seeded['invite']}/"]

        # Unmeasured: a fresh server's first tables pay its start-up (first connections, caches,
        # imports), which would land in the "alone" phase only and flatter the ratio.
        warmup = int(os.environ.get("BENCH_WARMUP_TABLES", "10"))
        if warmup:
            run_loadtest(env, urls, warmup, 1)
        sampler.reset()
        alone, _ = run_loadtest(env, urls, tables, 1)
        peak_alone = dict(sampler.peak)
        sampler.reset()

        async def both():
            players, visitors = await asyncio.gather(
                load_pages(page_ports, player_paths, seeded["cookies"], pages, concurrency),
                load_pages(page_ports, visitor_paths, [None], pages, concurrency))
            return {"players": players, "visitors": visitors}

        loaded, page_result = run_loadtest(env, urls, tables, 1, pages=both)
        peak = dict(sampler.peak)
        time.sleep(1.0)
        bound = int(env.get("DB_POOL_MAX") or "8") or None  # (0: no pool, today's CONN_MAX_AGE)
        result = {
            "pool_max": bound,
            "page_daphnes": {f"daphne-{p}": (page_nice if page_daphnes else 0) for p in page_ports},
            "table_daphnes": [f"daphne-{p}" for p in table_ports], "conn_max_age": env.get("CONN_MAX_AGE", "60") if bound is None else 0,
            "pages": page_result,
            "page_errors": sum(p["errors"] for p in page_result.values()) if page_result else None,
            "peak_backends": {f"daphne-{p}": peak.get(f"daphne-{p}", 0) for p in ports},
            "peak_backends_all": peak, "peak_backends_tables_alone": peak_alone,
            "within_bound": (None if bound is None else all(peak.get(f"daphne-{p}", 0) <= bound for p in ports)),
            "move_p99_ms": {"alone": alone["latency_ms"]["p99"], "with_pages": loaded["latency_ms"]["p99"]},
            "move_p50_ms": {"alone": alone["latency_ms"]["p50"], "with_pages": loaded["latency_ms"]["p50"]},
            "move_p99_ratio": round(loaded["latency_ms"]["p99"] / max(alone["latency_ms"]["p99"], 0.01), 2),
            "table_errors": {"alone": alone["errors"], "with_pages": loaded["errors"]},
            "verified_hands": [alone["verified_hands"], loaded["verified_hands"], alone["hands"] + loaded["hands"]],
            "server_log": log_counts(log_path, log_start),
            "role_connection_limit": role_limit, "warmup_tables": warmup,
            "loadavg_1_5_15": [round(x, 2) for x in os.getloadavg()],
        }
        print(json.dumps(result))
        ok = (result["page_errors"] == 0 and result["within_bound"] is not False
              and not any(result["table_errors"].values()))
        return 0 if ok else 1
    finally:
        if sampler is not None:
            sampler.stop.set()
        stop_and_drop(servers, db, redis_db)
        psql(f"DROP ROLE IF EXISTS {role}")


if __name__ == "__main__":
    sys.exit(main())
