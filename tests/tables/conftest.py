"""Fixtures for the tables tests: a club with three players, rule templates, a ready-made table."""

from __future__ import annotations

import hashlib
import itertools

import pytest


@pytest.fixture
def players(make_user):
    return [make_user(username=f"p{i}", password="pw-secret-123", display_name=f"玩家{i}") for i in range(3)]


@pytest.fixture
def club(make_club, players, make_user):
    admin = make_user(username="admin1", password="pw-secret-123")
    club = make_club(name="牌友会", owner=players[0], admins=[admin], members=players[1:])
    club.admin_user = admin
    return club


@pytest.fixture
def make_template(club):
    from apps.clubs.models import RuleTemplate

    def _make(name="三人全名堂", preset="full", piao_choices=(), hands=2, turn_seconds=15, **options):
        return RuleTemplate.objects.create(
            club=club, name=name, preset=preset, options=options, players=3, base_score=1,
            piao_choices=list(piao_choices), hands_per_session=hands, turn_seconds=turn_seconds,
        )

    return _make


@pytest.fixture
def template(make_template):
    return make_template()


@pytest.fixture
def full_table(players, template):
    """A waiting table with the three players seated (not ready yet)."""
    from apps.tables.verbs import services

    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    return table


@pytest.fixture(autouse=True)
def _bots_at_once(settings):
    """Bots and 托管 play inside the request in tests (no pacing delay) unless a test sets one."""
    settings.TABLES_BOT_DELAY = 0


@pytest.fixture
def fixed_deals(monkeypatch):
    """fixed_deals(label): the table's next hands are dealt from seeds made from ``label``, so a test
    that needs a situation plays decks known to hold it, whatever the test's name (the suite's
    seeds otherwise come from the test's id, tests/conftest.py)."""
    from apps.tables.transaction import session

    def _fix(label: str) -> None:
        counter = itertools.count()
        monkeypatch.setattr(session, "new_seed",
                            lambda: hashlib.sha256(f"{label}:{next(counter)}".encode()).digest())

    return _fix


@pytest.fixture
def captured(monkeypatch):
    """Every group message the tables send (``outbox.send_group``), as the JSON a socket would read."""
    import json

    from apps.tables.transaction import outbox

    sent: list[dict] = []
    monkeypatch.setattr(outbox, "send_group", lambda group, message: sent.append(json.loads(json.dumps(message))))
    return sent
