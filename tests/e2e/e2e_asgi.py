"""The project's ASGI application plus static files, for browser tests served by a bare Daphne.

Test hooks (this module is only ever loaded by the browser tests' Daphne):
- ``E2E_TABLE_SEEDS`` (hex seeds, comma-separated): the next hands are dealt from these seeds, in
  order (then random again), so a test can replay a deal known to end in a win.
- The periodic runner (fire_deadlines, ...) runs inside Daphne's event loop, like ``manage.py serve``.
"""

import asyncio
import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from config.asgi import application as project_application

_seeds = [bytes.fromhex(s) for s in os.environ.get("E2E_TABLE_SEEDS", "").split(",") if s.strip()]
if _seeds:
    from apps.tables.transaction import session

    _random_seed = session.new_seed

    def _next_seed() -> bytes:
        return _seeds.pop(0) if _seeds else _random_seed()

    session.new_seed = _next_seed

_static = ASGIStaticFilesHandler(project_application)
_runner_started = False


async def application(scope, receive, send):
    global _runner_started
    if not _runner_started:
        _runner_started = True
        from django.conf import settings

        from apps.embedded.runner import PeriodicRunner

        runner = PeriodicRunner(getattr(settings, "CELERY_BEAT_SCHEDULE", {}) or {})
        asyncio.get_running_loop().create_task(runner.run_async())
    return await _static(scope, receive, send)
