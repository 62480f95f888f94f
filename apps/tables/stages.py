"""Where a move's time goes: the stages of one socket action, timed, and a histogram per stage.

A socket action is stamped (wall clock, ``time.time()``, so the stamps of two processes on one
machine compare) as it passes each stage; its update carries the stamps (``message["trace"]``)
through the channel layer to every process at the table:

    recv    the consumer has the frame                       \
    thread  a database thread begins the call                 | queue  = thread - recv
    lock    the table row lock is taken                       | lock   = lock - thread
    commit  the transaction has committed                     | work   = commit - lock
    back    the event loop has the call's result              | return = back - commit
    pub     the update is handed to the channel layer         | publish = pub - back
    hub     a process's hub has received it                   | transit = hub - pub
    out     a socket at the table forwards it                 | deliver = out - hub (order, backlog)
                                                             /  send   = the socket's send itself

Each process keeps one histogram per stage (``record``; log-spaced buckets, a few hundred
nanoseconds a sample, always on), plus ``loop_lag``: how late its event loop wakes a 50 ms timer,
``gc``: the cyclic collector's full collections (every thread stops meanwhile), and ``watch``:
each round of the catch-up watch and presence touch (watch.py), in its own database thread.
``settings.TABLES_STAGES_DIR`` has each process write its histograms there every watch round
(``dump``; scripts/bench_tables.py merges them), and ``settings.TABLES_TRACE_STAGES`` adds the
stamps to the ``update`` a socket sends (the load tool breaks each round trip down with them; off
in production: the page has no use for them).
"""

from __future__ import annotations

import asyncio
import bisect
import gc
import json
import os
import threading
import time
from pathlib import Path

from django.conf import settings

STAGES = ("queue", "lock", "work", "return", "publish", "transit", "deliver", "send", "loop_lag", "gc", "watch")
# The stamps of a trace, in the order an action passes them; each stage is the time between two.
STAMPS = ("recv", "thread", "lock", "commit", "back", "pub", "hub", "out")

# Bucket upper bounds in ms: 0.02 ms to ~40 s, each 15% above the last (percentiles within 15%).
BOUNDS = [0.02 * 1.15 ** i for i in range(104)]
LAG_EVERY = 0.05  # the loop-lag timer's period, seconds

_lock = threading.Lock()
_counts: dict[str, list[int]] = {}
_local = threading.local()


def record(stage: str, ms: float) -> None:
    """Count one sample of ``stage`` (ms)."""
    i = bisect.bisect_left(BOUNDS, ms)
    with _lock:
        counts = _counts.get(stage)
        if counts is None:
            counts = _counts[stage] = [0] * (len(BOUNDS) + 1)
        counts[i] += 1


def counts() -> dict[str, list[int]]:
    with _lock:
        return {stage: list(c) for stage, c in _counts.items()}


def reset() -> None:
    with _lock:
        _counts.clear()


def merge(many: list[dict[str, list[int]]]) -> dict[str, list[int]]:
    """Several processes' ``counts`` summed per stage."""
    out: dict[str, list[int]] = {}
    for one in many:
        for stage, c in one.items():
            total = out.setdefault(stage, [0] * len(c))
            for i, n in enumerate(c):
                total[i] += n
    return out


def percentile(c: list[int], q: float) -> float:
    """The ``q`` quantile of a histogram: the upper bound of the bucket that holds it (ms)."""
    n = sum(c)
    if not n:
        return 0.0
    rank = max(1, int(q * n + 0.999999))
    seen = 0
    for i, k in enumerate(c):
        seen += k
        if seen >= rank:
            return round(BOUNDS[min(i, len(BOUNDS) - 1)], 3)
    return round(BOUNDS[-1], 3)


def summary(c: dict[str, list[int]] | None = None) -> dict[str, dict]:
    """Per stage: samples, p50, p99, p99.9 (ms)."""
    c = counts() if c is None else c
    return {stage: {"n": sum(h), "p50": percentile(h, 0.5), "p99": percentile(h, 0.99),
                    "p999": percentile(h, 0.999)}
            for stage in STAGES if (h := c.get(stage))}


