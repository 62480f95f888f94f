"""The live tables benchmark behind scripts/bench_tables.sh (see there for the usage).

On a fresh PostgreSQL database and Redis db it starts DAPHNES Daphne processes, runs `manage.py
loadtest` against them and prints one JSON line: the load tool's figures plus
``server_cpu_ms_per_action`` (the servers' user+system CPU from /proc, before and after the run,
divided by the actions the load tool sent), ``client_cpu_ms_per_action`` (the load tool's own CPU),
each server's peak RSS, and the machine's load average at the end. It stops what it started and drops the
database, whatever happens.
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
UVICORN = str(ROOT / ".venv" / "bin" / "uvicorn")
TICK = os.sysconf("SC_CLK_TCK")


def server_command(server: str, port: int) -> list[str]:
    """The command of one server process. ``daphne`` is the design's server; ``uvicorn`` (uvloop,
    httptools, websockets: the dev extra) serves the same ASGI application, only to compare what
    the serving layer costs (ARCHITECTURE.md keeps Daphne)."""
    app = "config.asgi:application"
    if server == "daphne":
        return [PY, "-m", "config.server", "-p", str(port), app]  # (on uvloop unless SERVER_LOOP=asyncio)
    if server == "uvicorn":
        return [UVICORN, app, "--host", "127.0.0.1", "--port", str(port), "--loop", "uvloop",
                "--http", "httptools", "--ws", "websockets", "--no-access-log", "--log-level", "warning"]
    raise SystemExit(f"bench: BENCH_SERVER must be daphne or uvicorn, not {server!r}")


def cpu_times(pid: int) -> tuple[float, float]:
    """(utime, stime) of a process, in seconds (/proc/<pid>/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def machine_ticks() -> list[int]:
    """The machine's CPU ticks since boot, summed over its cores (the ``cpu`` line of /proc/stat):
    user, nice, system, idle, iowait, irq, softirq, steal."""
    return [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def server_stages(folder: str, processes: int) -> dict:
    """The servers' stage histograms (apps/tables/stages.py), summed: p50/p99/p99.9 per stage.
    Each process writes its file every watch round; the last round after the run is waited for."""
    sys.path.insert(0, str(ROOT))
    from apps.tables import stages  # (its merge and summary need no settings)

    files: list[Path] = []
    for _ in range(10):
        time.sleep(1.0)
        files = sorted(Path(folder).glob("stages-*.json"))
        if len(files) >= processes and time.time() - max(f.stat().st_mtime for f in files) > 2.5:
            break  # (a watch round came and went with nothing new: the run's last samples are in)
    return stages.summary(stages.merge([json.loads(f.read_text()) for f in files])) if files else {}


def wait_port(port: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"bench: no server on port {port} after {timeout}s")


def psql(*sql: str) -> None:
    for statement in sql:
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", statement], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "PGOPTIONS": "-c client_min_messages=warning"})


def fresh_services(db: str, redis_db: str) -> dict:
    """A new empty database ``db`` and an empty Redis db; the environment that points at them."""
    psql(f"DROP DATABASE IF EXISTS {db}", f"CREATE DATABASE {db}")
    subprocess.run(["redis-cli", "-h", "127.0.0.1", "-n", redis_db, "flushdb"], check=True,
                   stdout=subprocess.DEVNULL)
    # Settings refuse to start without SECRET_KEY when DEBUG is off: the bench's own, unless given.
    return {**os.environ, "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{db}",
            "REDIS_URL": f"redis://127.0.0.1:6379/{redis_db}",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50)}


def stop_and_drop(servers: list[subprocess.Popen], db: str, redis_db: str) -> None:
    """Kill the servers, empty the Redis db and drop the database (whatever happened)."""
    for p in servers:
        p.kill()
    for p in servers:
        p.wait()
    subprocess.run(["redis-cli", "-h", "127.0.0.1", "-n", redis_db, "flushdb"], stdout=subprocess.DEVNULL)
    psql(f"DROP DATABASE IF EXISTS {db}")


def main() -> int:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    hands = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    daphnes = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    spread = os.environ.get("BENCH_SPREAD", "table")
    spectators = os.environ.get("BENCH_SPECTATORS", "0")
    server = os.environ.get("BENCH_SERVER", "daphne")
    base_port = int(os.environ.get("BENCH_PORT", "8840"))
    db = os.environ.get("BENCH_DB", "paohuzi_bench")
    redis_db = os.environ.get("BENCH_REDIS_DB", "6")
    stages_dir = tempfile.mkdtemp(prefix="bench-stages-")
    env = fresh_services(db, redis_db)
    if os.environ.get("BENCH_STAGES", "1") != "0":  # the servers' stage histograms and stamps
        env.update({"TABLES_STAGES_DIR": stages_dir, "TABLES_TRACE_STAGES": "1"})
    log = open(os.environ.get("BENCH_LOG", "/tmp/bench_tables.log"), "ab")
    servers: list[subprocess.Popen] = []
    try:
        subprocess.run([PY, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        ports = [base_port + i for i in range(daphnes)]
        for port in ports:
            servers.append(subprocess.Popen(server_command(server, port), cwd=ROOT, env=env, stdout=log, stderr=log))
        for port in ports:
            wait_port(port)
        time.sleep(1.0)  # startup work (imports, gc.freeze) is not the benchmark's
        profile_dir = os.environ.get("BENCH_PROFILE", "")
        profilers = []
        if profile_dir:  # py-spy records each server under load (summarise: scripts/pyspy_top.py)
            os.makedirs(profile_dir, exist_ok=True)
            for port, p in zip(ports, servers, strict=True):
                profilers.append(subprocess.Popen(
                    [str(ROOT / ".venv" / "bin" / "py-spy"), "record", "--pid", str(p.pid), "--rate", "250", "--gil", "--nonblocking",
                     "--format", "raw", "--output", f"{profile_dir}/daphne-{port}.txt"],
                    stdout=log, stderr=log))
        before = [cpu_times(p.pid) for p in servers]
        ticks_before = machine_ticks()
        children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        urls = ",".join(f"http://127.0.0.1:{p}" for p in ports)
        run = subprocess.run([PY, "manage.py", "loadtest", "--url", urls, "--tables", str(tables),
                              "--hands", str(hands), "--spread", spread,
                              "--spectators", spectators,
                              *(["--trace", os.environ["BENCH_TRACE"]] if os.environ.get("BENCH_TRACE") else [])],
                             cwd=ROOT, env={**env, "SERVER_LOOP": os.environ.get("BENCH_CLIENT_LOOP", "uvloop")},
                             capture_output=True, text=True)
        children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        after = [cpu_times(p.pid) for p in servers]
        ticks = [a - b for a, b in zip(machine_ticks(), ticks_before, strict=True)]
        for prof in profilers:
            prof.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        for prof in profilers:
            prof.wait(timeout=60)
        if run.returncode != 0:
            sys.stderr.write(run.stdout[-2000:] + run.stderr[-4000:])
            return 1
        result = json.loads(run.stdout.strip().splitlines()[-1])
        result["server_stages_ms"] = server_stages(stages_dir, len(servers))
        actions = max(result["actions"], 1)
        server_user = sum(a[0] - b[0] for a, b in zip(after, before, strict=True))
        server_sys = sum(a[1] - b[1] for a, b in zip(after, before, strict=True))
        server_cpu = server_user + server_sys
        # (the migrate run and the redis-cli finished before children_before was read)
        client_cpu = ((children_after.ru_utime + children_after.ru_stime)
                      - (children_before.ru_utime + children_before.ru_stime))
        result.update({
            "daphnes": daphnes,
            "server": server,
            "server_cpu_s": round(server_cpu, 2),
            "server_cpu_ms_per_action": round(server_cpu * 1000 / actions, 3),
            "server_user_sys_ms_per_action": [round(server_user * 1000 / actions, 3),
                                              round(server_sys * 1000 / actions, 3)],
            "client_cpu_ms_per_action": round(client_cpu * 1000 / actions, 3),
            "server_peak_rss_mb": [peak_rss_mb(p.pid) for p in servers],
            "loadavg_1_5_15": [round(x, 2) for x in os.getloadavg()],  # at the end of the run
            # during the run, of all the machine's CPU time: busy (not idle or iowait), and stolen
            # by the hypervisor for other guests (a shared VM's noise: high steal, slower figures)
            "machine_busy_pct": round(100 * (sum(ticks) - ticks[3] - ticks[4]) / max(sum(ticks), 1), 1),
            "machine_steal_pct": round(100 * ticks[7] / max(sum(ticks), 1), 1),
        })
        print(json.dumps(result))
        ok = result["errors"] == 0 and result["verified_hands"] == result["hands"] > 0
        return 0 if ok else 1
    finally:
        stop_and_drop(servers, db, redis_db)
        shutil.rmtree(stages_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
