"""A server process loads at startup what it will run (config/warm.py, issue #29): the first hand
that ends in a process paid 150-400 ms of imports and Celery set-up inside a table's transaction,
and every socket of the process felt it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json, sys
import config.asgi
from config.celery import app
from config.warm import app_modules
print(json.dumps({
    "missing": [m for m in app_modules() if m not in sys.modules],
    "finalized": app.finalized,
    "backend": type(app._backend_cache).__module__ if app._backend_cache is not None else None,
    "loaded": [m for m in ("apps.ledgers.settlement", "apps.replays.audit.services", "celery.contrib.django.task",
                           "apps.engine.records.verifier", "channels.layers") if m in sys.modules],
    "embedded": [m for m in ("apps.embedded.runner", "apps.embedded.demo") if m in sys.modules],
    "engine_cli": "apps.engine.__main__" in sys.modules,
    "gc_threshold": gc.get_threshold(),
    "gc_frozen": gc.get_freeze_count(),
}))
"""


def _probe(**extra_env: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SERVER_GC_THRESHOLD")}
    env.update(extra_env)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_asgi_entry_point_loads_every_app_module_and_celerys_client():
    probe = _probe()
    assert probe["missing"] == []
    assert probe["finalized"] is True
    assert probe["backend"]  # the result backend is built, once for every thread (it scans package metadata)
    assert len(probe["loaded"]) == 5
    # neither the embedded server's own runner nor the engine's command line (it would run)
    assert probe["embedded"] == [] and probe["engine_cli"] is False
    # the start-up heap is frozen and full collections are made rare (#29: 33-270 ms stalls at 300 tables)
    assert probe["gc_frozen"] > 10_000
    assert probe["gc_threshold"] == [50_000, 20, 10]


def test_the_servers_gc_thresholds_come_from_the_environment():
    assert _probe(SERVER_GC_THRESHOLD="700,10,10")["gc_threshold"] == [700, 10, 10]


def test_app_modules_skip_commands_and_migrations():
    from config.warm import app_modules

    names = app_modules()
    assert "apps.tables.live.consumers" in names and "apps.ledgers.settlement" in names
    assert not [n for n in names if ".management" in n or ".migrations" in n or n.endswith("__main__")]


def test_connect_broker_survives_a_broker_that_is_down(monkeypatch, caplog):
    from config import warm
    from config.celery import app

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("no broker")

    monkeypatch.setattr(app, "producer_or_acquire", refuse)
    with caplog.at_level("INFO", logger="config.warm"):
        warm.connect_broker()
    assert "broker not reached at startup" in caplog.text
