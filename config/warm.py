"""Load at startup everything a server process will run, so no request pays for it later.

Left lazy, the first hand that ends in a Daphne process imported the settlement, the audit and
Celery's client (its result backend scans the installed packages' metadata): 150-400 ms in a
database thread, holding the import lock and the table it was finishing, which every socket of the
process felt at once (scripts/bench_tables.sh: the slowest 1% of moves were all in that moment).
``load_everything`` connects to nothing; ``connect_broker`` (run in a thread of its own, so a
broker that is down delays nothing) opens the pooled broker connection that the first task sent
would otherwise open inside a table's transaction thread.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import threading

import apps

log = logging.getLogger(__name__)

SKIP = (".management", ".migrations", ".tests", "__main__", "apps.embedded")


def app_modules() -> list[str]:
    """Every module of the project's apps, but management commands and migrations."""
    return [m.name for m in pkgutil.walk_packages(apps.__path__, prefix="apps.")
            if not any(part in m.name for part in SKIP)]


def load_everything() -> None:
    for name in app_modules():
        importlib.import_module(name)

    from channels.layers import get_channel_layer

    get_channel_layer()  # (the layer's package and serializers)

    from config.celery import app

    app.loader.import_default_modules()
    app.finalize(auto=True)  # (binds every task: 17 ms on the first task sent otherwise)
    app.backend  # noqa: B018 - built on first use otherwise
    amqp = app.amqp
    amqp.producer_pool  # noqa: B018
    # What sending a task imports on its way (Django's delay_on_commit, events, results, routes).
    for name in ("celery.contrib.django.task", "celery.events.dispatcher", "celery.result", "celery.canvas",
                 "celery.app.routes", "celery.app.events", "kombu.utils.limits", "django.contrib.sessions.serializers",
                 "encodings.idna"):
        importlib.import_module(name)


def connect_broker() -> None:
    """Open a connection of Celery's producer pool now (best effort; it stays in the pool)."""
    from config.celery import app

    try:
        with app.producer_or_acquire() as producer:
            producer.connection.ensure_connection(max_retries=1)
            producer.connection.default_channel  # noqa: B018 - (the transport's channel: a PING)
            producer.maybe_declare(app.amqp.queues[app.conf.task_default_queue])
    except Exception as exc:  # noqa: BLE001 - the first task sent connects then, as it always could
        log.info("broker not reached at startup (%s: %s)", type(exc).__name__, exc)


def connect_broker_soon() -> threading.Thread:
    thread = threading.Thread(target=connect_broker, name="warm-broker", daemon=True)
    thread.start()
    return thread
