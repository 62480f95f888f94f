"""The statistics task on its own: what one hand adds, exactly once; the receiver and the sweep;
concurrent deliveries (PostgreSQL only: SQLite serialises writers)."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from apps.replays.audit import services
from apps.replays.audit.hand_signals import card_signals, flows
from apps.replays.audit.models import PairDay, PairHand, PlayerDay, ProcessedHand
from apps.replays.audit.tasks import sweep_unrecorded
from apps.tables.storage.records import hand_record
from tests.replays.audit.helpers import TableWriter, days_ago, feeder, honest, play_real_hand, taker


def test_flows_split_gains_by_losses():
    assert flows({0: 10, 1: -4, 2: -6}) == {(1, 0): 4.0, (2, 0): 6.0}
    assert flows({0: 6, 1: 2, 2: -8}) == {(2, 0): 6.0, (2, 1): 2.0}
    assert flows({0: 0, 1: 0, 2: 0}) == {}


@pytest.mark.django_db
def test_one_hand_adds_what_its_record_says(make_user, make_club):
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    club = make_club(owner=a, members=[b, c])
    writer = TableWriter(club, [a, b, c], start=days_ago(0))
    rng = random.Random(2)
    hand = None
    for n in range(30):  # find a hand where seat 1 took something of seat 0's
        hand = writer.play([feeder(1), taker(0), honest], f"one-{n}", rng)
        signals = card_signals(hand_record(hand))
        if signals.taken[(0, 1, "discard")]:
            break
    assert signals.replayed
    assert services.record_hand(hand_id=hand.pk) == "recorded"
    assert services.record_hand(hand_id=hand.pk) == "already"
    day = timezone.localdate(hand.finished_at)
    ab = PairDay.objects.get(club=club, day=day, giver=a, taker=b)
    assert ab.hands == 1
    assert ab.discards == signals.discards[0] and ab.discards_taken == signals.taken[(0, 1, "discard")] > 0
    assert ab.next_discards == ab.discards  # b sits right after a
    assert PairDay.objects.get(club=club, day=day, giver=b, taker=a).next_discards == 0
    totals = {int(k): v for k, v in hand.totals["total"].items()}
    expected = flows(totals).get((0, 1), 0.0)
    assert ab.points == pytest.approx(expected)
    pb = PlayerDay.objects.get(club=club, day=day, user=b)
    assert pb.discards_seen == signals.discards[0] + signals.discards[2]
    assert pb.next_seen == signals.discards[0]
    assert PairHand.objects.filter(hand=hand).count() == 6
    assert ProcessedHand.objects.get(hand=hand).replayed


@pytest.mark.django_db
def test_tampered_record_still_counts_presence_without_card_signals(make_user, make_club):
    from apps.tables.models import TableEvent

    a, b, c = make_user("a"), make_user("b"), make_user("c")
    club = make_club(owner=a, members=[b, c])
    hand = TableWriter(club, [a, b, c], start=days_ago(0)).play([honest] * 3, "tamper", random.Random(1))
    first = TableEvent.objects.filter(hand=hand, type="action").order_by("seq").first()
    first.payload = {"seat": first.payload["seat"], "action": {"type": "hu"}}  # illegal now
    first.save()
    assert services.record_hand(hand_id=hand.pk) == "recorded"
    assert not ProcessedHand.objects.get(hand=hand).replayed
    row = PairDay.objects.get(giver=a, taker=b)
    assert row.hands == 1 and row.discards == 0


@pytest.mark.django_db
def test_bots_practice_and_unfinished_hands_do_not_count(make_user, make_club):
    a, b = make_user("a"), make_user("b")
    club = make_club(owner=a, members=[b])
    rng = random.Random(4)
    with_bot = TableWriter(club, [a, b, None], start=days_ago(0)).play([honest] * 3, "bot", rng)
    practice = TableWriter(club, [a, None, None], start=days_ago(0), practice=True).play([honest] * 3, "pr", rng)
    assert services.record_hand(hand_id=with_bot.pk) == "recorded"
    assert services.record_hand(hand_id=practice.pk) == "practice"
    assert services.record_hand(hand_id=999999) == "missing"
    assert set(PairDay.objects.values_list("giver", "taker")) == {(a.pk, b.pk), (b.pk, a.pk)}
    assert set(PlayerDay.objects.values_list("user", flat=True)) == {a.pk, b.pk}


@pytest.mark.django_db(transaction=True)
def test_receiver_enqueues_on_commit_and_sweep_catches_missed_hands(make_user, make_club):
    """A hand finished through the real table services is recorded by the on-commit task; one
    whose task was lost is recorded by the beat sweep."""
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    club = make_club(owner=a, members=[b, c])
    hand = play_real_hand(club, [a, b, c])
    assert ProcessedHand.objects.filter(hand=hand).exists()  # the receiver's task ran on commit
    assert PairDay.objects.filter(giver=a, taker=b, hands=1).exists()
    for model in (ProcessedHand, PairDay, PlayerDay, PairHand):  # as if the task had never run
        model.objects.all().delete()
    hand.__class__.objects.filter(pk=hand.pk).update(finished_at=timezone.now() - timedelta(minutes=5))
    assert sweep_unrecorded() == 1
    assert PairDay.objects.get(giver=a, taker=b).hands == 1
    assert sweep_unrecorded() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need PostgreSQL")
def test_concurrent_deliveries_count_once_and_concurrent_hands_add_up(make_user, make_club):
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    club = make_club(owner=a, members=[b, c])
    writer = TableWriter(club, [a, b, c], start=days_ago(0))
    rng = random.Random(9)
    hands = [writer.play([honest] * 3, f"cc-{n}", rng) for n in range(6)]
    jobs = [h.pk for h in hands for _ in range(3)]  # every hand delivered three times at once
    barrier = threading.Barrier(len(jobs))
    results = []

    def run(hand_id):
        try:
            barrier.wait()
            for _ in range(5):  # what Celery's autoretry does on a deadlock
                try:
                    results.append(services.record_hand(hand_id=hand_id))
                    return
                except Exception as exc:  # noqa: BLE001
                    if "deadlock" not in str(exc).lower():
                        raise
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(h,)) for h in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results).count("recorded") == 6 and results.count("already") == 12
    assert PairDay.objects.get(giver=a, taker=b).hands == 6
    assert sum(PlayerDay.objects.filter(user=c).values_list("hands", flat=True)) == 6
