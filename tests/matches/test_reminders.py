"""Issue #47: match reminders come from the existing beat job (``start_due_matches``), each
exactly once per entrant however often the job runs: check-in opens, the match starts in 5
minutes, your round's table is ready (with its link)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts import notices
from apps.accounts.models import Notice
from apps.matches import services, tasks
from apps.matches.models import MatchTable
from tests.matches.conftest import register_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(monkeypatch):
    """clock(at): the time every service and task reads (django.utils.timezone.now)."""
    now = [timezone.now()]
    monkeypatch.setattr(timezone, "now", lambda: now[0])

    def _set(at):
        now[0] = at

    return _set


@pytest.fixture
def sent(monkeypatch):
    """The notices handed to the channel layer (after their commits)."""
    out = []
    monkeypatch.setattr(notices, "send", out.append)
    return out


def keys(kind):
    return sorted(Notice.objects.filter(kind=kind).values_list("recipient_id", "key"))


def run_job_twice(django_capture_on_commit_callbacks):
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            tasks.start_due_matches()


def test_each_reminder_once_however_often_the_job_runs(match_club, make_match, clock, sent,
                                                      django_capture_on_commit_callbacks):
    club, owner, _admin, players = match_club(n=4)
    match = make_match(club, owner)
    register_all(match, players[:3], check_in=False)
    ids = sorted(p.pk for p in players[:3])

    clock(match.checkin_opens_at - timedelta(seconds=1))
    run_job_twice(django_capture_on_commit_callbacks)
    assert not Notice.objects.exists()  # not yet

    clock(match.checkin_opens_at + timedelta(seconds=1))
    run_job_twice(django_capture_on_commit_callbacks)
    assert keys("match_checkin") == [(u, f"match:{match.pk}:checkin") for u in ids]
    assert len(sent) == 3 and {n.recipient_id for n in sent} == set(ids)
    assert all(n.url == f"/matches/{match.pk}/" for n in sent)
    services.check_in(match=match, user=players[0], now=timezone.now())

    clock(match.starts_at - timedelta(minutes=4))
    run_job_twice(django_capture_on_commit_callbacks)
    run_job_twice(django_capture_on_commit_callbacks)
    assert keys("match_soon") == [(u, f"match:{match.pk}:soon") for u in ids]
    assert len(keys("match_checkin")) == 3 and len(sent) == 6
    with django_capture_on_commit_callbacks(execute=True):  # the 4th entrant registers late: told once too
        services.register(match=match, user=players[3])
    run_job_twice(django_capture_on_commit_callbacks)
    assert {n.recipient_id for n in sent[6:]} == {players[3].pk} and len(sent) == 8

    for p in players[1:]:
        services.check_in(match=match, user=p, now=timezone.now())
    clock(match.starts_at + timedelta(seconds=1))
    run_job_twice(django_capture_on_commit_callbacks)
    match.refresh_from_db()
    assert match.state == "running"
    tables = {u: mt.table_id for mt in MatchTable.objects.filter(match=match) for u in mt.seats}
    ready = Notice.objects.filter(kind="match_table")
    assert sorted(n.recipient_id for n in ready) == sorted(tables)
    for notice in ready:
        assert notice.url == f"/tables/{tables[notice.recipient_id]}/"
        assert notice.params == {"match": match.name, "round": 1}
    services.advance(match_id=match.pk)  # the beat's safety net seats nothing twice, tells nobody twice
    assert Notice.objects.filter(kind="match_table").count() == len(tables)
    assert len([n for n in sent if n.kind == "match_table"]) == len(tables)


def test_a_reminder_in_its_readers_words(match_club, make_match):
    club, owner, _admin, players = match_club(n=3)
    match = make_match(club, owner, name="周末赛")
    notice = notices.notify(recipient_id=players[0].pk, kind="match_table", key="k", url="/tables/9/",
                            params={"match": match.name, "round": 2})
    assert notices.render(notices.facts(notice))["text"] == "周末赛 第 2 轮：你的牌桌已就绪"
