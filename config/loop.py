"""The event loop the servers run on: uvloop's (libuv, in C) unless ``SERVER_LOOP=asyncio``.

Daphne makes its loop when ``daphne.server`` is first imported (Twisted's asyncio reactor runs on
it), so the loop's policy must be set before that, and before Django's settings are loaded: it is
read here from the environment, by the entries that start a loop: ``python -m config.server``
(Daphne's command line, what deployments run) and ``manage.py`` (``serve``, ``runserver`` and the
load tool, ``loadtest``). Tests that drive consumers in-process run on pytest's own loop.

On the live tables benchmark at 300 tables (issue #29) uvloop cut the servers' CPU per action by
5-7% (scripts/bench_paired.py, both loops at once: 0.927 and 0.945 of Python's loop's): the share
of the loop's own work (callbacks, futures, the selector) in Twisted's reads and writes, Channels'
tasks, the Redis client and the hand-off to database threads.
"""

from __future__ import annotations

import asyncio
import os

LOOPS = ("uvloop", "asyncio")


def chosen() -> str:
    """``SERVER_LOOP`` from the environment (default ``uvloop``); an unknown name is refused."""
    name = os.environ.get("SERVER_LOOP", "").strip().lower() or "uvloop"
    if name not in LOOPS:
        raise SystemExit(f"SERVER_LOOP must be one of {', '.join(LOOPS)}, not {name!r}")
    return name


def install() -> str:
    """Make the chosen loop the one ``asyncio.new_event_loop`` gives from now on; its name."""
    name = chosen()
    if name == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    else:
        asyncio.set_event_loop_policy(asyncio.DefaultEventLoopPolicy())
    return name
