"""`manage.py serve [--host H] [--port P] [--demo]`: everything in one process.

Migrates, optionally creates demo data, starts the periodic runner (CELERY_BEAT_SCHEDULE by task
name) and serves HTTP + WebSockets with Daphne, static files included (no collectstatic needed).
With DATABASE_URL / REDIS_URL set, the same command uses PostgreSQL and Redis.
"""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from apps.embedded.runner import PeriodicRunner


class Command(BaseCommand):
    help = "Migrate, optionally load demo data, and serve HTTP + WebSockets with Daphne in-process."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--demo", action="store_true", help="create the demo club and users")
        parser.add_argument("--no-runner", action="store_true", help="do not run periodic tasks here")

    def handle(self, *args, host: str, port: int, demo: bool, no_runner: bool, **options):
        logging.basicConfig(level=logging.INFO)
        call_command("migrate", interactive=False, verbosity=1)
        if demo:
            self._demo()
        runner = None
        if not no_runner:
            runner = PeriodicRunner(getattr(settings, "CELERY_BEAT_SCHEDULE", {}) or {})
            self.stdout.write(f"Periodic runner: {len(runner.schedule)} scheduled task(s).")
        self.runner = runner
        self._serve(host, port)
        if runner is not None:
            runner.stop()

    def _demo(self) -> None:
        from apps.embedded.demo import DEMO_CLUB, DEMO_PASSWORD, create_demo_data

        rows = create_demo_data()
        self.stdout.write(
            self.style.SUCCESS(f"Demo club “{DEMO_CLUB}” ready. Users (password: {DEMO_PASSWORD}):")
        )
        for username, display_name, role in rows:
            self.stdout.write(f"  {username:<12} {display_name:<4} {role}")

    def _serve(self, host: str, port: int) -> None:
        # Importing daphne.server installs Twisted's asyncio reactor; keep it here, not at import time.
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        from config.asgi import application

        endpoints = build_endpoint_description_strings(host=host, port=port)
        runner = getattr(self, "runner", None)
        if runner is not None:
            # The runner lives in Daphne's event loop (not a thread): sends from its tasks must reach
            # the in-memory channel layer, which belongs to that loop. See apps.embedded.runner.
            from twisted.internet import reactor

            reactor.callWhenRunning(lambda: asyncio.get_event_loop().create_task(runner.run_async()))
        self.stdout.write(self.style.SUCCESS(f"Serving on http://{host}:{port}/ (Ctrl+C to stop)"))
        Server(
            application=ASGIStaticFilesHandler(application),
            endpoints=endpoints,
            signal_handlers=True,
            verbosity=1,
        ).run()
