"""Leaderboards kept incrementally: every settlement (RULES.md §9.3–9.4: score and 飘 per seat) adds to
its players' day, month and all-time buckets in the posting's own database transaction, exactly
once; ``manage.py rebuild_leaderboards`` recomputes them from the ledger and agrees."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.clubs.models import Membership
from apps.ledgers import leaderboards, selectors, services
from apps.ledgers.models import LeaderboardBucket, Transaction


def settle_at(monkeypatch, hand, at):
    """Settle a hand as if now were ``at`` (the bucket day is the settlement's local date)."""
    monkeypatch.setattr(services, "timezone", SimpleNamespace(now=lambda: at))
    try:
        return services.settle_hand(hand_id=hand.pk)
    finally:
        monkeypatch.setattr(services, "timezone", timezone)


def snapshot(club):
    return sorted(
        LeaderboardBucket.objects.filter(club=club).values_list(
            "user_id", "span", "day", "points", "hands", "wins", "best_hand", "best_huxi", "last_at"
        )
    )


def check(club_id) -> int:
    try:
        call_command("rebuild_leaderboards", "--club", str(club_id), "--check")
    except SystemExit as exc:
        return exc.code
    return 0


def test_a_settlement_adds_to_day_month_and_all_time_once(make_finished_hand, people):
    hand = make_finished_hand(options={"piao": True}, piao={0: 1, 1: 2, 2: 3})
    assert services.settle_hand(hand_id=hand.pk).status == "posted"
    buckets = snapshot(people["club"])
    assert len(buckets) == 9  # three players x (day, month, all time)
    today = timezone.localdate()
    assert {(b[1], b[2]) for b in buckets} == {("day", today), ("month", today.replace(day=1)),
                                               ("all", leaderboards.ALL_TIME_DAY)}
    assert sum(b[3] for b in buckets if b[1] == "all") == 0  # zero-sum game points
    assert all(b[4] == 1 for b in buckets)
    # A duplicate delivery posts nothing and adds nothing.
    assert services.settle_hand(hand_id=hand.pk).status == "already"
    assert snapshot(people["club"]) == buckets


def test_buckets_and_posting_are_one_transaction(make_finished_hand, people, monkeypatch):
    """A bucket write that fails (here: a row the check constraint refuses) posts nothing at all."""
    hand = make_finished_hand()
    real = leaderboards.settlement_rows

    def broken(**kwargs):
        return [(*row[:4], 0, *row[5:]) for row in real(**kwargs)]  # hands = 0: refused

    monkeypatch.setattr(leaderboards, "settlement_rows", broken)
    with pytest.raises(DatabaseError):
        services.settle_hand(hand_id=hand.pk)
    assert not Transaction.objects.filter(hand=hand).exists()
    assert not LeaderboardBucket.objects.exists()
    monkeypatch.undo()
    assert services.settle_hand(hand_id=hand.pk).status == "posted"
    assert check(people["club"].pk) == 0


def test_incremental_buckets_equal_the_rebuild_from_the_ledger(make_finished_hand, people, monkeypatch, capsys):
    """Wins with 飘, draws (§9.4 荒庄: a hand, no points), fees, a bot seat, a practice table, an
    adjustment, over several days and months: the kept buckets are what the ledger says."""
    now = timezone.now()
    club = people["club"]
    plain = make_finished_hand(fee=2, fee_payer="each")
    settle_at(monkeypatch, plain, now)
    table = plain.table
    for days, kwargs in ((1, {"want": "draw"}), (35, {}), (35, {"want": "draw"}), (70, {}), (400, {})):
        settle_at(monkeypatch, make_finished_hand(table=table, **kwargs), now - timedelta(days=days))
    piao = make_finished_hand(options={"piao": True}, piao={0: 5, 1: 0, 2: 1}, fee=3, fee_payer="winner")
    settle_at(monkeypatch, piao, now - timedelta(days=3))
    bot = make_finished_hand(users=[people["member"], people["other"]])  # seat 2 is a bot (the house)
    settle_at(monkeypatch, bot, now - timedelta(hours=5))
    practice = make_finished_hand(practice=True)
    settle_at(monkeypatch, practice, now)
    member = Membership.objects.get(club=club, user=people["member"])
    services.adjustment_create(club=club, member=member, amount=50, reason="gift", by=people["owner"])

    kept = snapshot(club)
    assert leaderboards.compare_club(club_id=club.pk) == []
    assert check(club.pk) == 0
    call_command("rebuild_leaderboards", "--club", str(club.pk))
    assert snapshot(club) == kept
    assert "buckets rebuilt from the ledger" in capsys.readouterr().out
    all_time = {r.user_id: r for r in selectors.leaderboard(club=club, period="all")}
    assert all_time[people["member"].pk].hands == 8  # every hand but the practice one
    assert people["admin"].pk not in all_time  # the adjustment is no game result

    # A bucket gone wrong is found, and the repair puts it right.
    bucket = LeaderboardBucket.objects.filter(club=club, span="all").first()
    LeaderboardBucket.objects.filter(pk=bucket.pk).update(points=bucket.points + 7)
    assert check(club.pk) == 1
    assert "differ" in capsys.readouterr().out
    call_command("rebuild_leaderboards", "--all")
    assert snapshot(club) == kept and check(club.pk) == 0


def test_rebuild_command_refuses_an_unknown_club(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no club with id 999999"):
        call_command("rebuild_leaderboards", "--club", "999999")


def test_ledger_audit_checks_the_buckets(make_finished_hand, people, capsys):
    services.settle_hand(hand_id=make_finished_hand().pk)
    call_command("ledger_audit")
    assert "ok   leaderboard buckets not equal to the ledger" in capsys.readouterr().out
    LeaderboardBucket.objects.filter(club=people["club"], span="day").update(wins=0)
    with pytest.raises(SystemExit):
        call_command("ledger_audit")
    assert "FAIL leaderboard buckets not equal to the ledger" in capsys.readouterr().out


def test_week_sums_its_days(make_finished_hand, people, monkeypatch):
    """This week = the day buckets since Monday; last week's hands are not in it."""
    now = timezone.localtime()
    monday = now - timedelta(days=now.weekday())
    table = None
    for when in (monday - timedelta(days=1), monday, now):
        hand = make_finished_hand(table=table)
        table = hand.table
        settle_at(monkeypatch, hand, when)
    week = selectors.leaderboard(club=people["club"], period="week")
    assert {r.hands for r in week} == {2}
    assert {r.hands for r in selectors.leaderboard(club=people["club"], period="all")} == {3}


def test_points_chart_resolution(make_finished_hand, people, monkeypatch):
    """Per hand while there are few, else per day (and per month for an old all-time board): the
    last point is always the player's total for the period."""
    now = timezone.now()
    table = None
    for days in (0, 1, 2, 100):
        hand = make_finished_hand(table=table)
        table = hand.table
        settle_at(monkeypatch, hand, now - timedelta(days=days))
    user = people["member"].pk
    total = next(r.points for r in selectors.leaderboard(club=people["club"], period="all") if r.user_id == user)
    per_hand = selectors.score_series(club=people["club"], user_ids=[user], period="all")[user]
    assert len(per_hand) == 4 and per_hand[-1][1] == total
    monkeypatch.setattr(selectors, "CHART_HAND_POINTS", 1)
    per_month = selectors.score_series(club=people["club"], user_ids=[user], period="all")[user]
    months = {timezone.localdate(t).replace(day=1) for t, _ in per_hand}
    assert len(per_month) == len(months) and per_month[-1][1] == total
    monkeypatch.setattr(selectors, "CHART_DAYS", 1000)
    per_day = selectors.score_series(club=people["club"], user_ids=[user], period="all")[user]
    assert len(per_day) == len({timezone.localdate(t) for t, _ in per_hand}) and per_day[-1][1] == total


def test_board_queries_do_not_grow_with_history(client, make_finished_hand, people, monkeypatch):
    def page_queries():
        client.force_login(people["member"])
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"/ledgers/{people['club'].pk}/leaderboard/", {"period": "all"}).status_code == 200
        return len(ctx.captured_queries)

    monkeypatch.setattr(selectors, "CHART_HAND_POINTS", 0)  # the chart from buckets, as a big club's
    now = timezone.now()
    hand = make_finished_hand()
    settle_at(monkeypatch, hand, now)
    small = page_queries()
    for days in range(1, 30):
        settle_at(monkeypatch, make_finished_hand(table=hand.table), now - timedelta(days=days * 7))
    assert page_queries() == small
