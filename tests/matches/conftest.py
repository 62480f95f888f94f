"""Fixtures for the matches tests: a club with funded members, templates, a match factory, and a
driver that plays a running match to its end through the real services (托管 / time-outs)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

STARTS_IN = timedelta(hours=1)


@pytest.fixture
def match_club(make_club, make_user):
    """match_club(n=9, funds=1000) -> (club, owner, admin, players): players are plain members
    with ``funds`` points each (上分 by the owner through the ledger service)."""

    def _make(n: int = 9, funds: int = 1000):
        owner = make_user(username="m_owner", display_name="东家")
        admin = make_user(username="m_admin", display_name="管理")
        players = [make_user(username=f"m_p{i}", display_name=f"选手{i}") for i in range(n)]
        club = make_club(name="比赛俱乐部", owner=owner, admins=[admin], members=players)
        if funds:
            fund(club, owner, players, funds)
        return club, owner, admin, players

    return _make


def fund(club, by, users, amount: int) -> None:
    from apps.clubs.models import Membership
    from apps.ledgers.services import adjustment_create

    for user in users:
        member = Membership.objects.get(club=club, user=user)
        adjustment_create(club=club, member=member, amount=amount, reason="test funds", by=by)


@pytest.fixture
def make_template():
    from apps.clubs.models import RuleTemplate

    def _make(club, *, name="比赛三人", preset="full", players=3, piao_choices=(), **options):
        template, _created = RuleTemplate.objects.get_or_create(
            club=club, name=name, defaults=dict(preset=preset, options=options, players=players, base_score=1,
                                                piao_choices=list(piao_choices), hands_per_session=8,
                                                turn_seconds=15),
        )
        return template

    return _make


@pytest.fixture
def make_match(make_template):
    """make_match(club, by, **fields) -> Match, starting in an hour, registration open now."""
    from apps.matches import services

    def _make(club, by, *, template=None, **fields):
        template = template or make_template(club)
        defaults = {"name": "周末赛", "template": template, "format": "fixed",
                    "starts_at": timezone.now() + STARTS_IN, "min_entrants": 3, "max_entrants": 60,
                    "entry_fee": 100, "prize_scheme": {"kind": "percent", "percents": [50, 30, 20]},
                    "hands_per_round": 1, "rounds": 2}
        defaults.update(fields)
        return services.match_create(club=club, by=by, **defaults)

    return _make


def register_all(match, users, *, check_in=True):
    from apps.matches import services

    for user in users:
        services.register(match=match, user=user)
    if check_in:
        at = match.starts_at - timedelta(minutes=5)
        for user in users:
            services.check_in(match=match, user=user, now=at)


def start(match):
    from apps.matches import services

    services.start_due(now=match.starts_at + timedelta(seconds=1))
    match.refresh_from_db()
    return match


def drive(match, *, absent=(), max_loops: int = 400):
    """Play a running match to its end: present players put themselves on 托管 at each new table
    (the bots' path), absent ones never act and are played by the time-out rules; every loop also
    calls ``advance`` (the beat's safety net). Returns the match, refreshed."""
    from apps.matches import services
    from apps.tables.models import Seat
    from apps.tables.transaction import unit
    from apps.tables.transaction.context import TableError
    from apps.tables.verbs import play
    from apps.tables.verbs.services import seat_set_tuoguan

    absent = {u.pk for u in absent}
    for _ in range(max_loops):
        match.refresh_from_db()
        if match.state != "running":
            return match
        for table_id in services.open_table_ids(match_id=match.pk):
            for seat in Seat.objects.filter(table_id=table_id).select_related("user"):
                if seat.user_id and not seat.tuoguan and seat.user_id not in absent:
                    try:
                        seat_set_tuoguan(user=seat.user, table_id=table_id, on=True)
                    except TableError as exc:  # 托管 goes on only while the table plays
                        if exc.code not in ("table_closed", "not_playing"):
                            raise
                        break
            unit.autoplay(table_id=table_id)
            play.deadline_fire(table_id=table_id, at=timezone.now() + timedelta(hours=1))
        services.advance(match_id=match.pk)
    raise AssertionError(f"match {match.pk} did not finish: {match.state}, round {match.current_round}")


def balance(club, user) -> int:
    from apps.ledgers.models import Account

    return Account.objects.filter(club=club, kind="member", user=user).values_list("balance", flat=True).first() or 0


def escrow_balance(match) -> int:
    from apps.ledgers.models import Account

    return Account.objects.get(pk=match.escrow_id).balance


def audit_clean() -> dict:
    from apps.ledgers import invariants

    return {k: v for k, v in invariants.run_all().items() if v}


@pytest.fixture
def mh():
    """The helpers above as one object (tests import nothing from conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(fund=fund, register_all=register_all, start=start, drive=drive, balance=balance,
                           escrow_balance=escrow_balance, audit_clean=audit_clean)


@pytest.fixture
def world(make_user, make_club):
    """Club A with every role, a match taking entries, a draft, and club B next door (tests/matches/world.py)."""
    from tests.matches.world import build_world

    return build_world(make_user, make_club)
