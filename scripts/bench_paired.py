"""A paired A/B of two server variants on the live tables benchmark: both run at once, one Daphne
each, and each serves half the tables (``--spread table``), so the machine's noise (another guest,
the load tool, PostgreSQL) falls on both alike. On a shared 2-core VM, two alternated runs of
``bench_tables.sh`` differ by ±15% in CPU per action; the two arms of one paired run see the same
moment.

    .venv/bin/python scripts/bench_paired.py TABLES ARM_A ARM_B

An arm is ``-`` (this tree as it is) or comma-separated ``NAME=value`` environment settings of its
server, where ``TREE=/path`` runs the server from another checkout (``git worktree add /tmp/old
<commit>``; one without ``config/server.py`` is started with ``daphne``). Example, uvloop against
Python's loop, then the same with the arms swapped::

    .venv/bin/python scripts/bench_paired.py 300 SERVER_LOOP=asyncio -
    .venv/bin/python scripts/bench_paired.py 300 - SERVER_LOOP=asyncio

``BENCH_HANDS`` (default 1): hands per table, over which a session's own work (seating, start,
end) is shared.

The schema is this tree's (``migrate``); an older tree whose INSERTs lack this tree's newer NOT NULL
columns runs on it once ``BENCH_AFTER_MIGRATE_SQL`` (run by psql after the migration) gives those
columns database defaults and drops what the old rows would break (e.g. a unique index).

Prints one JSON line: each arm's actions (the ``action`` events of its tables, from the database),
its server's CPU seconds and CPU ms per action, ``b_over_a`` (B's CPU per action over A's) and the
load tool's ``p99_over_p50``, errors and verified hands. Needs PostgreSQL and Redis as
bench_tables.sh does; uses the database ``paohuzi_paired`` and Redis db 7, and drops them after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from bench_tables import PY, ROOT, cpu_times, fresh_services, server_command, stop_and_drop, wait_port

DB, REDIS_DB, BASE_PORT = "paohuzi_paired", "7", 8850

ACTIONS_SQL = ("SELECT table_id, count(*) FROM tables_tableevent WHERE type = 'action' "
               "GROUP BY table_id ORDER BY table_id")


def arm_process(arm: str, port: int, env: dict, log) -> subprocess.Popen:
    env = dict(env)
    if arm != "-":
        for setting in arm.split(","):
            name, _, value = setting.partition("=")
            env[name.strip()] = value
    tree = env.pop("TREE", str(ROOT))
    command = server_command("daphne", port)
    if not os.path.exists(os.path.join(tree, "config", "server.py")):  # (a tree from before it)
        command = [str(ROOT / ".venv" / "bin" / "daphne"), "-p", str(port), "config.asgi:application"]
    return subprocess.Popen(command, cwd=tree, env=env, stdout=log, stderr=log)


def main() -> int:
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    tables, arms = int(sys.argv[1]), sys.argv[2:4]
    env = fresh_services(DB, REDIS_DB)
    log = open(os.environ.get("BENCH_LOG", "/tmp/bench_tables.log"), "ab")
    servers: list[subprocess.Popen] = []
    try:
        subprocess.run([PY, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        if os.environ.get("BENCH_AFTER_MIGRATE_SQL"):  # e.g. defaults an older tree's INSERTs need
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", DB, "-v", "ON_ERROR_STOP=1",
                            "-qc", os.environ["BENCH_AFTER_MIGRATE_SQL"]], check=True)
        ports = [BASE_PORT, BASE_PORT + 1]
        servers = [arm_process(arm, port, env, log) for arm, port in zip(arms, ports, strict=True)]
        for port in ports:
            wait_port(port)
        time.sleep(1.0)  # (start-up work is not the benchmark's)
        before = [cpu_times(p.pid) for p in servers]
        run = subprocess.run([PY, "manage.py", "loadtest", "--url", ",".join(f"http://127.0.0.1:{p}" for p in ports),
                              "--tables", str(tables), "--hands", os.environ.get("BENCH_HANDS", "1"), "--spread", "table"],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        after = [cpu_times(p.pid) for p in servers]
        if run.returncode != 0:
            sys.stderr.write(run.stdout[-2000:] + run.stderr[-4000:])
            return 1
        result = json.loads(run.stdout.strip().splitlines()[-1])
        rows = subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", DB, "-Atc", ACTIONS_SQL],
                              capture_output=True, text=True, check=True).stdout.split()
        actions = [0, 0]
        for rank, row in enumerate(rows):  # the load tool sends table k's sockets to server k % 2
            actions[rank % 2] += int(row.split("|")[1])
        cpu = [sum(a) - sum(b) for a, b in zip(after, before, strict=True)]
        per_action = [1000 * c / max(n, 1) for c, n in zip(cpu, actions, strict=True)]
        print(json.dumps({
            "arms": arms, "actions": actions, "server_cpu_s": [round(c, 2) for c in cpu],
            "server_cpu_ms_per_action": [round(x, 3) for x in per_action],
            "b_over_a": round(per_action[1] / per_action[0], 3) if per_action[0] else None,
            "p99_over_p50": result["p99_over_p50"], "errors": result["errors"],
            "verified_hands": result["verified_hands"], "hands": result["hands"],
        }))
        return 0 if result["errors"] == 0 and result["verified_hands"] == result["hands"] > 0 else 1
    finally:
        stop_and_drop(servers, DB, REDIS_DB)


if __name__ == "__main__":
    sys.exit(main())
