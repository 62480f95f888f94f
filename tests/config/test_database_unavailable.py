"""Issue #45: a bounded pool of PostgreSQL connections per process, and a 503 page when the database
is full or down (config/unavailable.py, config/postgresql/base.py, settings DB_POOL_*)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import OperationalError, connection

BASE_DIR = Path(__file__).resolve().parents[2]
BUSY_ZH = "服务器繁忙，请稍后再试。"
BUSY_EN = "The server is busy. Please try again in a moment."

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql" or not connection.settings_dict["OPTIONS"].get("pool"),
    reason="PostgreSQL with Django's pool only (DATABASE_URL=postgres://..., DB_POOL_MAX > 0)")


# --- the 503 page -----------------------------------------------------------------------------------


def _failing_session_load(monkeypatch, message="sorry, too many clients already"):
    from django.contrib.sessions.backends.db import SessionStore

    def load(self):
        raise OperationalError(message)

    monkeypatch.setattr(SessionStore, "load", load)


@pytest.mark.django_db
@pytest.mark.parametrize(("lang", "text"), [("zh-hans", BUSY_ZH), ("en", BUSY_EN)])
def test_a_signed_in_page_whose_session_load_fails_answers_503(client, make_user, monkeypatch, caplog, lang, text):
    """#45's logs: "too many clients" with an AttributeError on ``_session_cache`` above it (the
    session's load runs inside ``SessionBase._get_session``'s ``except AttributeError``). Now: 503,
    the sentence in the page's language, Retry-After, one warning and no traceback, and the
    session's cookie left alone (neither saved nor deleted)."""
    client.force_login(make_user())
    _failing_session_load(monkeypatch)
    with caplog.at_level(logging.WARNING):
        response = client.get("/clubs/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 503
    assert response["Retry-After"] == "5" and "no-store" in response["Cache-Control"]
    body = response.content.decode()
    assert text in body and "503" in body
    assert "sessionid" not in response.cookies
    records = [r for r in caplog.records if r.name.startswith(("config.unavailable", "django.request"))]
    assert [r.levelname for r in records] == ["WARNING"]
    assert records[0].exc_info is None and "too many clients" in records[0].getMessage()


@pytest.mark.django_db
def test_a_json_route_gets_its_503_as_json(client, make_user, monkeypatch):
    client.force_login(make_user())
    _failing_session_load(monkeypatch, "connection refused")
    response = client.get("/clubs/", HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json() == {"error": "unavailable", "message": BUSY_ZH}


@pytest.mark.django_db
def test_a_write_that_fails_half_way_leaves_nothing(client, make_user, monkeypatch):
    """The club is created, then its owner's membership fails on the database: 503, and the
    service's transaction has rolled the club back."""
    from apps.clubs.models import Club, Membership

    client.force_login(make_user())
    clubs = Club.objects.count()

    def create(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(Membership.objects, "create", create)
    response = client.post("/clubs/new/", {"name": "half"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 503 and BUSY_ZH in response.content.decode()
    assert Club.objects.count() == clubs


@pytest.mark.django_db
def test_other_errors_are_still_500(client, make_user, monkeypatch):
    """Only the database's unavailability is a 503: a bug stays a 500 with its traceback."""
    from django.contrib.sessions.backends.db import SessionStore

    client.force_login(make_user())
    client.raise_request_exception = False

    def load(self):
        raise RuntimeError("a bug")

    monkeypatch.setattr(SessionStore, "load", load)
    assert client.get("/clubs/").status_code == 500


def test_503_template_renders_without_a_request():
    from django.template.loader import render_to_string
    from django.utils import translation

    with translation.override("zh-hans"):
        assert BUSY_ZH in render_to_string("503.html")
    with translation.override("en"):
        assert BUSY_EN in render_to_string("503.html")


# --- the settings -----------------------------------------------------------------------------------

PROBE = ("import json, django; from django.conf import settings; django.setup(); d = settings.DATABASES['default'];"
         "print(json.dumps({'engine': d['ENGINE'], 'age': d['CONN_MAX_AGE'], 'pool': d['OPTIONS'].get('pool'),"
         "'app': d['OPTIONS'].get('application_name'), 'threads': settings.TABLES_DB_THREADS}))")


def _probe(**env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DB_POOL", "DATABASE_URL", "CONN_MAX_AGE"))}
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings", SECRET_KEY="k" * 50)
    return subprocess.run([sys.executable, "-c", PROBE], cwd=BASE_DIR, env=clean, capture_output=True, text=True)


def _settings(**env) -> dict:
    out = _probe(**env)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_postgresql_gets_a_bounded_pool_from_the_environment():
    url = "postgres://u@db:5432/x"
    s = _settings(DATABASE_URL=url, CONN_MAX_AGE="60")  # (CONN_MAX_AGE is ignored with the pool)
    assert s["engine"] == "config.postgresql" and s["age"] == 0 and s["app"] == "paohuzi"
    assert s["pool"] == {"min_size": 1, "max_size": 8, "timeout": 5.0}
    s = _settings(DATABASE_URL=url, DB_POOL_MAX="12", DB_POOL_MIN="0", DB_POOL_TIMEOUT="2.5",
                  DB_APPLICATION_NAME="daphne-8001")
    assert s["pool"] == {"min_size": 0, "max_size": 12, "timeout": 2.5} and s["app"] == "daphne-8001"


def test_the_pool_off_keeps_connections_as_before():
    s = _settings(DATABASE_URL="postgres://u@db:5432/x", DB_POOL_MAX="0", CONN_MAX_AGE="60")
    assert s["engine"] == "django.db.backends.postgresql" and s["age"] == 60 and s["pool"] is None


def test_the_pool_must_hold_the_table_threads_the_watch_and_a_page():
    out = _probe(DATABASE_URL="postgres://u@db:5432/x", DB_POOL_MAX="4", TABLES_DB_THREADS="3")
    assert out.returncode != 0 and "DB_POOL_MAX=4: at least TABLES_DB_THREADS + 2 (5)" in out.stderr
    assert _settings(DATABASE_URL="postgres://u@db:5432/x", DB_POOL_MAX="5", TABLES_DB_THREADS="3")["pool"]


def test_sqlite_has_no_pool():
    s = _settings()
    assert s["engine"] == "django.db.backends.sqlite3" and s["pool"] is None and s["threads"] == 1


def test_the_table_threads_are_the_ones_that_keep_their_connection(settings):
    from apps.tables.live import consumers

    prefixes = tuple(settings.DB_POOL_KEEP_THREADS)
    assert consumers.DB_EXECUTOR._thread_name_prefix.startswith(prefixes)
    assert consumers.WATCH_EXECUTOR._thread_name_prefix.startswith(prefixes)


# --- PostgreSQL: the bound holds, and a full pool is a 503 ------------------------------------------


@pytest.fixture
def small_pool():
    """The pool of this test database, made small: ``resize(max_size, timeout)``; a unique
    application_name so its backends can be counted. Restored after."""
    options = connection.settings_dict["OPTIONS"]
    saved = dict(options["pool"]), options.get("application_name")
    name = f"pool-test-{uuid.uuid4().hex[:8]}"

    def resize(max_size: int, timeout: float) -> str:
        connection.close()
        connection.close_pool()
        options["pool"] = {"min_size": 0, "max_size": max_size, "timeout": timeout}
        options["application_name"] = name
        return name

    yield resize
    connection.close()
    connection.close_pool()
    options["pool"], options["application_name"] = saved


def _backends(name: str) -> int:
    import psycopg

    params = connection.get_connection_params()
    with psycopg.connect(dbname=params["dbname"], user=params.get("user"), host=params.get("host"),
                         port=params.get("port"), password=params.get("password"), autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                            [name]).fetchone()[0]


def _run_threads(count: int, work) -> list:
    results: list = [None] * count

    def run(i):
        try:
            results[i] = work()
        except Exception as exc:  # noqa: BLE001 - collected for the assertions
            results[i] = exc
        finally:
            connection.close()  # (back to the pool: what request_finished does for a page)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_more_concurrent_users_than_connections_wait_and_never_exceed_the_bound(small_pool):
    name = small_pool(3, 10.0)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _backends(name))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()

    def work():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.15), 1")
            return cursor.fetchone()[1]

    try:
        results = _run_threads(12, work)  # 12 at once, 3 connections: 4 waves of 0.15 s
    finally:
        done.set()
        sampler.join()
    assert results == [1] * 12
    assert 1 <= peak[0] <= 3


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_short_wait_gives_up_with_an_operational_error_never_too_many_clients(small_pool):
    name = small_pool(2, 0.3)

    def work():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(1.0), 1")
            return cursor.fetchone()[1]

    results = _run_threads(6, work)
    served = [r for r in results if r == 1]
    refused = [r for r in results if isinstance(r, OperationalError)]
    assert len(served) == 2 and len(refused) == 4, results
    assert all("too many clients" not in str(r) for r in refused)
    assert _backends(name) <= 2


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_full_pool_gives_a_503_page_in_zh_hans(client, make_user, small_pool, caplog):
    """max_size 1, held by another thread: a signed-in page waits DB_POOL_TIMEOUT, then 503."""
    client.force_login(make_user())
    small_pool(1, 0.5)
    held, release = threading.Event(), threading.Event()

    def hold():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            held.set()
            release.wait(10)

    holder = threading.Thread(target=lambda: (_run_threads(1, hold)))
    holder.start()
    try:
        assert held.wait(5)
        with caplog.at_level(logging.WARNING):
            response = client.get("/clubs/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    finally:
        release.set()
        holder.join()
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert BUSY_ZH in response.content.decode()
    assert not [r for r in caplog.records if r.exc_info]
    # the connection is back: the next page is served
    assert client.get("/clubs/", HTTP_ACCEPT_LANGUAGE="zh-hans").status_code == 200


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_table_threads_keep_their_connection_and_others_give_it_back(small_pool):
    from apps.tables.live import consumers

    # Room for this test's connection, every table thread's kept one and the page-like thread's.
    small_pool(settings.TABLES_DB_THREADS + 4, 5.0)
    # The table threads may keep connections of an earlier test's pool: each drops its own first (a
    # barrier makes every thread of the executor take one of these calls).
    barrier = threading.Barrier(settings.TABLES_DB_THREADS)

    def drop_kept():
        barrier.wait(5)
        connection.close()

    for done in [consumers.DB_EXECUTOR.submit(drop_kept) for _ in range(settings.TABLES_DB_THREADS)]:
        done.result()

    def backend_pid():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    def thread_and_backend():
        return threading.current_thread().name, backend_pid()

    # The executor's threads (TABLES_DB_THREADS) take calls in any order: each keeps its connection,
    # call after call (more calls than threads, so some thread makes several).
    calls = [consumers.DB_EXECUTOR.submit(consumers._in_db_thread, thread_and_backend, {}).result()
             for _ in range(2 * settings.TABLES_DB_THREADS + 1)]
    by_thread: dict[str, set] = {}
    for name, pid in calls:
        by_thread.setdefault(name, set()).add(pid)
    assert all(len(pids) == 1 for pids in by_thread.values()), by_thread
    held_by_table_thread = connection.pool.get_stats().get("pool_size", 0)

    other = threading.Thread(target=lambda: consumers._in_db_thread(backend_pid, {}), name="page-thread")
    other.start()
    other.join()
    stats = connection.pool.get_stats()
    assert stats.get("pool_available", 0) >= 1  # the page-like thread gave its connection back
    assert held_by_table_thread >= 1


# --- the page gate (PAGES_AT_ONCE) ------------------------------------------------------------------


@pytest.mark.django_db
def test_a_page_waits_for_a_slot_then_answers_503(client, settings):
    """PAGES_AT_ONCE pages run at once; one that gets no slot within PAGES_WAIT is a 503."""
    from config.unavailable import GATE

    settings.PAGES_AT_ONCE, settings.PAGES_WAIT = 1, 0.2
    slot = GATE.threads()
    assert slot.acquire(timeout=1)  # another page holds the only slot
    try:
        response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    finally:
        slot.release()
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert BUSY_ZH in response.content.decode()
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").status_code == 200


@pytest.mark.django_db
async def test_the_gate_of_an_async_chain_is_the_loops(async_client, settings):
    """Under Daphne the middleware chain runs async: the gate is an asyncio.Semaphore of the loop."""
    from config.unavailable import GATE

    settings.PAGES_AT_ONCE, settings.PAGES_WAIT = 1, 0.2
    slot = GATE.loop()
    await slot.acquire()
    try:
        response = await async_client.get("/", headers={"accept-language": "en"})
    finally:
        slot.release()
    assert response.status_code == 503 and BUSY_EN in response.content.decode()
    assert (await async_client.get("/", headers={"accept-language": "en"})).status_code == 200
