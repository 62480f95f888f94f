"""Fixtures of the accounts tests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone


@pytest.fixture
def later(monkeypatch):
    """later(seconds): move the clock of django.utils.timezone (axes, signin and the reset links
    read it) forward."""
    real_now = timezone.now
    offset = [timedelta(0)]
    monkeypatch.setattr(timezone, "now", lambda: real_now() + offset[0])

    def _move(seconds: float) -> None:
        offset[0] += timedelta(seconds=seconds)

    return _move
