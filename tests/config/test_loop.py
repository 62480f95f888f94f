"""The servers' event loop (config/loop.py, issue #29): Daphne runs on uvloop unless
``SERVER_LOOP=asyncio``, whichever entry starts it, and a server on it serves and stops cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.e2e_server import free_port

ROOT = Path(__file__).resolve().parents[2]

# Daphne's command line imports daphne.server (which makes the loop) before it parses its
# arguments: ``--help`` stops it right after, and the probe reads the loop it made.
SERVER_PROBE = """
import json, sys
sys.argv = ["config.server", "--help"]
from config import server
try:
    server.main()
except SystemExit:
    pass
import daphne.server
print(json.dumps({"loop": type(daphne.server.twisted_loop).__module__}))
"""

MANAGE_PROBE = "import daphne.server, json; print(json.dumps({'loop': type(daphne.server.twisted_loop).__module__}))"


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SERVER_LOOP")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(extra)
    return env


def _last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def _server_loop(**extra: str) -> str:
    out = subprocess.run([sys.executable, "-c", SERVER_PROBE], cwd=ROOT, env=_env(**extra), capture_output=True,
                         text=True, timeout=120, check=True)
    return _last_json(out.stdout)["loop"]


def test_the_server_entry_runs_daphne_on_uvloop():
    assert _server_loop() == "uvloop"


def test_server_loop_asyncio_keeps_pythons_own_loop():
    assert _server_loop(SERVER_LOOP="asyncio") == "asyncio.unix_events"


def test_an_unknown_loop_is_refused_with_a_clear_message():
    run = subprocess.run([sys.executable, "-m", "config.server", "-p", "1", "config.asgi:application"], cwd=ROOT,
                         env=_env(SERVER_LOOP="libev"), capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "SERVER_LOOP must be one of uvloop, asyncio, not 'libev'" in run.stderr


def test_manage_py_serves_on_the_same_loop():
    """``manage.py serve``/``runserver`` and the load tool start their loops after manage.py chose it."""
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", MANAGE_PROBE], cwd=ROOT, env=_env(),
                         capture_output=True, text=True, timeout=120, check=True)
    assert _last_json(out.stdout)["loop"] == "uvloop"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_server_on_uvloop_serves_a_page_and_stops_on_a_signal(tmp_path, stop):
    env = _env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", DEBUG="true", REDIS_URL="")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "config.server", "-b", "127.0.0.1", "-p", str(port),
                             "config.asgi:application"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        body, deadline = None, time.time() + 60
        while body is None and time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=5) as resp:
                    assert resp.status == 200
                    body = resp.read().decode()
            except OSError:
                time.sleep(0.2)
        assert body is not None and "<form" in body
        proc.send_signal(stop)
        assert proc.wait(timeout=15) is not None  # stopped, not hung in the loop
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in proc.stderr.read()
