"""The secure-by-default switch (BEHIND_TLS_PROXY), `check --deploy`, the CSP header, plain-http serving."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; from django.conf import settings as s; django.setup(); print(json.dumps({"
    "'switch': s.BEHIND_TLS_PROXY, 'session': s.SESSION_COOKIE_SECURE, 'csrf': s.CSRF_COOKIE_SECURE,"
    "'redirect': s.SECURE_SSL_REDIRECT, 'hsts': s.SECURE_HSTS_SECONDS, 'proxy': s.SECURE_PROXY_SSL_HEADER}))"
)
# The README's production environment ("Running it for real").
PRODUCTION = {
    "DATABASE_URL": "postgres://paohuzi:secret@db:5432/paohuzi",
    "REDIS_URL": "redis://redis:6379/0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "paohuzi.example.com",
    "DEBUG": "false",
    "BEHIND_TLS_PROXY": "true",
    "CSRF_TRUSTED_ORIGINS": "https://paohuzi.example.com",
}
OURS = {"DATABASE_URL", "REDIS_URL", "DEBUG", "ALLOWED_HOSTS", "SECRET_KEY", "CSRF_TRUSTED_ORIGINS",
        "BEHIND_TLS_PROXY", "HSTS_SECONDS", "DJANGO_SETTINGS_MODULE",
        "DJANGO_ALLOW_ASYNC_UNSAFE"}  # set by some tests of this process; never in production


def _env(**env) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in OURS}
    return {**clean, **env, "DJANGO_SETTINGS_MODULE": "config.settings"}


def _probe(**env) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=BASE_DIR, env=_env(**env), capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_embedded_default_is_plain_http():
    """DEBUG false (the default) on this machine's names: `./dev serve --demo`, scripts, loadtest."""
    s = _probe()
    assert s == {"switch": False, "session": False, "csrf": False, "redirect": False, "hsts": 0, "proxy": None}


def test_production_environment_is_secure():
    s = _probe(**PRODUCTION)
    assert s == {"switch": True, "session": True, "csrf": True, "redirect": True, "hsts": 31536000,
                 "proxy": ["HTTP_X_FORWARDED_PROTO", "https"]}


def test_the_switch_is_explicit_not_derived_from_the_hosts():
    """A Daphne reached without the proxy must not trust X-Forwarded-* (issue #41)."""
    assert _probe(**{k: v for k, v in PRODUCTION.items() if k != "BEHIND_TLS_PROXY"})["switch"] is False


def test_hsts_length_and_the_switch_are_settable():
    assert _probe(**PRODUCTION, HSTS_SECONDS="3600")["hsts"] == 3600
    off = _probe(**{**PRODUCTION, "BEHIND_TLS_PROXY": "false"})
    assert off == {"switch": False, "session": False, "csrf": False, "redirect": False, "hsts": 0, "proxy": None}
    assert _probe(ALLOWED_HOSTS="127.0.0.1,localhost", BEHIND_TLS_PROXY="true")["redirect"] is True


def test_debug_is_not_secure_by_default_even_with_a_real_host():
    unset = {k: v for k, v in PRODUCTION.items() if k != "BEHIND_TLS_PROXY"}
    assert _probe(**{**unset, "DEBUG": "true"})["switch"] is False


def test_check_deploy_with_the_production_environment_reports_nothing():
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                         cwd=BASE_DIR, env=_env(**PRODUCTION), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "System check identified no issues" in out.stdout


def test_check_deploy_still_warns_when_the_switch_is_off():
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=BASE_DIR,
                         env=_env(**{**PRODUCTION, "BEHIND_TLS_PROXY": "off"}), capture_output=True, text=True)
    assert "security.W008" in out.stderr + out.stdout  # the check is a real one


def test_production_requests_are_redirected_and_get_hsts(client, settings):
    settings.ALLOWED_HOSTS = ["paohuzi.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    plain = client.get("/accounts/login/", HTTP_HOST="paohuzi.example.com")
    assert plain.status_code == 301 and plain["Location"] == "https://paohuzi.example.com/accounts/login/"
    tls = client.get("/accounts/login/", HTTP_HOST="paohuzi.example.com", HTTP_X_FORWARDED_PROTO="https")
    assert tls.status_code == 200
    assert tls["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert "script-src https://paohuzi.example.com/static/" in tls["Content-Security-Policy"]
    assert "wss://paohuzi.example.com" in tls["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/accounts/signup/", "/no-such-page/"])
def test_every_page_has_the_content_security_policy(client, db, path):
    policy = client.get(path, HTTP_HOST="127.0.0.1:8000")["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "http://127.0.0.1:8000/static/"
    assert directives["style-src"] == "http://127.0.0.1:8000/static/"
    assert directives["connect-src"] == "'self' ws://127.0.0.1:8000"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy


def test_no_template_has_inline_script_or_style():
    """Under the policy inline code would not run: scripts are static/ modules, data is JSON."""
    import re

    bad = re.compile(r"<script(?![^>]*\b(src=|type=\"application/json\"))|<style|\sstyle=\"|\son[a-z]+=\"")
    found = [f"{p.relative_to(BASE_DIR)}: {m.group(0)}" for p in (BASE_DIR / "templates").rglob("*.html")
             for m in bad.finditer(p.read_text())]
    assert found == []


def _free_port() -> int:
    for port in range(9400, 9500):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    pytest.skip("no free port in 9400-9499")


@pytest.mark.slow
def test_serve_works_over_plain_http_with_debug_off(tmp_path):
    """`manage.py serve` (what `./dev serve --demo` runs) on http://127.0.0.1 with the defaults."""
    port = _free_port()
    env = _env(DATABASE_URL=f"sqlite:///{tmp_path / 'serve.sqlite3'}", DEBUG="false", REDIS_URL="")
    proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--port", str(port), "--no-runner"],
                            cwd=BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                response = urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=2)
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.3)
        assert response.status == 200 and response.url.startswith("http://")  # no redirect to https
        assert "Strict-Transport-Security" not in response.headers
        assert f"script-src http://127.0.0.1:{port}/static/" in response.headers["Content-Security-Policy"]
        assert "secure" not in (response.headers.get("Set-Cookie") or "").lower()
        css = urllib.request.urlopen(f"http://127.0.0.1:{port}/static/css/base.css", timeout=5)
        assert css.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=15)
