"""A real Daphne (``python -m config.server``, tests/e2e/e2e_asgi.py) on a fresh SQLite database for the browser tests.

``serve(db, seed_script, **env)`` migrates, runs ``seed_script`` in ``manage.py shell`` (its last
printed line is returned as ``seed``), starts Daphne on a free port and waits for it; it yields
``(url, seed, shell)`` where ``shell(script)`` runs more setup against the same database.

The server's database is always its own SQLite file and its channel layer in memory, whatever the
suite's ``DATABASE_URL`` and ``REDIS_URL`` say: a browser test run again on PostgreSQL + Redis
repeats the same run. ``.ci/run`` runs the suite twice, so its PostgreSQL pass sets
``E2E_SQLITE_SERVERS_RAN=1`` and these tests skip there, saying why (they ran in its SQLite pass).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MANAGE = [sys.executable, str(ROOT / "manage.py")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(db: Path, seed_script: str, **extra_env: str):
    if os.environ.get("E2E_SQLITE_SERVERS_RAN"):
        pytest.skip("this browser test's server runs on its own SQLite database whatever DATABASE_URL says: "
                    "it ran in .ci/run's SQLite pass")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "true", "REDIS_URL": "",
           "PYTHONPATH": f"{ROOT}:{ROOT / 'tests' / 'e2e'}", **extra_env}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    if not extra_env.get("E2E_TABLE_SEEDS"):
        env.pop("E2E_TABLE_SEEDS", None)

    def shell(script: str) -> str:
        done = subprocess.run([*MANAGE, "shell", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode:  # the script's own traceback, not only its exit status
            raise AssertionError(f"manage.py shell exited {done.returncode}:\n{script}\n{done.stderr[-4000:]}")
        out = done.stdout.strip().splitlines()
        return out[-1] if out else ""

    subprocess.run([*MANAGE, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    seed = shell(seed_script)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "config.server", "-b", "127.0.0.1", "-p", str(port),
                             "e2e_asgi:application"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    try:
        yield f"http://127.0.0.1:{port}", seed, shell
    finally:
        proc.terminate()
        proc.wait(timeout=10)
