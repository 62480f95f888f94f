"""SECRET_KEY is required with DEBUG off; BEHIND_TLS_PROXY is explicit (issue #41)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRINT = "from django.conf import settings; print(settings.BEHIND_TLS_PROXY, settings.SECRET_KEY[:3], settings.DEBUG)"


def _settings(**env):
    base = {k: v for k, v in os.environ.items()
            if k not in {"SECRET_KEY", "DEBUG", "BEHIND_TLS_PROXY", "ALLOWED_HOSTS", "PYTEST_VERSION"}}
    base["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return subprocess.run([sys.executable, "-c", PRINT], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=60)


def test_no_secret_key_with_debug_off_refuses_to_start():
    run = _settings(DEBUG="false")
    assert run.returncode != 0
    assert "ImproperlyConfigured" in run.stderr and "SECRET_KEY is not set" in run.stderr


def test_the_development_key_only_with_debug_on():
    run = _settings(DEBUG="true")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "dev", "True"]


def test_behind_tls_proxy_is_off_unless_set_whatever_the_hosts():
    run = _settings(SECRET_KEY="k" * 50, ALLOWED_HOSTS="paohuzi.example.com")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[0] == "False"
    run = _settings(SECRET_KEY="k" * 50, ALLOWED_HOSTS="paohuzi.example.com", BEHIND_TLS_PROXY="true")
    assert run.stdout.split()[0] == "True"


def test_forwarded_for_is_ignored_unless_behind_the_proxy(settings):
    from django.test import RequestFactory

    from apps.accounts.signin import request_ip

    request = RequestFactory().get("/", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="198.51.100.1")
    settings.BEHIND_TLS_PROXY = False
    assert request_ip(request) == "203.0.113.5"
    settings.BEHIND_TLS_PROXY = True
    assert request_ip(request) == "198.51.100.1"
