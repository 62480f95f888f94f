"""Engine tests run without Django (``-p no:django``): neutralise the root conftest's Django fixture."""

import pytest


@pytest.fixture(autouse=True)
def _test_settings():
    """The engine has no passwords; overrides tests/conftest.py's fixture that needs pytest-django."""


@pytest.fixture(autouse=True)
def _deterministic_seeds():
    """The engine's tests seed their own hands; overrides tests/conftest.py's platform seeds."""
