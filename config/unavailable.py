"""A page while the database is full or down: 503, a short sentence and ``Retry-After`` (issue #45).

``SessionMiddleware`` takes the place of Django's in ``MIDDLEWARE`` and adds three things:

- the page gate (``_Gate``): at most ``PAGES_AT_ONCE`` pages of a process run at once, the others
  wait their turn (``PAGES_WAIT``, then the 503), so a rush of pages leaves the tables' threads
  their turns at the GIL;

- ``process_exception``: a view (or its template, or ``request.user`` read in it) that fails on the
  database with an ``OperationalError`` or ``InterfaceError`` — the pool had no connection within
  ``DB_POOL_TIMEOUT``, PostgreSQL refused one ("too many clients"), was restarted or is down — is
  answered with templates/503.html (zh-hans, English through i18n), ``Retry-After`` and no
  traceback: one warning line in the log.
- ``process_response``: after such a failure the session is neither saved nor its cookie touched.
  The session's load may be what failed (the first ``request.user`` of a signed-in page reads it):
  Django's middleware would then look at a session that has no ``_session_cache`` (the
  ``AttributeError`` printed above the ``OperationalError`` in #45's logs is that: the load runs
  inside ``SessionBase._get_session``'s ``except AttributeError``, so the error that escapes carries
  it as its context). A session save that fails on the database gets the same 503.

Nothing is left half written: a view's writes go through ``transaction.atomic`` (the services), whose
block has rolled back by the time the error reaches here, and a pooled connection that failed is
rolled back or discarded when it goes back to the pool. The template is standalone (like 500.html):
it reads nothing of the database, so it renders whatever failed.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from django.conf import settings
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext

log = logging.getLogger(__name__)

# Seconds a client is asked to wait (Retry-After); the pool's wait comes on top for the next try.
RETRY_AFTER_SECONDS = 5
UNAVAILABLE = "_database_unavailable"  # set on a request this answered


def is_database_unavailable(exc: BaseException) -> bool:
    """The database could not be reached or used: no connection in time, refused, broken."""
    return isinstance(exc, (OperationalError, InterfaceError))


def unavailable_response(request, exc: BaseException) -> HttpResponse:
    """The 503 answer (HTML, or JSON for the pages' JSON routes) and one log line."""
    setattr(request, UNAVAILABLE, True)
    first_line = (str(exc).strip().splitlines() or [""])[0][:200]
    log.warning("database unavailable: %s %s: %s: %s", request.method, request.path,
                type(exc.__cause__ or exc).__name__, first_line)
    # (the gate answers before LocaleMiddleware has chosen the page's language: chosen here then)
    language = getattr(request, "LANGUAGE_CODE", None) or translation.get_language_from_request(request)
    with translation.override(language):
        if request.path.endswith(".json") or "application/json" in request.headers.get("Accept", ""):
            response = JsonResponse({"error": "unavailable",
                                     "message": gettext("The server is busy. Please try again in a moment.")},
                                    status=503)
        else:
            response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    response._has_been_logged = True  # (logged above as a warning: not again as django.request's error)
    return response


class _Gate:
    """At most ``settings.PAGES_AT_ONCE`` page requests of this process past the session middleware
    at once (0: no limit); the others wait their turn, at most ``PAGES_WAIT`` seconds, then get the 503.

    A page is CPU in Python: 50 pages at once in a process are 50 threads taking turns at the GIL, and
    a table's move thread then waits behind all of them for each of its turns (README #45: a rush of
    pages multiplied the tables' move p99 by 8.8 with only the pool; a page waiting here holds no
    thread in the race). Under Daphne the chain runs async: the gate is an asyncio.Semaphore of the
    process's loop; a sync chain (WSGI, the test client) gets a threading one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._threads: tuple[int, threading.BoundedSemaphore] | None = None
        self._loops: dict[int, tuple[object, int, asyncio.Semaphore]] = {}

    @staticmethod
    def size() -> int:
        return int(getattr(settings, "PAGES_AT_ONCE", 0) or 0)

    @staticmethod
    def wait() -> float:
        return float(getattr(settings, "PAGES_WAIT", 15.0))

    def threads(self) -> threading.BoundedSemaphore:
        with self._lock:
            if self._threads is None or self._threads[0] != self.size():
                self._threads = (self.size(), threading.BoundedSemaphore(self.size()))
            return self._threads[1]

    def loop(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        held = self._loops.get(id(loop))
        if held is None or held[0] is not loop or held[1] != self.size():  # (a new loop or size: tests)
            held = self._loops[id(loop)] = (loop, self.size(), asyncio.Semaphore(self.size()))
        return held[2]


GATE = _Gate()


class SessionMiddleware(DjangoSessionMiddleware):
    """Django's SessionMiddleware, answering 503 when the database fails, and the page gate
    (``PAGES_AT_ONCE``; see the module doc and ``_Gate``)."""

    def __call__(self, request):
        if self.async_mode:
            return self.__acall__(request)
        if not GATE.size():
            return super().__call__(request)
        gate = GATE.threads()
        if not gate.acquire(timeout=GATE.wait()):
            return unavailable_response(request, OperationalError("no page slot within PAGES_WAIT"))
        try:
            return super().__call__(request)
        finally:
            gate.release()

    async def __acall__(self, request):
        if not GATE.size():
            return await super().__acall__(request)
        gate = GATE.loop()
        try:
            await asyncio.wait_for(gate.acquire(), GATE.wait())
        except TimeoutError:
            return unavailable_response(request, OperationalError("no page slot within PAGES_WAIT"))
        try:
            return await super().__acall__(request)
        finally:
            gate.release()

    def process_exception(self, request, exception):
        if is_database_unavailable(exception):
            return unavailable_response(request, exception)
        return None

    def process_response(self, request, response):
        if getattr(request, UNAVAILABLE, False):
            return response  # the session may not have loaded: leave it and its cookie alone
        try:
            return super().process_response(request, response)
        except (OperationalError, InterfaceError) as exc:  # the session's save failed
            return unavailable_response(request, exc)
