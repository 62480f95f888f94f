"""Celery application (settings under the CELERY_ namespace, tasks autodiscovered from the apps)."""

import atexit
import logging
import os
import queue
import threading
from functools import partial

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

log = logging.getLogger(__name__)

app = Celery("paohuzi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Celery's Django fixup closes the database connection around every task unless this is set, so a
# worker would pay a new PostgreSQL connection per task; tasks drop broken or expired connections
# themselves (close_old_connections).
app.conf["CELERY_DB_REUSE_MAX"] = int(os.environ.get("CELERY_DB_REUSE_MAX", "1000"))


@task_prerun.connect
@task_postrun.connect
def _drop_broken_db_connections(task=None, **kwargs) -> None:
    """Around every task in a worker, what Django does around every request: close_old_connections.

    With CELERY_DB_REUSE_MAX the fixup keeps a connection for many tasks and never checks it, so
    after a PostgreSQL restart every task of that worker process failed on the dead connection
    ("the connection is closed": table deadlines never fired again, tables stuck). Now each task
    starts a new "request" for the connection: it is health-checked before its first use
    (conn_health_checks) and closed when it broke or expired, so the next use connects afresh.
    Eager tasks (the default setup, tests) run inside the caller's request or transaction: not there.
    """
    if task is None or getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


def _survive_redis_restarts() -> None:
    """Keep a worker alive when Redis restarts while ``acks_late`` tasks are in flight.

    kombu 5.7.0 (the newest release) crashes the worker in that case: when the broker connection is
    lost, closing the channel tries to put the unacknowledged messages back, builds a new Redis pool
    from ``self.connection.client`` — already ``None`` — and the ``AttributeError`` ('NoneType' object
    has no attribute 'hostname', from ``Channel._connparams``) escapes as "Unrecoverable error". Seen
    here with 3,000 queued ``settle_hand`` tasks and a Redis restart (tests/config/test_celery_broker.py).
    Raising the transport's own connection error instead lets kombu treat it as what it is — the
    connection is gone — and the worker reconnects. Nothing is lost: the messages stay in Redis's
    unacked index and are restored after the visibility timeout, and ``sweep_unsettled`` re-enqueues
    any finished hand that has no ledger transaction within a minute.
    """
    try:
        import redis
        from kombu.transport import redis as kombu_redis
    except ImportError:  # no Redis transport installed
        return
    original = kombu_redis.Channel._connparams
    if getattr(original, "survives_restarts", False):
        return

    def _connparams(self, asynchronous=False):
        if self.connection is None or self.connection.client is None:
            raise redis.exceptions.ConnectionError("the broker connection is already closed")
        return original(self, asynchronous=asynchronous)

    _connparams.survives_restarts = True
    kombu_redis.Channel._connparams = _connparams


_survive_redis_restarts()


# ---- sending a task once a transaction commits ----------------------------------------------------

_outgoing: queue.SimpleQueue = queue.SimpleQueue()
_sender: threading.Thread | None = None
_sender_lock = threading.Lock()
_STOP = object()


def send_on_commit(task, *args) -> None:
    """``task.delay(*args)`` once the current transaction commits, robustly: a failure to send is
    logged and never breaks the committed work (each such task has a beat sweep that sends it
    again: ``sweep_unsettled``, ``sweep_unrecorded``).

    With a broker the send is made by this process's sender thread, not by the committing one: a
    table socket's database thread then returns at its commit instead of after a broker round trip
    and ~1.4 ms of CPU per task (a hand end sends two), and the moves of other tables no longer
    queue behind that (README #29). Eager (the embedded default, tests) runs the task inline after
    the commit, as ``delay`` does."""
    from django.db import transaction

    transaction.on_commit(partial(_send, task, args), robust=True)


def _send(task, args: tuple) -> None:
    if task.app.conf.task_always_eager:
        task.delay(*args)
        return
    _start_sender()
    _outgoing.put((task, args))


def _start_sender() -> None:
    global _sender
    if _sender is not None and _sender.is_alive():
        return
    with _sender_lock:
        if _sender is None or not _sender.is_alive():
            _sender = threading.Thread(target=_send_forever, name="celery-sender", daemon=True)
            _sender.start()


def _send_forever() -> None:
    while True:
        item = _outgoing.get()
        if item is _STOP:
            return
        task, args = item
        try:
            task.delay(*args)
        except Exception:  # noqa: BLE001 - logged; the task's beat sweep sends it again
            log.exception("sending %s%r failed", task.name, args)


@atexit.register
def _drain(timeout: float = 5.0) -> None:
    """At a clean exit, what was queued is sent first (a killed process leaves it to the sweeps)."""
    if _sender is not None and _sender.is_alive():
        _outgoing.put(_STOP)
        _sender.join(timeout)
