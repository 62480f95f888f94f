"""Summarise a py-spy ``--format raw`` profile (collapsed stacks): the functions with the most
samples, by their own time and by inclusive time.

    python scripts/pyspy_top.py PROFILE.txt [N] [--layers]

``--layers`` adds each layer's share of the samples, by the file of the frame that was running
(its own time): ours (``apps/``, ``config/``), the database layer (psycopg and ``django/db``), and
the serving layer (Daphne with Twisted and autobahn, or uvicorn with websockets; asyncio, Channels,
asgiref, the Redis client, the thread pool) that every action pays for as long as the design keeps
Daphne, Channels and Redis.

Used with ``BENCH_PROFILE=DIR scripts/bench_tables.sh ...``, which records each Daphne under load.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

_LINE = re.compile(r"\s*\(([^)]*)\)$")


def _where(frame: str) -> str:
    """``func (path/to/file.py:123)`` -> ``path/to/file.py`` (the frame itself when it names no file)."""
    m = _LINE.search(frame)
    return m.group(1).rsplit(":", 1)[0] if m else frame


def frame_name(frame: str) -> str:
    """``func (path/to/file.py:123)`` -> ``func (file.py)``: lines of one function are summed."""
    m = _LINE.search(frame)
    if not m:
        return frame
    where = _where(frame)
    parts = where.split("/")
    short = "/".join(parts[-2:]) if len(parts) > 1 else where
    return f"{frame[:m.start()].strip()} ({short})"


# (layer, path prefixes as py-spy prints them: relative to site-packages or the project)
LAYERS = [
    ("ours: engine", ("apps/engine/",)),
    ("ours: apps, config", ("apps/", "config/")),
    ("database: psycopg, django.db", ("psycopg/", "psycopg_binary/", "django/db/")),
    ("serving: the server (Daphne: twisted, autobahn; uvicorn: websockets)",
     ("twisted/", "autobahn/", "daphne/", "txaio/", "zope/", "uvicorn/", "websockets/", "httptools/")),
    ("serving: asyncio, selectors", ("asyncio/", "selectors.py")),
    ("serving: channels, asgiref", ("channels/", "asgiref/")),
    ("serving: redis client, channels_redis", ("redis/", "channels_redis/", "hiredis/", "msgpack/")),
    ("serving: thread pool", ("concurrent/", "threading.py", "queue.py")),
    ("django (not db)", ("django/",)),
    ("json", ("json/", "orjson/")),
]


def layer(frame: str) -> str:
    where = _where(frame)
    for name, prefixes in LAYERS:
        if where.startswith(prefixes):
            return name
    return "other (stdlib)"


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path = args[0]
    top = int(args[1]) if len(args) > 1 else 40
    own: Counter[str] = Counter()
    layers: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = 0
    with open(path) as fh:
        for line in fh:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(count)
            # the first frame is the thread ("thread 0x..." / process), not code
            raw = [f for f in stack.split(";") if not f.startswith(("process ", "thread "))]
            if not raw:
                continue
            frames = [frame_name(f) for f in raw]
            total += n
            own[frames[-1]] += n
            layers[layer(raw[-1])] += n
            for f in set(frames):
                incl[f] += n
    print(f"{total} samples")
    if "--layers" in sys.argv:
        print("\n-- own time by layer --")
        for name, n in layers.most_common():
            print(f"{100 * n / total:6.2f}%  {name}")
        serving = sum(n for name, n in layers.items() if name.startswith("serving"))
        print(f"{100 * serving / total:6.2f}%  all serving layers")
    print(f"\n-- own time (top {top}) --")
    for name, n in own.most_common(top):
        print(f"{100 * n / total:6.2f}%  {name}")
    print(f"\n-- inclusive (top {top}) --")
    for name, n in incl.most_common(top):
        print(f"{100 * n / total:6.2f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
