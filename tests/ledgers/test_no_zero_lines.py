"""No ledger line of amount 0 (issue #11): a hand with piao 0 posts no "飘 0" lines, the
transaction stays zero-sum and exactly-once, and the hand's verification and the audit stay clean."""

from __future__ import annotations

import hashlib
import itertools
import random

import pytest

from apps.clubs.models import RuleTemplate
from apps.ledgers import invariants
from apps.ledgers import services as ledger_services
from apps.ledgers.models import Entry, Transaction
from tests.tables.helpers import play_hand_via_services


@pytest.fixture
def seeded(monkeypatch):
    from apps.tables.transaction import session

    counter = itertools.count()
    monkeypatch.setattr(session, "new_seed", lambda: hashlib.sha256(f"no-zero:{next(counter)}".encode()).digest())


def _play_piao_hands(people, piao_values, hands=12):
    """Hands with the given piao choices (seat order) until one is won; returns that hand."""
    from apps.tables.models import Table
    from apps.tables.verbs import services

    users = [people["owner"], people["member"], people["other"]]
    template = RuleTemplate.objects.create(
        club=people["club"], name="飘", preset="full", options={"piao": True}, players=3, base_score=1,
        piao_choices=[0, 1, 3], hands_per_session=hands, turn_seconds=15,
    )
    table = services.table_open(user=users[0], template=template)
    for user in users[1:]:
        services.table_join(user=user, table_id=table.pk)
    rng = random.Random(5)
    for _ in range(hands):
        for user in users:
            services.seat_ready(user=user, table_id=table.pk)
        for user, value in zip(users, piao_values, strict=True):
            services.piao_choose(user=user, table_id=table.pk, value=value)
        hand = play_hand_via_services(table.pk, users, rng, kind="greedy")
        if hand.result.get("winner") is not None:
            return Table.objects.get(pk=table.pk), hand
    raise AssertionError("no hand was won")


def _check_clean(hand):
    from apps.replays.verification import checklist

    checks = checklist(hand)
    assert {c.key for c in checks} >= {"ledger", "settlement"}
    failed = [(c.key, c.detail) for c in checks if not c.ok]
    assert not failed, failed
    assert not any(invariants.run_all().values()), invariants.run_all()


def test_piao_zero_posts_no_piao_lines_and_verifies(people, seeded, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table, hand = _play_piao_hands(people, [0, 0, 0])
    assert hand.piao == {"0": 0, "1": 0, "2": 0}
    assert ledger_services.settle_hand(hand_id=hand.pk).status == "already"  # posted by the receiver
    txn = Transaction.objects.get(hand=hand)
    entries = list(Entry.objects.filter(transaction=txn))
    assert entries, "a won hand has score lines"
    assert all(e.amount != 0 for e in entries)
    assert not [e for e in entries if e.kind == "piao"]
    assert sum(e.amount for e in entries) == 0
    for seat, total in hand.totals["total"].items():  # an absent line counts as 0
        assert sum(e.amount for e in entries if e.seat == int(seat)) == int(total)
    _check_clean(hand)


def test_mixed_piao_posts_only_nonzero_lines(people, seeded, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table, hand = _play_piao_hands(people, [3, 0, 1])
    entries = list(Entry.objects.filter(transaction__hand=hand))
    assert all(e.amount != 0 for e in entries)
    for kind in ("score", "piao"):
        want = {int(s): int(v) for s, v in hand.totals[kind].items() if int(v)}
        got = {e.seat: e.amount for e in entries if e.kind == kind}
        assert got == want
    assert Transaction.objects.filter(hand=hand).count() == 1
    _check_clean(hand)


def test_a_drawn_hand_without_fee_has_an_empty_transaction(make_finished_hand):
    hand = make_finished_hand(want="draw", fee=0)
    assert ledger_services.settle_hand(hand_id=hand.pk).status == "posted"
    assert Transaction.objects.filter(hand=hand).count() == 1
    assert not Entry.objects.filter(transaction__hand=hand).exists()
