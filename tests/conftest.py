"""Shared fixtures: fast password hashing, users and clubs with members in given roles."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

_counter = itertools.count(1)

# Each test file's seconds (scripts/test_durations.py writes it from a run's JUnit report).
DURATIONS = Path(__file__).with_name("durations.json")
# A file not in it yet: a browser test's file is guessed at a minute, any other at a few seconds.
NEW_FILE_SECONDS = {True: 60.0, False: 5.0}


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts) starts one worker per core; a command that names single
    tests (``path::test``) runs them in this process instead, without the workers' start-up."""
    if config.args and all("::" in arg for arg in config.args):
        return 0
    return None  # pytest-xdist's own count


def pytest_collection_modifyitems(config, items):
    """Every test marked ``e2e`` skips (never errors) when Debian's chromium is missing, before any
    of its fixtures (a module's server) is set up; the ``browser`` fixture below skips likewise.

    And the slowest files first. With ``--dist loadfile --no-loadscope-reorder`` (pyproject's addopts)
    xdist hands whole files to its workers in this order, each taking the next when it is done:
    longest first, so that the two cores finish together instead of one running a long browser file
    alone at the end (xdist's own order, most tests first, put the one-test browser journeys last).
    Every worker sorts the same collection the same way, as xdist requires; within a file the order
    is kept."""
    if not Path(CHROMIUM).exists():
        missing = pytest.mark.skip(reason=f"Debian chromium not found at {CHROMIUM}")
        for item in items:
            if item.get_closest_marker("e2e"):
                item.add_marker(missing)
    try:
        seconds = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return

    def weight(path: str, browser: bool) -> float:
        return seconds.get(path, NEW_FILE_SECONDS[browser])

    files: dict[str, float] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if path not in files:
            files[path] = weight(path, item.get_closest_marker("e2e") is not None)
    items.sort(key=lambda item: -files[item.nodeid.split("::", 1)[0]])


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, plus: connections are persistent (CONN_MAX_AGE), so threads the tests
    ran (the sockets' DB_EXECUTOR, asgiref's) still hold some at the end. On PostgreSQL they are
    ended before the test database is dropped, which would fail while they are open. Only this
    process's own test database's (``current_database()``: pytest-django gives each xdist worker its
    own, ``test_<name>_gw0``, ``_gw1``, ...), never another worker's or another run's."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    connection.close()


@pytest.fixture(autouse=True)
def _test_settings(settings):
    """Fast password hashing; bots and 托管 play at once instead of after a human-paced delay."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.TABLES_BOT_DELAY = 0
    # 托管 plays at level hard: a small search per decision keeps the many bot hands of the tests
    # quick (the level's strength is measured by `python -m apps.engine duel`, not here).
    settings.TABLES_BOT_SEARCH_MS = 2
    settings.TABLES_BOT_SEARCH_WORLDS = 2
    # Tasks run inline in tests, with or without REDIS_URL (no worker consumes the broker here;
    # `manage.py ledger_bench` exercises real workers).
    from config.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    # Each test starts with an empty in-process cache (rate-limit counters and debounce marks are
    # keyed by ids that the next test, or the next run on a fresh database, reuses).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": "tests"}}
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _still_rate_clock(monkeypatch):
    """Rate-limit windows are fixed (a minute, a quarter, an hour): a test that counts to a limit
    would start again at zero if it straddled a window's end, so each test's clock stands still a
    second into an hour (every window used divides an hour)."""
    import time

    from apps.accounts import ratelimit

    start = (int(time.time()) // 3600) * 3600 + 1
    monkeypatch.setattr(ratelimit, "clock", lambda: start)


@pytest.fixture(autouse=True)
def _deterministic_seeds(monkeypatch, request):
    """Deals and match seatings come from seeds derived from the test's id, so a test plays the
    same hands every run and a failing test fails the same way again (the server's seeds come
    from the OS's CSPRNG)."""
    import hashlib

    from apps.matches.services import clock
    from apps.tables.transaction import session

    counter = itertools.count()

    def seed() -> bytes:
        return hashlib.sha256(f"{request.node.nodeid}:{next(counter)}".encode()).digest()

    monkeypatch.setattr(session, "new_seed", seed)
    monkeypatch.setattr(clock, "new_seed", seed)


@pytest.fixture
def make_user(db):
    """make_user(username=None, password=None, **fields) -> User (unusable password unless given)."""
    from django.contrib.auth import get_user_model

    def _make(username: str | None = None, password: str | None = None, **fields):
        username = username or f"user{next(_counter)}"
        return get_user_model().objects.create_user(username=username, password=password, **fields)

    return _make


@pytest.fixture
def make_club(db, make_user):
    """make_club(name="Club", owner=None, admins=(), members=()) -> Club, memberships created."""
    from apps.clubs import services
    from apps.clubs.models import Membership, Role

    def _make(name: str = "Club", owner=None, admins=(), members=()):
        club = services.club_create(name=name, owner=owner or make_user())
        for user in admins:
            Membership.objects.create(club=club, user=user, role=Role.ADMIN)
        for user in members:
            Membership.objects.create(club=club, user=user, role=Role.MEMBER)
        return club

    return _make


CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright cannot download browsers here
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture
def browser():
    """A headless Debian chromium driven by Playwright (browser tests); skips when either is missing."""
    from pathlib import Path

    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian chromium not found at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    (Path(__file__).resolve().parents[1] / "test-output").mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield b
        b.close()
