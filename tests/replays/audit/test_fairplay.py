"""信息优势 on the platform (apps/replays/audit/fairplay.py, issue #44): one stored result per (club,
subject, period) whatever the number of requests, the task stores it once and it is the engine's
answer, the nightly sweep's choice of players, who may see the pages, the collusion report's column."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from apps.clubs.models import AuditLog
from apps.engine.analysis.fairplay import fairplay as engine_fairplay
from apps.engine.analysis.fairplay import score as engine_score
from apps.replays.audit import fairplay, fairplay_work, tasks
from apps.replays.audit.fairplay import FairPlayError, fairplay_compute, fairplay_request
from apps.replays.audit.models import FairPlayResult, FairPlayStatus
from apps.replays.export import hand_record
from tests.replays.roles import user_of


@pytest.fixture(autouse=True)
def _small_budget(settings):
    settings.FAIRPLAY_BUDGET_MS = 5


@pytest.fixture
def enqueued(monkeypatch):
    """The result ids sent to the task (the task itself is not run)."""
    sent: list[int] = []
    monkeypatch.setattr(fairplay, "send_on_commit", lambda task, result_id: sent.append(result_id))
    monkeypatch.setattr(tasks, "send_on_commit", lambda task, result_id: sent.append(result_id))
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
        m.setattr(fairplay_work, "engine_score", broken)
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
    real = fairplay_work.result_of
    mine = threading.local()

    def racing(**kwargs):
        found = real(**kwargs)
        barrier.wait(timeout=60)
        if one_writer_at_a_time:
            assert turns[mine.turn].wait(timeout=60)
        return found

    monkeypatch.setattr(fairplay_work, "result_of", racing)

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
    assert tasks.sweep_fairplay(today=today) == 2
    rows = list(FairPlayResult.objects.order_by("user_id"))
    assert [r.user_id for r in rows] == players[:2] and len(enqueued) == 2
    assert all((r.since, r.until, r.requested_by_id) == (today - timedelta(days=29), today, None) for r in rows)
    # The next night: those two have nothing new since their result; the third is asked for.
    assert fairplay.sweep_candidates(today=today) == [(world.club.pk, players[2], 1)]
    assert tasks.sweep_fairplay(today=today) == 1 and FairPlayResult.objects.count() == 3
    assert tasks.sweep_fairplay(today=today) == 0


# --- pages -------------------------------------------------------------------------------------


def _done(world, user, enqueued_ids=None):
    row = ask(world, user)
    assert fairplay_compute(result_id=row.pk) == "done"
    row.refresh_from_db()
    return row


def page(client, world, row):
    return client.get(reverse("audit:fairplay", args=[world.club.pk, row.pk]))


@pytest.mark.parametrize("role", ["owner", "admin", "staff"])
def test_managers_and_staff_open_the_page_and_it_is_audit_logged(world, client, role, enqueued):
    row = _done(world, world.players[1])
    viewer = user_of(world, role)
    client.force_login(viewer)
    response = page(client, world, row)
    assert response.status_code == 200
    body = response.content.decode()
    assert "信息优势" in body and "这是供参考的统计证据，不是作弊的证明" in body
    assert "偶然出现的概率" in body and 'data-testid="fp-score"' in body
    # The parts' z-scores and the formula are behind the 技术细节 fold, not a bare "z" column up front.
    parts = body[body.index('data-testid="fp-parts"'):body.index("</table>", body.index('data-testid="fp-parts"'))]
    assert ">z<" not in parts and "偶然性" in parts
    tech = body[body.index('<details class="tech" data-testid="fp-tech">'):]
    tech = tech[:tech.index("</details>")]
    assert "技术细节" in tech and "z = " in tech and "√" in tech
    assert "z = " not in body.replace(tech, "")
    log = AuditLog.objects.filter(action="audit.fairplay_view").get()
    assert (log.club_id, log.actor_id, log.target_user_id, log.detail["result"]) == (
        world.club.pk, viewer.pk, world.players[1].pk, row.pk)
    for top in row.result["top_hands"]:  # each telling decision links to the replay at that move, that seat
        for d in top["decisions"]:
            assert f'{reverse("replays:hand", args=[top["hand"]])}?seat={top["seat"]}#{d["index"]}' in body
    state = client.get(reverse("audit:fairplay_state", args=[world.club.pk, row.pk]))
    assert state.json() == {"status": "done"}
    assert AuditLog.objects.filter(action="audit.fairplay_view").count() == 1  # the poll is not logged


@pytest.mark.parametrize(("role", "status"), [("member", 403), ("p1", 403), ("other_admin", 404),
                                              ("other_member", 404), ("outsider", 404)])
def test_others_never_see_it(world, client, role, status, enqueued):
    row = _done(world, world.players[1])
    client.force_login(user_of(world, role))
    assert page(client, world, row).status_code == status
    assert client.get(reverse("audit:fairplay_state", args=[world.club.pk, row.pk])).status_code == status
    since, until = period()
    asked = client.post(reverse("audit:fairplay_ask", args=[world.club.pk]),
                        {"user": world.players[0].pk, "since": since, "until": until})
    assert asked.status_code == status
    assert FairPlayResult.objects.count() == 1 and not AuditLog.objects.filter(action__startswith="audit.fairplay")


def test_another_clubs_result_is_404_to_this_clubs_admin(world, client, enqueued):
    from apps.clubs.models import Club

    row = _done(world, world.players[1])
    other = Club.objects.exclude(pk=world.club.pk).get()
    client.force_login(world.other_admin)
    assert client.get(reverse("audit:fairplay", args=[other.pk, row.pk])).status_code == 404


def test_an_admin_asks_from_the_report_and_is_sent_to_the_waiting_page(world, client, enqueued):
    client.force_login(world.admin)
    since, until = period()
    response = client.post(reverse("audit:fairplay_ask", args=[world.club.pk]),
                           {"user": world.players[2].pk, "since": since, "until": until})
    row = FairPlayResult.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("audit:fairplay",
                                                                          args=[world.club.pk, row.pk])
    assert (row.user_id, row.partner_id, row.requested_by_id) == (world.players[2].pk, None, world.admin.pk)
    assert enqueued == [row.pk] and AuditLog.objects.filter(action="audit.fairplay_request").count() == 1
    body = client.get(response["Location"]).content.decode()
    assert 'data-testid="working"' in body and "js/audit/fairplay.js" in body
    # asking again: the same row, nothing enqueued
    client.post(reverse("audit:fairplay_ask", args=[world.club.pk]),
                {"user": world.players[2].pk, "since": since, "until": until})
    assert FairPlayResult.objects.count() == 1 and enqueued == [row.pk]
    # a pair
    client.post(reverse("audit:fairplay_ask", args=[world.club.pk]),
                {"user": world.players[2].pk, "partner": world.players[0].pk, "since": since, "until": until})
    pair = FairPlayResult.objects.exclude(pk=row.pk).get()
    assert (pair.user_id, pair.partner_id) == (world.players[0].pk, world.players[2].pk)
    # an outsider is not a choice
    bad = client.post(reverse("audit:fairplay_ask", args=[world.club.pk]),
                      {"user": world.outsider.pk, "since": since, "until": until})
    assert bad.status_code == 302 and FairPlayResult.objects.count() == 2


def test_the_collusion_report_shows_the_latest_score_of_each_player(world, client, enqueued):
    from apps.replays.audit.services import record_hand

    record_hand(hand_id=world.hand.pk)
    row = _done(world, world.players[1])
    client.force_login(world.owner)
    body = client.get(reverse("audit:collusion", args=[world.club.pk])).content.decode()
    assert "信息优势" in body and 'data-testid="fairplay-ask"' in body
    assert f'name="until" value="{timezone.localdate().isoformat()}"' in body  # ISO: a date input shows it
    assert reverse("audit:fairplay", args=[world.club.pk, row.pk]) in body
    assert body.count('data-testid="fp-cell"') >= 1


def test_the_report_sorts_by_the_information_advantage_column(world, client, enqueued):
    import re

    from apps.replays.audit.services import record_hand

    record_hand(hand_id=world.hand.pk)
    _done(world, world.players[1])
    client.force_login(world.owner)
    url = reverse("audit:collusion", args=[world.club.pk])
    body = client.get(url).content.decode()
    assert 'data-testid="sort-fairplay"' in body and 'data-testid="sort-score"' not in body
    body = client.get(url, {"order": "fairplay"}).content.decode()
    assert 'data-testid="sort-score"' in body and 'data-testid="sort-fairplay"' not in body
    pairs = [tuple(map(int, p.split("-"))) for p in re.findall(r'data-pair="(\d+-\d+)"', body)]
    scored = [world.players[1].pk in p for p in pairs]
    assert len(pairs) >= 2 and any(scored)
    assert scored == sorted(scored, reverse=True), pairs  # the pairs with a score come first


def test_the_collusion_csv_carries_each_players_latest_score(world, client, enqueued):
    import csv
    import io

    from apps.replays.audit.services import record_hand

    record_hand(hand_id=world.hand.pk)
    row = _done(world, world.players[1])
    client.force_login(world.owner)
    response = client.get(reverse("audit:collusion_csv", args=[world.club.pk]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows
    names = {u.name: u for u in world.players}
    for r in rows:
        for side in ("a", "b"):
            if names.get(r[f"user_{side}"]) == world.players[1]:
                assert (r[f"fairplay_{side}_score"], r[f"fairplay_{side}_p"], r[f"fairplay_{side}_flagged"]) == (
                    str(round(row.score, 2)), f"{row.p:.3g}", str(int(row.flagged)))
            else:
                assert r[f"fairplay_{side}_score"] == r[f"fairplay_{side}_p"] == ""
    assert any(world.players[1].name in (r["user_a"], r["user_b"]) for r in rows)


def test_p_in_words():
    from django.utils import translation

    from apps.replays.audit.templatetags.audit_words import action_words, p_words

    with translation.override("zh-hans"):
        assert p_words(0.0005) == "偶然出现的概率约为 1/2000"
        assert p_words(0.5) == "偶然出现的概率约为 50%"
        assert p_words(1e-9) == "偶然出现的概率不到百万分之一"
        assert action_words({"type": "discard", "card": "s8"}).endswith(" 八")
        assert action_words({"type": "chi", "groups": [["b1", "b2", "b3"]]}).endswith(" 壹贰叁")


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="PostgreSQL only: writers inserting at the same moment (SQLite's test database takes one)")
def test_many_parallel_requests_on_postgresql_store_one_result(make_user, monkeypatch, request, enqueued):
    from tests.replays.helpers import build_world, deterministic_seeds

    deterministic_seeds(monkeypatch, request.node.nodeid)
    world = build_world(make_user)
    made, errors = _race(world, monkeypatch, 3, one_writer_at_a_time=False)
    assert errors == []
    assert len(made) == 3 and len(set(made)) == 1 and FairPlayResult.objects.count() == 1
    assert enqueued == made[:1]


def test_the_job_runs_on_the_review_queue_and_the_sweep_nightly(settings):
    from config.celery import app

    for name in ("apps.replays.audit.tasks.compute_fairplay", "apps.replays.review.tasks.compute_review"):
        assert app.amqp.router.route({}, name)["queue"].name == settings.REVIEW_QUEUE
    assert app.amqp.router.route({}, "apps.replays.audit.tasks.sweep_fairplay")["queue"].name != settings.REVIEW_QUEUE
    entry = settings.CELERY_BEAT_SCHEDULE["audit-sweep-fairplay"]
    assert entry == {"task": "apps.replays.audit.tasks.sweep_fairplay", "schedule": 86400.0}
    assert entry["task"] in app.tasks


def test_the_page_lists_the_subjects_other_results(world, client, enqueued):
    row = _done(world, world.players[0])
    today = timezone.localdate()
    older = fairplay_request(club=world.club, user_id=world.players[0].pk, since=today - timedelta(days=60),
                             until=today - timedelta(days=31), by=world.owner)
    other = ask(world, world.players[1])  # another player's: not listed
    client.force_login(world.admin)
    body = page(client, world, row).content.decode()
    assert 'data-testid="fp-history"' in body and "其他结果" in body and "等待中" in body
    assert reverse("audit:fairplay", args=[world.club.pk, older.pk]) in body
    assert reverse("audit:fairplay", args=[world.club.pk, other.pk]) not in body


def test_the_pair_page_asks_for_the_pairs_score(world, client, enqueued):
    from apps.replays.audit.services import record_hand

    record_hand(hand_id=world.hand.pk)
    p0, p2 = sorted([world.players[0], world.players[2]], key=lambda u: u.pk)
    url = reverse("audit:collusion_pair", args=[world.club.pk, p0.pk, p2.pk])
    client.force_login(world.owner)
    body = client.get(url).content.decode()
    assert 'data-testid="pair-fairplay"' in body and "按搭档计算" in body
    assert f'name="user" value="{p0.pk}"' in body and f'name="partner" value="{p2.pk}"' in body
    since, until = period()
    client.post(reverse("audit:fairplay_ask", args=[world.club.pk]),
                {"user": p0.pk, "partner": p2.pk, "since": since, "until": until})
    row = FairPlayResult.objects.get()
    assert (row.user_id, row.partner_id) == (p0.pk, p2.pk)
    body = client.get(url).content.decode()
    assert reverse("audit:fairplay", args=[world.club.pk, row.pk]) in body and "等待中" in body


def test_only_the_periods_hands_count(world, client, enqueued):
    today = timezone.localdate()
    before = fairplay_request(club=world.club, user_id=world.players[0].pk, since=today - timedelta(days=9),
                              until=today - timedelta(days=1))
    assert fairplay.subject_hands(before) == []
    assert fairplay_compute(result_id=before.pk) == "done"
    before.refresh_from_db()
    assert (before.hands, before.decisions, before.telling, before.flagged) == (0, 0, 0, False)
    client.force_login(world.owner)
    body = page(client, world, before).content.decode()
    assert "无从计算" in body and 'data-testid="fp-score"' not in body
    today_only = fairplay_request(club=world.club, user_id=world.players[0].pk, since=today, until=today)
    assert [h.pk for h, _ in fairplay.subject_hands(today_only)] == [world.hand.pk]


def test_the_result_page_in_english_speaks_english(world, client, enqueued):
    from tests.language import CJK, VisibleText, problems

    row = _done(world, world.players[1])
    client.force_login(world.admin)
    body = client.get(reverse("audit:fairplay", args=[world.club.pk, row.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Information advantage" in body and "This is statistical evidence to look at, not proof of cheating." in body
    assert "Technical details" in body and "Took the informed choice" in body
    page = VisibleText()
    page.feed(body)
    # No Chinese but what the users named (the club, the players, the tables), the cards' names and
    # the language switch's 中文.
    names = {w for text in (world.club.name, *(u.name for u in world.players), world.hand.table.name)
             for w in CJK.findall(text)} | {"中文"}
    cards = set("一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾小大")
    shown = set(CJK.findall(page.text))
    allowed = {w for w in shown if w in names or set(w) <= cards}
    assert shown - allowed == set(), shown - allowed
    assert problems(page.text, chinese=False, data_words=frozenset(allowed)) == []  # no raw key, JSON, ISO time