def dump() -> None:
    """Write this process's histograms to ``TABLES_STAGES_DIR`` (when set)."""
    folder = getattr(settings, "TABLES_STAGES_DIR", "")
    if not folder:
        return
    path = Path(folder) / f"stages-{os.getpid()}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(counts()))
    tmp.replace(path)


# ---- one action's trace ------------------------------------------------------------------------

def begin(recv: float | None) -> None:
    """A database thread begins a socket's call (the frame came at ``recv``)."""
    if recv is None:
        _local.trace = None
        return
    now = time.time()
    _local.trace = {"recv": recv, "thread": now}
    record("queue", (now - recv) * 1000)


def end() -> None:
    _local.trace = None


def locked() -> None:
    """The table row lock was taken (each unit of work of the call stamps its own)."""
    trace = getattr(_local, "trace", None)
    if trace is not None:
        trace["lock"] = time.time()


def committed() -> dict | None:
    """The stamps of the update this thread's transaction just committed (None: no socket call)."""
    trace = getattr(_local, "trace", None)
    if trace is None or "lock" not in trace:
        return None
    now = time.time()
    record("lock", (trace["lock"] - trace["thread"]) * 1000)
    record("work", (now - trace["lock"]) * 1000)
    out = {**trace, "commit": now}
    # A call may commit several units of work (a move, then bots' moves): the next one's lock
    # wait counts from here.
    trace["thread"] = now
    del trace["lock"]
    return out


def published(message: dict, back: float) -> None:
    """The update is about to be handed to the channel layer; the call's result came at ``back``."""
    trace = message.get("trace")
    if trace is None:
        return
    now = time.time()
    trace["back"], trace["pub"] = back, now
    record("return", (back - trace["commit"]) * 1000)
    record("publish", (now - back) * 1000)


def arrived(message: dict) -> None:
    """This process's hub received the update."""
    trace = message.get("trace")
    if trace is not None and "pub" in trace:
        now = time.time()
        trace["hub"] = now
        record("transit", (now - trace["pub"]) * 1000)


def forwarding(message: dict, view: str) -> str:
    """A socket forwards ``view`` (its viewer's copy of the update): the deliver stage, and, with
    ``TABLES_TRACE_STAGES``, the stamps added to the text."""
    trace = message.get("trace")
    if trace is None or "hub" not in trace:
        return view
    now = time.time()
    record("deliver", (now - trace["hub"]) * 1000)
    if not settings.TABLES_TRACE_STAGES:
        return view
    return f'{view[:-1]},"trace":{json.dumps({**trace, "out": now})}}}'


# ---- the event loop's lag, the collector's pauses ------------------------------------------------

_lag_task: asyncio.Task | None = None
_gc_started: list[float] = []


def _gc_timer(phase: str, info: dict) -> None:
    """``gc.callbacks``: every collection of the oldest generation (the one that walks the whole
    heap and stops every thread) is a ``gc`` sample."""
    if info.get("generation") != 2:
        return
    if phase == "start":
        _gc_started[:] = [time.perf_counter()]
    elif _gc_started:
        record("gc", (time.perf_counter() - _gc_started.pop()) * 1000)


def watch_loop(running) -> None:
    """Sample how late this loop wakes a ``LAG_EVERY`` timer, while ``running()`` says so; time the
    collector's full collections from now on."""
    global _lag_task
    if _gc_timer not in gc.callbacks:
        gc.callbacks.append(_gc_timer)
    loop = asyncio.get_running_loop()
    if _lag_task is None or _lag_task.done() or _lag_task.get_loop() is not loop:
        _lag_task = loop.create_task(_lag(running))


async def _lag(running) -> None:
    while running():
        start = time.perf_counter()
        await asyncio.sleep(LAG_EVERY)
        record("loop_lag", max(0.0, (time.perf_counter() - start - LAG_EVERY) * 1000))
