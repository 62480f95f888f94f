"""信息优势 on the platform (apps/replays/audit/fairplay.py, issue #44): one stored result per (club,
subject, period) whatever the number of requests, the task stores it once and it is the engine's
answer, the nightly sweep's choice of players, who may see the pages, the collusion report's column."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from apps.engine.analysis.fairplay import fairplay as engine_fairplay
from apps.engine.analysis.fairplay import score as engine_score
from apps.replays.audit import fairplay, tasks
from apps.replays.audit.fairplay import FairPlayError, fairplay_compute, fairplay_request
from apps.replays.audit.models import FairPlayResult, FairPlayStatus
from apps.replays.export import hand_record


@pytest.fixture(autouse=True)
def _small_budget(settings):
    settings.FAIRPLAY_BUDGET_MS = 5


@pytest.fixture
def enqueued(monkeypatch):
    """The result ids sent to the task (the task itself is not run)."""
    sent: list[int] = []
    monkeypatch.setattr(fairplay, "send_on_commit", lambda task, result_id: sent.append(result_id))
    return sent


def period():
    today = timezone.localdate()
    return today - timedelta(days=1), today


def ask(world, user, partner=None, by=None):
    since, until = period()
    return fairplay_request(club=world.club, user_id=user.pk, partner_id=partner.pk if partner else None,
                            since=since, until=until, by=by or world.owner)


def test_the_task_stores_the_engines_score_once(world, enqueued):
    p1 = world.players[1]
    row = ask(world, p1)
    assert enqueued == [row.pk] and row.status == FairPlayStatus.PENDING and row.budget_ms == 5
    assert tasks.compute_fairplay.delay(row.pk).get() == "done"
    stored = FairPlayResult.objects.get()
    assert stored.status == FairPlayStatus.DONE and stored.hands == 1 and stored.finished_at is not None
    # The engine's answer for the player's seat, every hidden card seen, with the job's seed.
    hand = world.hand
    seat = next(int(s) for s, u in hand.players.items() if u == p1.pk)
    decisions = engine_fairplay(hand_record(hand), seat, "all", seed=f"{stored.seed}:{hand.pk}:{hand.seed_hash}",
                                budget_ms=5)
    expected = engine_score(decisions, "all")
    assert stored.result["summary"] == expected
    assert (stored.score, stored.p, stored.telling, stored.decisions) == (
        expected["score"], expected["p"], expected["telling"], expected["decisions"])
    for top in stored.result["top_hands"]:
        assert top["hand"] == hand.pk and top["seat"] == seat
        assert all(d["telling"] or d["feed_telling"] for d in top["decisions"])
    # A second delivery finds nothing to claim; asking again shows the stored one.
    assert tasks.compute_fairplay.delay(row.pk).get() == "skipped"
    assert ask(world, p1).pk == row.pk and enqueued == [row.pk]
    again = FairPlayResult.objects.get()
    assert (again.result, again.finished_at) == (stored.result, stored.finished_at)


def test_a_pair_is_weighed_each_seat_with_the_others_hand(world, enqueued):
    p0, p2 = world.players[0], world.players[2]
    row = ask(world, p2, p0)
    assert (row.user_id, row.partner_id) == (p0.pk, p2.pk)  # ordered
    assert fairplay_compute(result_id=row.pk) == "done"
    row.refresh_from_db()
    assert row.hands == 1 and row.result["summary"]["ev"]["baseline"] == 0.65  # partner mode
    assert {h["user"] for h in row.result["top_hands"]} <= {p0.pk, p2.pk}


def test_bad_requests_change_nothing(world, enqueued):
    since, until = period()
    with pytest.raises(FairPlayError, match="not_member"):
        fairplay_request(club=world.club, user_id=world.outsider.pk, since=since, until=until)
    with pytest.raises(FairPlayError, match="same_player"):
        ask(world, world.players[0], world.players[0])
    with pytest.raises(FairPlayError, match="bad_period"):
        fairplay_request(club=world.club, user_id=world.players[0].pk, since=until, until=since)
    assert FairPlayResult.objects.count() == 0 and enqueued == []


def test_a_failed_job_is_stored_as_failed_and_asked_for_again(world, enqueued, monkeypatch):
    row = ask(world, world.players[0])

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    with monkeypatch.context() as m:
        m.setattr(fairplay, "engine_score", broken)
        assert fairplay_compute(result_id=row.pk) == "failed"
    row.refresh_from_db()
    assert (row.status, row.error, row.result) == (FairPlayStatus.FAILED, "engine", None)
    again = ask(world, world.players[0])
    assert again.pk == row.pk and again.status == FairPlayStatus.PENDING and enqueued == [row.pk, row.pk]


def test_at_most_max_hands_the_most_recent(world, enqueued, settings):
    from tests.replays.helpers import deal_next
    from tests.tables.helpers import play_hand_via_services

    deal_next(world)
    second = play_hand_via_services(world.table.pk, world.players, rng=random.Random(2))
    assert second.status == "finished"
    row = ask(world, world.players[0])
    assert [h.pk for h, _ in fairplay.subject_hands(row)] == [second.pk, world.hand.pk]
    settings.FAIRPLAY_MAX_HANDS = 1
    row = ask(world, world.players[2])
    assert row.max_hands == 1
    assert [h.pk for h, _ in fairplay.subject_hands(row)] == [second.pk]


def _race(world, monkeypatch, requests: int, *, one_writer_at_a_time: bool):
    """As tests/replays/review's: every request has looked for the row and found none before any
    creates it; the unique constraint decides."""
    barrier = threading.Barrier(requests)
    turns = [threading.Event() for _ in range(requests + 1)]
    turns[0].set()
    made, errors = [], []
    real = fairplay.result_of
    mine = threading.local()

    def racing(**kwargs):
        found = real(**kwargs)
        barrier.wait(timeout=60)
        if one_writer_at_a_time:
            assert turns[mine.turn].wait(timeout=60)
        return found

    monkeypatch.setattr(fairplay, "result_of", racing)

    def run(turn):
        from django.db import connection as thread_connection

        mine.turn = turn
        try:
            made.append(ask(world, world.players[1]).pk)
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            thread_connection.close()
            turns[turn + 1].set()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return made, errors


@pytest.mark.django_db(transaction=True)
def test_parallel_requests_store_one_result_and_enqueue_once(make_user, monkeypatch, request, enqueued):
    from tests.replays.helpers import build_world, deterministic_seeds

    deterministic_seeds(monkeypatch, request.node.nodeid)
    world = build_world(make_user)
    made, errors = _race(world, monkeypatch, 2, one_writer_at_a_time=connection.vendor == "sqlite")
    assert errors == []
    assert len(made) == 2 and len(set(made)) == 1 and FairPlayResult.objects.count() == 1
    assert enqueued == made[:1]


def test_the_sweep_asks_for_players_with_enough_new_hands(world, enqueued, settings):
    from apps.replays.audit.services import record_hand

    record_hand(hand_id=world.hand.pk)
    today = timezone.localdate()
    settings.FAIRPLAY_SWEEP_MIN_HANDS = 2
    assert fairplay.sweep_candidates(today=today) == []  # one hand each: not enough
    settings.FAIRPLAY_SWEEP_MIN_HANDS = 1
    settings.FAIRPLAY_SWEEP_MAX_PLAYERS = 2
    players = sorted(p.pk for p in world.players)
    assert fairplay.fairplay_sweep(today=today) == 2
    rows = list(FairPlayResult.objects.order_by("user_id"))
    assert [r.user_id for r in rows] == players[:2] and len(enqueued) == 2
    assert all((r.since, r.until, r.requested_by_id) == (today - timedelta(days=29), today, None) for r in rows)
    # The next night: those two have nothing new since their result; the third is asked for.
    assert fairplay.sweep_candidates(today=today) == [(world.club.pk, players[2], 1)]
    assert fairplay.fairplay_sweep(today=today) == 1 and FairPlayResult.objects.count() == 3
    assert fairplay.fairplay_sweep(today=today) == 0
