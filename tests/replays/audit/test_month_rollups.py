"""Audit statistics over long periods cost their months: every recorded hand adds to its day rows
and to its month rows (same transaction, exactly once); a report's sums from whole months plus
partial-month days equal the sums of the day rows for any period."""

from __future__ import annotations

import random
from datetime import date, timedelta

from django.db.models import Sum
from django.utils import timezone

from apps.replays.audit import selectors
from apps.replays.audit.models import PairDay, PairMonth, PlayerDay, PlayerMonth
from apps.replays.audit.services import PAIR_FIELDS, PLAYER_FIELDS
from apps.replays.audit.tasks import record_hand
from tests.replays.audit.helpers import TableWriter, days_ago, honest


def rounded(values):
    return tuple(round(v, 6) if isinstance(v, float) else v for v in values)


def day_sums(model, club, since, until, keys, fields):
    qs = model.objects.filter(club=club)
    if since:
        qs = qs.filter(day__gte=since)
    if until:
        qs = qs.filter(day__lte=until)
    rows = qs.values(*keys).annotate(**{f: Sum(f) for f in fields}).order_by()
    return {tuple(r[k] for k in keys): rounded(r[f] for f in fields) for r in rows}


def as_map(rows, keys, fields):
    return {tuple(r[k] for k in keys): rounded(r[f] for f in fields) for r in rows}


def test_month_rows_and_period_sums(make_user, make_club):
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    club = make_club("Club", owner=a, members=[b, c])
    rng = random.Random(5)
    for n, ago in enumerate((0, 1, 33, 34, 70, 140)):
        writer = TableWriter(club, [a, b, c], start=days_ago(ago), name=f"T{n}")
        for k in range(2):
            hand = writer.play([honest] * 3, f"m-{n}-{k}", rng)
            assert record_hand.delay(hand.pk).get() == "recorded"
            assert record_hand.delay(hand.pk).get() == "already"
    # the month rows are the sums of their days
    for day_model, month_model, keys, fields in ((PairDay, PairMonth, ("giver", "taker"), PAIR_FIELDS),
                                                 (PlayerDay, PlayerMonth, ("user",), PLAYER_FIELDS)):
        months = {m.day for m in month_model.objects.filter(club=club)}
        assert months and all(m.day == 1 for m in months)
        for month in months:
            end = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
            got = as_map(month_model.objects.filter(club=club, day=month).values(*keys, *fields), keys, fields)
            assert got == day_sums(day_model, club, month, end, keys, fields)
        today = timezone.localdate()
        for since, until in ((None, None), (today - timedelta(days=40), None), (None, today - timedelta(days=30)),
                             (today - timedelta(days=100), today - timedelta(days=2)), (today, today),
                             (date(1990, 1, 1), date(2999, 1, 1)), (today + timedelta(days=1), None)):
            got = as_map(selectors.period_sums(day_model, month_model, club=club, since=since, until=until,
                                               keys=keys, fields=fields), keys, fields)
            assert got == day_sums(day_model, club, since, until, keys, fields), (since, until)
