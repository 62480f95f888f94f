"""deploy/: the rendered nginx site and supervisord config route pages apart from the tables (issue #45).

The tables' sockets go to the table Daphnes and pages to the page Daphnes, which run at a lower CPU
priority (README "Pages apart from the tables"); a template left with a placeholder is refused.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RENDER = [sys.executable, str(ROOT / "deploy" / "render.py")]


def render(template: str, **values: str) -> subprocess.CompletedProcess:
    return subprocess.run([*RENDER, str(ROOT / template), *(f"{k}={v}" for k, v in values.items())],
                          capture_output=True, text=True)


def servers(*ports: int) -> str:
    return subprocess.run([*RENDER, "--servers", *map(str, ports)], capture_output=True, text=True,
                          check=True).stdout


def upstream(conf: str, name: str) -> list[str]:
    body = re.search(r"upstream " + name + r" \{(.*?)\}", conf, re.S).group(1)
    return re.findall(r"server (127\.0\.0\.1:\d+)", body)


def test_nginx_sends_sockets_to_table_daphnes_and_pages_to_page_daphnes():
    done = render("deploy/nginx/paohuzi.conf", LISTEN="80", SERVER_NAME="example.com", STATIC_ROOT="/srv/s",
                  DAPHNE_SERVERS=servers(8001, 8002), PAGE_SERVERS=servers(8101))
    assert done.returncode == 0, done.stderr
    assert upstream(done.stdout, "paohuzi_ws") == ["127.0.0.1:8001", "127.0.0.1:8002"]
    assert upstream(done.stdout, "paohuzi_http") == ["127.0.0.1:8101"]
    assert re.search(r"location /ws/ \{[^}]*proxy_pass http://paohuzi_ws;", done.stdout)
    assert re.search(r"location / \{[^}]*proxy_pass http://paohuzi_http;", done.stdout)


def test_nginx_without_page_servers_is_refused():
    done = render("deploy/nginx/paohuzi.conf", LISTEN="80", SERVER_NAME="example.com", STATIC_ROOT="/srv/s",
                  DAPHNE_SERVERS=servers(8001))
    assert done.returncode == 2
    assert "PAGE_SERVERS" in done.stderr


def test_supervisord_runs_page_daphnes_at_nice_10_on_their_ports():
    done = render("deploy/supervisor/supervisord.conf", APP_DIR="/srv/p", ENV_FILE="/etc/p/env", RUN_DIR="/run/p",
                  LOG_DIR="/var/log/p", STATE_DIR="/var/lib/p", DAPHNE_PORT_BASE="8001", DAPHNE_COUNT="2",
                  PAGE_PORT_BASE="8101", PAGE_COUNT="1", WORKER_CONCURRENCY="2")
    assert done.returncode == 0, done.stderr
    pages = re.search(r"\[program:pages\](.*?)\n\[", done.stdout, re.S).group(1)
    assert "numprocs=1" in pages and "numprocs_start=8101" in pages
    assert "exec nice -n 10 " in pages
    daphne = re.search(r"\[program:daphne\](.*?)\n\[", done.stdout, re.S).group(1)
    assert "nice" not in daphne
    assert "programs=daphne,pages,worker,review,beat" in done.stdout
    assert "exec nice -n 15 " in re.search(r"\[program:review\](.*?)\n\[", done.stdout, re.S).group(1)


def test_systemd_page_unit_is_the_daphne_unit_at_nice_10():
    units = ROOT / "deploy" / "systemd"
    pages = (units / "paohuzi-pages@.service").read_text()
    daphne = (units / "paohuzi-daphne@.service").read_text()
    assert re.search(r"^Nice=10$", pages, re.M) and "Nice=" not in daphne
    exec_line = re.compile(r"^ExecStart=.*$", re.M)
    assert exec_line.search(pages).group(0) == exec_line.search(daphne).group(0)
    assert "paohuzi-pages@8101.service" in (units / "paohuzi.target").read_text()
