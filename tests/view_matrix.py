"""The view matrices of the clubs and matches tests: every view, asked by every role, answers as
expected (a status code, or "login": a redirect to the sign-in page)."""

from __future__ import annotations

import pytest
from django.urls import reverse


def matrix_cases(views, roles) -> list:
    """One case per (view, role): views are (name, method, url(world), data, {role: expected})."""
    return [
        pytest.param(name, method, url, data, role, expected[role], id=f"{name}-{role}")
        for name, method, url, data, expected in views
        for role in roles
    ]


def client_for(client, world, role):
    """The test client signed in as the world's user of ``role`` (anonymous when it has none)."""
    user = world.user_for(role)
    if user is not None:
        client.force_login(user)
    return client


def check_response(response, expected) -> None:
    if expected == "login":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:login"))
    else:
        assert response.status_code == expected, response.content[:400]
        if expected == 302:
            assert not response["Location"].startswith(reverse("accounts:login"))
