"""A worker drops a broken database connection between tasks (found by scripts/fault_run.sh).

With CELERY_DB_REUSE_MAX, Celery's Django fixup keeps one connection per worker process for many
tasks and never checks it. After a PostgreSQL restart every task of that process then failed on
the dead connection ("the connection is closed"): ``fire_deadlines`` never fired a deadline again
and every bot/托管 table stopped. config/celery.py now runs ``close_old_connections`` around every
task in a worker (not for eager tasks, which run inside the caller's transaction).
"""

from __future__ import annotations

from types import SimpleNamespace

import django.db
from celery.signals import task_postrun, task_prerun

import config.celery  # noqa: F401 - connects the handlers


def _task(eager: bool):
    return SimpleNamespace(request=SimpleNamespace(is_eager=eager), name="apps.tables.tasks.fire_deadlines")


def test_worker_tasks_drop_broken_connections_before_and_after(monkeypatch):
    calls = []
    monkeypatch.setattr(django.db, "close_old_connections", lambda: calls.append(1))
    task_prerun.send(sender=None, task_id="t1", task=_task(False), args=(), kwargs={})
    assert len(calls) == 1
    task_postrun.send(sender=None, task_id="t1", task=_task(False), args=(), kwargs={}, retval=0, state="SUCCESS")
    assert len(calls) == 2


def test_eager_tasks_leave_the_callers_connection_alone(monkeypatch):
    calls = []
    monkeypatch.setattr(django.db, "close_old_connections", lambda: calls.append(1))
    task_prerun.send(sender=None, task_id="t2", task=_task(True), args=(), kwargs={})
    task_postrun.send(sender=None, task_id="t2", task=_task(True), args=(), kwargs={}, retval=0, state="SUCCESS")
    assert calls == []
