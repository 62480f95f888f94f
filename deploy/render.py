#!/usr/bin/env python3
"""Fill a deploy/ template: every ``@@NAME@@`` is replaced by the value given as ``NAME=value``.

    python3 deploy/render.py deploy/nginx/paohuzi.conf LISTEN=80 SERVER_NAME=paohuzi.example.com \
        STATIC_ROOT=/srv/paohuzi/staticfiles DAPHNE_SERVERS="$(deploy/render.py --servers 8001 8002)"

``--servers PORT...`` prints nginx ``server`` lines for Daphne processes on 127.0.0.1. A token left
without a value is an error (exit 2), so a rendered file never holds a placeholder.
"""

import re
import sys


def main(argv: list[str]) -> int:
    if argv[:1] == ["--servers"]:
        # max_fails=0: a server is never marked down. A dead Daphne refuses the connection at once and
        # nginx passes that request to the next server of the hash ring (proxy_next_upstream error).
        # With max_fails=1 fail_timeout=3s, nginx 1.22's `hash ... consistent` upstream answered 502
        # "no live upstreams" for ~100 s to the tables hashed onto a killed (and long restarted)
        # Daphne, although the other one was up (scripts/fault_run.sh, full run).
        print("\n".join(f"    server 127.0.0.1:{p} max_fails=0;" for p in argv[1:]))
        return 0
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    text = open(argv[0], encoding="utf-8").read()
    values = dict(arg.split("=", 1) for arg in argv[1:])
    out = re.sub(r"@@([A-Z_]+)@@", lambda m: values.get(m.group(1), m.group(0)), text)
    left = sorted(set(re.findall(r"@@([A-Z_]+)@@", out)))
    if left:
        print(f"{argv[0]}: no value for {', '.join(left)}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
