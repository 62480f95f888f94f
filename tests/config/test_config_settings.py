"""Settings from the environment, the ASGI router, the periodic runner and the serve command."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator

BASE_DIR = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; from django.conf import settings; django.setup(); print(json.dumps({"
    "'db': settings.DATABASES['default']['ENGINE'], 'layer': settings.CHANNEL_LAYERS['default']['BACKEND'],"
    "'eager': settings.CELERY_TASK_ALWAYS_EAGER, 'debug': settings.DEBUG, 'hosts': settings.ALLOWED_HOSTS,"
    "'lang': settings.LANGUAGE_CODE, 'user': settings.AUTH_USER_MODEL, 'key': settings.SECRET_KEY}))"
)


def _probe(**env) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "ALLOWED_HOSTS"}
    }
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=BASE_DIR, env=clean, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_embedded_defaults():
    s = _probe()
    assert s["db"] == "django.db.backends.sqlite3"
    assert s["layer"] == "channels.layers.InMemoryChannelLayer"
    assert s["eager"] is True and s["debug"] is False
    assert s["lang"] == "zh-hans" and s["user"] == "accounts.User"


def test_environment_overrides():
    s = _probe(
        DATABASE_URL="postgres://u@db:5432/x",
        REDIS_URL="redis://r:6379/0",
        DEBUG="true",
        ALLOWED_HOSTS="a.example,b.example",
        SECRET_KEY="k" * 50,
    )
    assert s["db"] == "config.postgresql"  # Django's PostgreSQL backend and its pool (config/postgresql/base.py, #45)
    assert s["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert s["eager"] is False and s["debug"] is True
    assert s["hosts"] == ["a.example", "b.example"] and s["key"] == "k" * 50


@pytest.mark.parametrize(("worker", "db", "prefix"), [("", 8, "asgi"), ("gw0", 8, "asgi-test8"), ("gw1", 9, "asgi-test9")])
def test_each_test_worker_has_its_own_redis_database_and_channels(worker, db, prefix):
    """pytest-xdist's worker gwN (README "The two commands"): Redis database REDIS_URL's + N for the
    channel layer, Celery and the cache, and pub/sub channels of its own (Redis shares pub/sub across
    its databases); outside a worker, REDIS_URL as given and channels_redis's prefix."""
    probe = ("import json, django; from django.conf import settings; django.setup(); "
             "layer = settings.CHANNEL_LAYERS['default']['CONFIG']; print(json.dumps([layer['hosts'][0]['address'], "
             "layer['prefix'], settings.CELERY_BROKER_URL, settings.CELERY_RESULT_BACKEND, "
             "settings.CACHES['default']['LOCATION']]))")
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "PYTEST_XDIST_WORKER"}}
    env.update(REDIS_URL="redis://r:6379/8", PYTEST_XDIST_WORKER=worker, DJANGO_SETTINGS_MODULE="config.settings")
    out = subprocess.run([sys.executable, "-c", probe], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()[-1]
    url = f"redis://r:6379/{db}"
    assert json.loads(out) == [url, prefix, url, url, url]


def test_websocket_routes_are_collected_from_config_routing():
    from config import routing
    from config.asgi import application

    assert isinstance(routing.websocket_urlpatterns, list)
    assert "websocket" in application.application_mapping


async def test_websocket_from_foreign_origin_is_refused():
    from config.asgi import application

    communicator = WebsocketCommunicator(
        application, "/ws/nothing/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert connected is False


def _find_router(app):
    """Unwrap origin validator and auth/session/cookie middleware down to the URLRouter."""
    for _ in range(10):
        if hasattr(app, "routes"):
            return app
        app = getattr(app, "application", None) or getattr(app, "inner", None)
    raise AssertionError("no URLRouter in the websocket stack")


@pytest.mark.django_db(transaction=True)
async def test_websocket_route_table_is_consulted():
    from channels.generic.websocket import WebsocketConsumer
    from django.urls import path

    from config import routing
    from config.asgi import application

    class Echo(WebsocketConsumer):
        def connect(self):
            self.accept()

    router = _find_router(application.application_mapping["websocket"])
    assert router.routes is routing.websocket_urlpatterns  # apps add routes to that one list
    route = path("ws/echo-test/", Echo.as_asgi())
    router.routes.append(route)
    try:
        communicator = WebsocketCommunicator(
            application, "/ws/echo-test/", headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")]
        )
        connected, _ = await communicator.connect()
        assert connected is True
        await communicator.disconnect()
    finally:
        router.routes.remove(route)
    assert route not in routing.websocket_urlpatterns


def test_interval_seconds():
    from celery.schedules import schedule

    from apps.embedded.runner import interval_seconds

    assert interval_seconds(2) == 2.0
    assert interval_seconds(timedelta(minutes=1)) == 60.0
    assert interval_seconds(schedule(run_every=timedelta(seconds=5))) == 5.0
    assert interval_seconds("nope") is None


def test_runner_runs_tasks_by_name_and_survives_errors(caplog):
    from celery import Celery

    from apps.embedded.runner import PeriodicRunner

    app = Celery("runner-test", set_as_current=False)
    calls = []

    @app.task(name="test.ok")
    def ok(x):
        calls.append(x)

    @app.task(name="test.boom")
    def boom():
        raise RuntimeError("boom")

    schedule = {
        "ok": {"task": "test.ok", "schedule": 0.05, "args": (7,)},
        "boom": {"task": "test.boom", "schedule": 0.05},
        "missing": {"task": "test.missing", "schedule": 0.05},
    }
    runner = PeriodicRunner(schedule, celery_app=app, tick=0.01)
    with caplog.at_level(logging.WARNING):
        runner.start()
        import time

        deadline = time.time() + 5
        while len(calls) < 3 and time.time() < deadline:
            time.sleep(0.02)
        runner.stop()
        runner.join(timeout=2)
    assert calls[:3] == [7, 7, 7]
    assert runner.is_alive() is False
    assert "test.boom" in caplog.text and "test.missing" in caplog.text


@pytest.mark.django_db
def test_demo_data_is_idempotent():
    from apps.clubs.models import Club, Membership, RuleTemplate
    from apps.embedded.demo import DEMO_CLUB, DEMO_PASSWORD, create_demo_data

    create_demo_data()
    create_demo_data()
    club = Club.objects.get(name=DEMO_CLUB)
    assert Membership.objects.filter(club=club).count() == 5
    assert RuleTemplate.objects.filter(club=club).count() == 2
    assert club.owner.check_password(DEMO_PASSWORD)
    assert all(t.resolve_ruleset() for t in RuleTemplate.objects.filter(club=club))


@pytest.mark.django_db
def test_serve_command_migrates_seeds_and_serves(monkeypatch):
    from django.core.management import call_command

    from apps.clubs.models import Club
    from apps.embedded.management.commands import serve

    served = {}
    monkeypatch.setattr(serve.Command, "_serve", lambda self, host, port: served.update(host=host, port=port))
    call_command("serve", "--demo", "--port", "8123", "--no-runner")
    assert served == {"host": "127.0.0.1", "port": 8123}
    assert Club.objects.filter(name="演示俱乐部").exists()


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", False),  # issue 12: another port is another site
        ("http://localhost", "localhost", True),
        ("http://localhost:80", "localhost", True),
        ("https://localhost", "localhost", True),  # a TLS proxy in front: same host, default port
        ("http://evil.example", "evil.example", False),  # not in ALLOWED_HOSTS
        ("http://testserver", None, True),
        ("http://testserver:8001", None, False),
        ("null", "localhost", False),
        ("", "localhost", False),
        (None, "localhost", False),
        ("http://[::1]:8000", "[::1]:8000", True),
    ],
)
def test_websocket_origin_must_be_this_site(origin, host, allowed):
    from config.origin import origin_allowed

    assert origin_allowed(origin, host) is allowed


def test_websocket_origin_trusted_origins(settings):
    from config.origin import origin_allowed

    settings.CSRF_TRUSTED_ORIGINS = ["https://paohuzi.example.com"]
    assert origin_allowed("https://paohuzi.example.com", "127.0.0.1:8001") is True
    assert origin_allowed("https://paohuzi.example.com:8443", "127.0.0.1:8001") is False


async def test_websocket_from_another_port_is_refused():
    from config.asgi import application

    communicator = WebsocketCommunicator(
        application, "/ws/tables/1/", headers=[(b"origin", b"http://127.0.0.1:9999"), (b"host", b"127.0.0.1:8000")]
    )
    connected, _ = await communicator.connect()
    assert connected is False
