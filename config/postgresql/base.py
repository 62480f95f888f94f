"""Django's PostgreSQL backend with its psycopg pool (settings: DB_POOL_MAX, issue #45), and one
change: a thread named in ``settings.DB_POOL_KEEP_THREADS`` keeps the connection it took from the
pool instead of handing it back after each call.

The live tables' database threads (apps/tables/live/consumers.py ``DB_EXECUTOR``, ``WATCH_EXECUTOR``)
run a call every few milliseconds each under load; handing the connection back after every call and
taking it again costs the pool's lock, Django's connection set-up and, with health checks, a round
trip a call. Those few threads keep theirs for the life of the process (the pool counts them as
checked out: DB_POOL_MAX bounds the process all the same), and they drop it, as before the pool,
when it broke (``_in_db_thread``: ``errors_occurred``, health-checked after a second idle). Every
other thread (pages, Channels' sync thread, the embedded runner) returns its connection to the pool
at the end of each request or call (``CONN_MAX_AGE`` 0), so a rush of pages waits for a connection
rather than opening more.
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.postgresql import base


def keeps_connection() -> bool:
    """Whether the current thread keeps its pooled connection (``DB_POOL_KEEP_THREADS``)."""
    prefixes = getattr(settings, "DB_POOL_KEEP_THREADS", ())
    return bool(prefixes) and threading.current_thread().name.startswith(tuple(prefixes))


class DatabaseWrapper(base.DatabaseWrapper):
    def connect(self):
        super().connect()
        if self.pool is not None and keeps_connection():
            self.close_at = None  # never "obsolete": kept until it breaks (close_if_unusable_or_obsolete)

    def close_if_health_check_failed(self):
        """The pool checks a connection when it hands it out; a kept one is never handed out
        again, so it is checked here as without the pool (a round trip after a second idle:
        ``close_old_connections`` in ``_in_db_thread``)."""
        if self.pool is not None and self.connection is not None and self.close_at is None:
            return BaseDatabaseWrapper.close_if_health_check_failed(self)
        return super().close_if_health_check_failed()
