"""The Celery app for ``ledger_bench --spawn-worker``: config.celery's app, reusing DB connections.

Celery's Django fixup closes every database connection before and after each task unless
``CELERY_DB_REUSE_MAX`` is set, so ``CONN_MAX_AGE`` has no effect in a worker and each settlement
pays a PostgreSQL connect (≈3 ms CPU here). The project setting belongs in config/settings.py
(``CELERY_DB_REUSE_MAX = 1000``); until then the bench starts its workers with
``celery -A apps.ledgers.bench_worker``. ``tasks.settle_hand`` calls Django's
``close_old_connections()`` itself, so a broken or expired connection is still dropped.
"""

from __future__ import annotations

from config.celery import app

if not app.conf.get("CELERY_DB_REUSE_MAX"):
    app.conf["CELERY_DB_REUSE_MAX"] = 1000

__all__ = ["app"]
