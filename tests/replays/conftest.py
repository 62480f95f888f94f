"""Fixtures of the replays tests (export, verification, compaction): clubs whose tables are played
through the services."""

from __future__ import annotations

import itertools
import random

import pytest

from apps.tables.verbs import services
from tests.tables.helpers import play_hand_via_services, ready_all


@pytest.fixture
def seat_players(make_user):
    return [make_user(username=f"rp{i}", display_name=f"玩家{i}") for i in range(4)]


@pytest.fixture
def replay_club(make_club, seat_players, make_user):
    admin = make_user(username="radmin")
    club = make_club(name="回放俱乐部", owner=seat_players[0], admins=[admin], members=seat_players[1:])
    club.admin_user = admin
    return club


@pytest.fixture
def play_table(replay_club, seat_players):
    """play_table(preset, players, hands=1, fee=0, piao_choices=(), play=None, **options) -> (table, [hand rows]):
    a session of ``hands`` hands of which the first ``play`` (default: all) are played to their end.

    Each finished hand is then settled by the ledger's service, as its after-commit task does in
    production (the test's transaction never commits, so no on-commit hook runs by itself)."""
    from apps.clubs.models import RuleTemplate
    from apps.ledgers.services import settle_hand

    names = itertools.count()

    def _play(preset="full", players=3, hands=1, fee=0, fee_payer="each", piao_choices=(), rng_seed=1, play=None,
              **options):
        template = RuleTemplate.objects.create(
            club=replay_club, name=f"t{next(names)}-{preset}-{players}", preset=preset, options=options,
            players=players, base_score=2, piao_choices=list(piao_choices), hands_per_session=hands,
            turn_seconds=15, fee=fee, fee_payer=fee_payer,
        )
        users = seat_players[:players]
        table = services.table_open(user=users[0], template=template)
        for user in users[1:]:
            services.table_join(user=user, table_id=table.pk)
        rng = random.Random(rng_seed)
        played = []
        _hands(table, users, hands if play is None else play, piao_choices, rng, played)
        for hand in played:
            assert settle_hand(hand_id=hand.pk).status == "posted"
        table.refresh_from_db()
        return table, played

    def _hands(table, users, hands, piao_choices, rng, played):
        for _ in range(hands):
            ready_all(table.pk, users)
            if piao_choices:
                for user in users:
                    services.piao_choose(user=user, table_id=table.pk, value=piao_choices[-1])
            played.append(play_hand_via_services(table.pk, users, rng, kind="greedy"))

    return _play


@pytest.fixture
def world(make_user, monkeypatch, request):
    """The replay app's world (tests/replays/helpers.py): a club with every role around one table
    whose first hand has ended, dealt from seeds of the test's id."""
    from tests.replays.helpers import build_world, deterministic_seeds

    deterministic_seeds(monkeypatch, request.node.nodeid)
    return build_world(make_user)
