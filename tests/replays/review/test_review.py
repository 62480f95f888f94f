"""复盘 on the platform (apps/replays/review, issue #43): who may ask for which seat, one stored review
per (hand, seat) whatever the number of requests, the task stores it once, the poll's fixed cost,
the profile's weekly trend."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import translation

from apps.engine.analysis.review import review as engine_review
from apps.replays.export import hand_record
from apps.replays.review import compute, services, tasks
from apps.replays.review.compute import review_compute
from apps.replays.review.models import HandReview, ReviewStatus
from apps.replays.review.selectors import weekly_trend
from tests.replays.roles import user_of


@pytest.fixture(autouse=True)
def _small_budget(settings):
    settings.REVIEW_BUDGET_MS = 2


@pytest.fixture
def enqueued(monkeypatch):
    """The review ids sent to the task (the task itself is not run)."""
    sent: list[int] = []
    monkeypatch.setattr(services, "send_on_commit", lambda task, review_id: sent.append(review_id))
    return sent


def ask(client, hand, seat=None):
    data = {} if seat is None else {"seat": seat}
    return client.post(reverse("review:ask", args=[hand.pk]), data)


def state(client, hand, seat=None):
    query = {} if seat is None else {"seat": seat}
    return client.get(reverse("review:state", args=[hand.pk]), query)


def test_a_player_asks_for_his_seat_and_gets_the_stored_review(world, client, django_capture_on_commit_callbacks):
    p1 = world.players[1]
    client.force_login(p1)
    assert state(client, world.hand).json() == {"seat": 1, "status": "none"}
    with django_capture_on_commit_callbacks(execute=True):  # the task runs (in-process) once the request commits
        response = ask(client, world.hand)
    assert response.status_code == 202 and response.json() == {"seat": 1, "status": "pending"}
    body = state(client, world.hand).json()
    assert body["status"] == "done" and body["seat"] == 1
    row = HandReview.objects.get()
    assert (row.hand_id, row.seat, row.user_id, row.requested_by_id) == (world.hand.pk, 1, p1.pk, p1.pk)
    # Computed from the hand's stored record with the hand's own seed: the engine's answer, exactly.
    expected = engine_review(hand_record(world.hand), seat=1, seed=services.review_seed(world.hand), budget_ms=2)
    assert row.result["decisions"] == json.loads(json.dumps(expected["decisions"]))
    assert row.result["summary"] == expected["seats"]["1"]
    assert row.decisions == expected["seats"]["1"]["decisions"] > 0
    assert body["review"] == row.result
    # Asking again shows the stored one: no new row, nothing computed again.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert ask(client, world.hand).json() == body
    assert callbacks == [] and HandReview.objects.count() == 1


def test_a_second_request_while_pending_does_not_enqueue_again(world, client, enqueued):
    client.force_login(world.players[0])
    first = ask(client, world.hand)
    assert first.status_code == 202 and first.json() == {"seat": 0, "status": "pending"}
    assert ask(client, world.hand).json()["status"] == "pending"
    assert len(enqueued) == 1 and HandReview.objects.count() == 1
    assert state(client, world.hand).json() == {"seat": 0, "status": "pending"}


def test_the_task_stores_exactly_one_row_once(world, enqueued):
    review = services.review_request(hand=world.hand, seat=2, by=world.players[2])
    assert enqueued == [review.pk]
    assert tasks.compute_review.delay(review.pk).get() == "done"
    stored = HandReview.objects.get()
    assert stored.status == ReviewStatus.DONE and stored.finished_at is not None
    # A second delivery (a retry, a duplicate) finds nothing to claim and changes nothing.
    assert tasks.compute_review.delay(review.pk).get() == "skipped"
    again = HandReview.objects.get()
    assert (again.result, again.finished_at) == (stored.result, stored.finished_at)
    assert HandReview.objects.count() == 1


def test_a_failed_review_is_stored_as_failed_and_asked_for_again(world, enqueued, monkeypatch):
    review = services.review_request(hand=world.hand, seat=0, by=world.players[0])

    def broken(*args, **kwargs):
        raise ValueError("unreadable")

    with monkeypatch.context() as m:
        m.setattr(compute, "engine_review", broken)
        assert review_compute(review_id=review.pk) == "failed"
    review.refresh_from_db()
    assert (review.status, review.error, review.result) == (ReviewStatus.FAILED, "engine", None)
    again = services.review_request(hand=world.hand, seat=0, by=world.players[0])
    assert again.pk == review.pk and again.status == ReviewStatus.PENDING and enqueued == [review.pk, review.pk]


@pytest.mark.parametrize("role", ["p0", "p2"])
def test_a_player_gets_no_other_seat(world, client, role, enqueued):
    """Another seat of a hand he played: 404 for asking and for polling, no row, nothing enqueued."""
    client.force_login(user_of(world, role))
    other = (int(role[1]) + 1) % 3
    assert ask(client, world.hand, other).status_code == 404
    assert state(client, world.hand, other).status_code == 404
    assert HandReview.objects.count() == 0 and enqueued == []


@pytest.mark.parametrize("role", ["member", "outsider", "other_admin", "other_member"])
def test_who_may_not_see_the_hand_gets_404(world, client, role, enqueued):
    client.force_login(user_of(world, role))
    for seat in (None, 0, 1):
        assert ask(client, world.hand, seat).status_code == 404
        assert state(client, world.hand, seat).status_code == 404
    assert ask(client, world.hand, 0).status_code == 404
    assert HandReview.objects.count() == 0 and enqueued == []


def test_forged_and_unended_hands_are_404(world, client, enqueued):
    from tests.replays.helpers import deal_next

    client.force_login(world.players[0])
    assert ask(client, world.hand.__class__(pk=world.hand.pk + 1000)).status_code == 404
    playing = deal_next(world)
    assert ask(client, playing).status_code == 404
    assert state(client, playing).status_code == 404
    assert HandReview.objects.count() == 0 and enqueued == []


def test_anonymous_is_sent_to_sign_in(world, client):
    assert ask(client, world.hand).status_code == 302
    assert state(client, world.hand).status_code == 302


@pytest.mark.parametrize("role", ["owner", "admin", "staff"])
def test_managers_may_ask_for_any_seat(world, client, role, enqueued):
    client.force_login(user_of(world, role))
    for seat in (0, 1, 2):
        assert ask(client, world.hand, seat).json() == {"seat": seat, "status": "pending"}
    assert sorted(HandReview.objects.values_list("seat", "user_id")) == [
        (i, p.pk) for i, p in enumerate(world.players)]
    # A manager who did not play has no seat of his own: he must name one.
    assert ask(client, world.hand).status_code == 400


@pytest.mark.parametrize("seat", ["3", "-1", "x", "1.5"])
def test_a_bad_seat_is_a_clear_error_that_changes_nothing(world, client, seat, enqueued):
    client.force_login(world.owner)
    response = ask(client, world.hand, seat)
    assert response.status_code == 400
    assert response.json()["error"] == "bad_seat" and response.json()["message"]
    assert state(client, world.hand, seat).status_code == 400
    assert HandReview.objects.count() == 0 and enqueued == []


def test_the_poll_costs_a_fixed_number_of_queries(world, client, django_assert_num_queries, enqueued):
    client.force_login(world.players[1])
    client.get(reverse("review:state", args=[world.hand.pk]))  # the session, warmed
    # the session, the user, the hand (with its table and club), the review row
    with django_assert_num_queries(4):
        state(client, world.hand)
    ask(client, world.hand)
    with django_assert_num_queries(4):
        assert state(client, world.hand).json()["status"] == "pending"
    review_compute(review_id=HandReview.objects.get().pk)
    with django_assert_num_queries(4):
        assert state(client, world.hand).json()["status"] == "done"


def _race(world, monkeypatch, requests: int, *, one_writer_at_a_time: bool) -> tuple[list, list]:
    """``requests`` threads ask for the same seat at once, and every one of them has looked for the
    row and found none before any goes on to create it: the race the unique constraint decides.

    ``one_writer_at_a_time``: after that look, the threads write one after the other (SQLite's
    in-memory test database refuses a second writer at once, where a file database waits for it);
    each still believes there is no row. Otherwise (PostgreSQL) they all insert at once."""
    barrier = threading.Barrier(requests)
    turns = [threading.Event() for _ in range(requests + 1)]
    turns[0].set()
    made, errors = [], []
    real_review_of = services.review_of
    order = iter(range(requests))
    mine = threading.local()

    def racing_review_of(**kwargs):
        found = real_review_of(**kwargs)
        barrier.wait(timeout=60)  # every request has looked: none found a row (a thread that failed first breaks it)
        if one_writer_at_a_time:
            assert turns[mine.turn].wait(timeout=60)
        return found

    monkeypatch.setattr(services, "review_of", racing_review_of)

    def run(turn):
        from django.db import connection as thread_connection

        mine.turn = turn
        try:
            made.append(services.review_request(hand=world.hand, seat=1, by=world.players[1]).pk)
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            thread_connection.close()
            turns[turn + 1].set()

    threads = [threading.Thread(target=run, args=(next(order),)) for _ in range(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return made, errors


@pytest.mark.django_db(transaction=True)
def test_parallel_requests_store_one_review_and_enqueue_once(make_user, monkeypatch, request, enqueued):
    from tests.replays.helpers import build_world, deterministic_seeds

    deterministic_seeds(monkeypatch, request.node.nodeid)
    world = build_world(make_user)
    made, errors = _race(world, monkeypatch, 2, one_writer_at_a_time=connection.vendor == "sqlite")
    assert errors == []
    assert len(made) == 2 and len(set(made)) == 1 and HandReview.objects.count() == 1
    assert enqueued == made[:1]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="PostgreSQL only: writers inserting at the same moment (SQLite's test database takes one)")
def test_many_parallel_requests_on_postgresql_store_one_review(make_user, monkeypatch, request, enqueued):
    from tests.replays.helpers import build_world, deterministic_seeds

    deterministic_seeds(monkeypatch, request.node.nodeid)
    world = build_world(make_user)
    # 3 at once: within the pool's 8 connections even when this worker's table threads keep theirs (3)
    made, errors = _race(world, monkeypatch, 3, one_writer_at_a_time=False)
    assert errors == []
    assert len(made) == 3 and len(set(made)) == 1 and HandReview.objects.count() == 1
    assert enqueued == made[:1]


def test_the_weekly_trend_is_one_query(world, enqueued, django_assert_num_queries):
    p1 = world.players[1]
    review = services.review_request(hand=world.hand, seat=1, by=p1)
    review_compute(review_id=review.pk)
    review.refresh_from_db()
    services.review_request(hand=world.hand, seat=2, by=world.owner)  # pending, another player's
    with django_assert_num_queries(1):
        trend = weekly_trend(p1)
    assert len(trend) == 1
    row = trend[0]
    assert row["hands"] == 1 and row["decisions"] == review.decisions
    assert row["mean_loss"] == pytest.approx(review.loss / review.decisions, abs=1e-3)
    assert row["mistake_rate"] == pytest.approx(review.mistakes / review.decisions, abs=1e-3)
    assert weekly_trend(world.players[2]) == []  # not done yet


def test_the_replay_page_offers_the_review_in_chinese_but_not_through_a_share_code(world, client):
    client.force_login(world.players[0])
    page = client.get(reverse("replays:hand", args=[world.hand.pk])).content.decode()
    assert 'id="review"' in page and "复盘本局" in page and 'data-seat="0"' in page
    assert "js/replay/review.js" in page and 'id="review-strings"' in page
    assert 'name="seat" id="review-seat"' not in page  # a player has his own seat, no choice
    client.force_login(world.owner)
    page = client.get(reverse("replays:hand", args=[world.hand.pk])).content.decode()
    assert 'name="seat" id="review-seat"' in page  # a manager chooses the seat
    from apps.replays.services import share_create

    share = share_create(user=world.players[0], hand=world.hand)
    client.force_login(world.outsider)
    page = client.get(reverse("replays:share_open", args=[share.code])).content.decode()
    assert 'id="review"' not in page and "review.js" not in page


def test_the_profile_shows_the_weekly_trend(world, client, enqueued):
    p1 = world.players[1]
    client.force_login(p1)
    assert "还没有复盘过的牌局" in client.get(reverse("accounts:profile")).content.decode()
    review = services.review_request(hand=world.hand, seat=1, by=p1)
    review_compute(review_id=review.pk)
    page = client.get(reverse("accounts:profile")).content.decode()
    assert "复盘趋势" in page and 'id="review-trend-data"' in page and "js/replay/trend.js" in page
    assert "vendor/uplot-1.6.32/uPlot.min.css" in page


def test_the_review_words_are_chinese_first_and_english_through_i18n():
    from apps.replays.review.templatetags.review_tags import review_strings

    with translation.override("zh-hans"):
        zh = review_strings()
    with translation.override("en"):
        en = review_strings()
    assert zh["agreement"] == "一致率" and en["agreement"] == "Agreement"
    assert zh["mistakeCost"] % {"loss": "2.50"} == "失误：损失 2.50 分"
    assert en["mistakeCost"] % {"loss": "2.50"} == "Mistake: costs 2.50 points"
    untranslated = [k for k in zh if zh[k] == en[k]]
    assert untranslated == []


def test_a_dissolved_hand_is_refused_clearly_and_nothing_is_stored(world, client, enqueued):
    from apps.tables.models import Hand

    Hand.objects.filter(pk=world.hand.pk).update(status="dissolved")
    client.force_login(world.players[0])
    response = ask(client, world.hand)
    assert response.status_code == 400 and response.json()["error"] == "not_finished"
    assert HandReview.objects.count() == 0 and enqueued == []


def test_a_seats_review_holds_only_that_seats_decisions(world, client, django_capture_on_commit_callbacks):
    """What a manager reads for seat 2 is seat 2's decisions, weighed from seat 2's view only."""
    client.force_login(world.admin)
    with django_capture_on_commit_callbacks(execute=True):
        ask(client, world.hand, 2)
    body = state(client, world.hand, 2).json()
    assert body["status"] == "done"
    decisions = body["review"]["decisions"]
    assert decisions and {d["seat"] for d in decisions} == {2}
    # The seat's own player reads the same stored review; the other players get 404 for it.
    client.force_login(world.players[2])
    assert state(client, world.hand).json() == body
    client.force_login(world.players[0])
    assert state(client, world.hand, 2).status_code == 404
