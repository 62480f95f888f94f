"""An in-process stand-in for Celery beat: runs every CELERY_BEAT_SCHEDULE entry at its interval.

Tasks are looked up by NAME in the Celery app, as beat does. An
exception is logged and the loop goes on: a task error never kills the server.

Two ways to run it:
- ``run_async()`` — under ``manage.py serve``: an asyncio task in Daphne's own event loop; each task
  runs in a worker thread (``sync_to_async(thread_sensitive=False)``). What a task sends through
  the channel layer (``async_to_sync(group_send)`` inside that thread) then runs on Daphne's loop,
  where the in-memory channel layer and the sockets' queues live, so time-outs and bot moves reach
  the open sockets.
- ``start()`` — a plain thread (the tasks run in it); only right with a cross-process channel layer
  (Redis), since an in-memory layer's messages sent from another loop are never delivered.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from datetime import timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

log = logging.getLogger(__name__)


def interval_seconds(schedule: Any) -> float | None:
    """Seconds between runs for a number, a timedelta or a celery ``schedule``; None if unknown."""
    if isinstance(schedule, bool):
        return None
    if isinstance(schedule, int | float):
        return float(schedule)
    if isinstance(schedule, timedelta):
        return schedule.total_seconds()
    run_every = getattr(schedule, "run_every", None)
    if isinstance(run_every, timedelta):
        return run_every.total_seconds()
    return None


class PeriodicRunner(threading.Thread):
    def __init__(self, schedule: dict[str, dict], *, celery_app=None, tick: float = 0.5):
        super().__init__(name="periodic-runner", daemon=True)
        self.schedule = schedule
        self.celery_app = celery_app
        self.tick = tick
        self.stop_event = threading.Event()
        self.runs: dict[str, int] = {}

    def stop(self) -> None:
        self.stop_event.set()

    def _app(self):
        if self.celery_app is None:
            from config.celery import app

            # Autodiscovery is lazy outside a worker: import every installed app's tasks module now.
            try:
                app.autodiscover_tasks(force=True)
            except Exception:
                log.exception("periodic runner: task autodiscovery failed")
            self.celery_app = app
        return self.celery_app

    def run_entry(self, key: str, entry: dict) -> None:
        name = entry.get("task", key)
        try:
            task = self._app().tasks.get(name)
            if task is None:
                log.warning("periodic runner: no task named %r (entry %r)", name, key)
                return
            task(*entry.get("args", ()), **entry.get("kwargs", {}))
            self.runs[key] = self.runs.get(key, 0) + 1
        except Exception:
            log.exception("periodic runner: task %r failed", name)
        finally:
            close_old_connections()

    def _first_due(self) -> dict[str, float]:
        due: dict[str, float] = {}
        now = time.monotonic()
        for key, entry in self.schedule.items():
            seconds = interval_seconds(entry.get("schedule"))
            if seconds is None or seconds <= 0:
                log.warning("periodic runner: entry %r has no usable interval; skipped", key)
                continue
            due[key] = now + seconds
        return due

    def run(self) -> None:
        self._app()
        due = self._first_due()
        while not self.stop_event.is_set():
            now = time.monotonic()
            for key, when in list(due.items()):
                if now >= when:
                    self.run_entry(key, self.schedule[key])
                    due[key] = time.monotonic() + interval_seconds(self.schedule[key]["schedule"])
            self.stop_event.wait(self.tick)

    async def run_async(self) -> None:
        """The same schedule as a task of the running event loop (see the module doc)."""
        in_thread = sync_to_async(self.run_entry, thread_sensitive=False)
        await sync_to_async(self._app, thread_sensitive=False)()
        due = self._first_due()
        while not self.stop_event.is_set():
            now = time.monotonic()
            for key, when in list(due.items()):
                if now >= when:
                    try:
                        await in_thread(key, self.schedule[key])
                    except Exception:  # run_entry logs task errors itself; never stop the loop
                        log.exception("periodic runner: entry %r failed", key)
                    due[key] = time.monotonic() + interval_seconds(self.schedule[key]["schedule"])
            await asyncio.sleep(self.tick)
