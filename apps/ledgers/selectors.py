"""Read-side queries of the ledger."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.db import connection
from django.db.models import Exists, Max, OuterRef, Q, QuerySet, Sum
from django.db.models.expressions import RawSQL
from django.utils import timezone

from apps.clubs.models import FeePayer

from .models import (
    ALL_TIME_DAY,
    Account,
    AccountKind,
    Entry,
    EntryKind,
    LeaderboardBucket,
    Period,
    Span,
    Transaction,
)

# The lines that are results of play (leaderboard points, the points chart); fees and
# adjustments move balances but are not game points.
GAME_KINDS = (EntryKind.SCORE, EntryKind.PIAO)

SWEEP_GRACE_SECONDS = 30  # a backlog younger than this is still in the queue, not lost


def unsettled_hand_ids(*, limit: int = 2000, grace_seconds: int = SWEEP_GRACE_SECONDS) -> list[int]:
    """Finished hands with no transaction (the outbox), oldest first; only those finished since the
    sweep's mark (``sweeps``). Hands finished in the last few seconds are left to their own
    on_commit enqueue."""
    from .sweeps import pending_hand_ids

    settled = Exists(Transaction.objects.filter(hand_id=OuterRef("pk")))
    return pending_hand_ids(name="ledgers.unsettled", done=settled, limit=limit, grace_seconds=grace_seconds)


def member_account(*, club, user) -> Account | None:
    return Account.objects.filter(club=club, kind=AccountKind.MEMBER, user=user).first()


def club_account(*, club) -> Account | None:
    return Account.objects.filter(club=club, kind=AccountKind.CLUB).first()


# Ledger pages list entries newest first in posting order: (transaction id desc, entry id), the
# keyset of their pages (an account's through the (account, transaction) index).
ENTRY_ORDER = [("transaction_id", True), ("id", False)]
# The same transaction id on the transaction side of the join (``account_history`` and
# ``club_entries`` join ``ledgers_transaction`` once, under its own name), bounded by a page's cursor
# too (``keyset_page``'s ``first_key_also``): without it PostgreSQL reached a deep page of a club
# ledger of 10^6 hands by walking every newer transaction of the club (560 ms; 0.4 ms with it).
ENTRY_TRANSACTION_ID = RawSQL('"ledgers_transaction"."id"', ())


def account_history(*, account: Account) -> QuerySet[Entry]:
    """Entries of one account, newest first, with their transaction, hand and table (what
    ``memos`` words a line from)."""
    return (
        Entry.objects.filter(account=account)
        .select_related("transaction", "transaction__hand__table", "transaction__created_by", "account")
        .order_by("-transaction_id", "id")
    )


def day_bounds(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def club_entries(
    *,
    club,
    user_id: int | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
    kind: str | None = None,
) -> QuerySet[Entry]:
    """Every entry of a club (owner/admin view), filterable by member, date (inclusive) and kind."""
    qs = Entry.objects.filter(transaction__club=club).select_related(
        "transaction", "transaction__hand__table", "transaction__created_by", "account", "account__user"
    )
    if user_id is not None:
        qs = qs.filter(account__user_id=user_id, account__kind=AccountKind.MEMBER)
    if date_from is not None:
        qs = qs.filter(transaction__created_at__gte=day_bounds(date_from))
    if date_to is not None:
        qs = qs.filter(transaction__created_at__lt=day_bounds(date_to + timedelta(days=1)))
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-transaction_id", "id")


def fee_income(
    *, club, user_id: int | None = None, date_from: date | None = None, date_to: date | None = None
) -> int:
    """Table fees (桌费) the club received in a date range (inclusive), or from one member.

    Fees are paid only in hand settlements, by members (never by a bot seat, a sitter or a practice
    table), so the club's fee income is what its members paid: the ``fees`` of their leaderboard
    buckets. All time: the all-time buckets; a range: its whole months' buckets and the day buckets
    of its partial months (bounded by the members, whatever the history).
    """
    qs = LeaderboardBucket.objects.filter(club=club)
    if user_id is not None:
        qs = qs.filter(user_id=user_id)
    if date_from is None and date_to is None:
        return qs.filter(span=Span.ALL).aggregate(total=Sum("fees"))["total"] or 0
    # Clamp the range to the days that have buckets (a range of centuries is a few months' work).
    first = qs.filter(span=Span.DAY).order_by("day").values_list("day", flat=True).first()
    if first is None:
        return 0
    start = max(date_from or first, first)
    end = min(date_to or timezone.localdate(), timezone.localdate())
    if start > end:
        return 0
    return qs.filter(_span_cover(start, end)).aggregate(total=Sum("fees"))["total"] or 0


def _span_cover(start: date, end: date) -> Q:
    """The buckets that add up to the days start..end: whole months by their month bucket, the
    rest (at most two partial months) by day buckets."""
    q = Q()
    month = start.replace(day=1)
    while month <= end:
        following = (month + timedelta(days=32)).replace(day=1)
        lo, hi = max(start, month), min(end, following - timedelta(days=1))
        if lo == month and hi == following - timedelta(days=1):
            q |= Q(span=Span.MONTH, day=month)
        else:
            q |= Q(span=Span.DAY, day__gte=lo, day__lte=hi)
        month = following
    return q


def period_start(period: str, now: datetime | None = None) -> datetime | None:
    """Start of a leaderboard period in the local time zone (weeks start on Monday)."""
    now = timezone.localtime(now or timezone.now())
    today = now.date()
    if period == Period.TODAY:
        return day_bounds(today)
    if period == Period.WEEK:
        return day_bounds(today - timedelta(days=today.weekday()))
    if period == Period.MONTH:
        return day_bounds(today.replace(day=1))
    return None


@dataclass
class BoardRow:
    """One line of a period's leaderboard (summed from the member's buckets)."""

    rank: int
    user_id: int
    name: str
    points: int
    hands: int
    wins: int
    best_hand: int
    best_huxi: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0


def _period_buckets(*, club, period: str, now: datetime | None = None) -> QuerySet[LeaderboardBucket]:
    """The buckets a period's board sums: today's day bucket, this week's day buckets (at most 7),
    this month's bucket, the all-time bucket; one (club, span, day) index range each."""
    today = timezone.localdate(now or timezone.now())
    qs = LeaderboardBucket.objects.filter(club=club)
    if period == Period.TODAY:
        return qs.filter(span=Span.DAY, day=today)
    if period == Period.WEEK:
        return qs.filter(span=Span.DAY, day__gte=today - timedelta(days=today.weekday()), day__lte=today)
    if period == Period.MONTH:
        return qs.filter(span=Span.MONTH, day=today.replace(day=1))
    return qs.filter(span=Span.ALL, day=ALL_TIME_DAY)


def leaderboard(*, club, period: str, now: datetime | None = None) -> list[BoardRow]:
    """A period's ranking: points, then wins, then user id (the same order as ever). Two queries,
    whatever the history: its cost is the club's members who played in the period."""
    from django.contrib.auth import get_user_model

    rows = (
        _period_buckets(club=club, period=period, now=now)
        .values("user_id")
        .annotate(points=Sum("points"), hands=Sum("hands"), wins=Sum("wins"), best_hand=Max("best_hand"),
                  best_huxi=Max("best_huxi"))
        .order_by("-points", "-wins", "user_id")
    )
    rows = list(rows)
    names = {u.pk: u.name for u in get_user_model().objects.filter(pk__in=[r["user_id"] for r in rows])}
    return [
        BoardRow(rank, r["user_id"], names.get(r["user_id"], str(r["user_id"])), r["points"], r["hands"], r["wins"],
                 r["best_hand"] or 0, r["best_huxi"])
        for rank, r in enumerate(rows, start=1)
    ]


@dataclass(frozen=True)
class PeriodStats:
    """One member's results in a club over a leaderboard period (the buckets the board sums)."""

    points: int = 0
    hands: int = 0
    wins: int = 0


def member_period_stats(*, club, user_id: int, period: str = Period.MONTH, now: datetime | None = None) -> PeriodStats:
    """A member's line of a period's leaderboard (the player card's record): one query."""
    row = (_period_buckets(club=club, period=period, now=now).filter(user_id=user_id)
           .aggregate(points=Sum("points"), hands=Sum("hands"), wins=Sum("wins")))
    return PeriodStats(points=row["points"] or 0, hands=row["hands"] or 0, wins=row["wins"] or 0)


# The points chart: per hand while the plotted players have at most this many hands in the period,
# else one point per day (the last hand of the day), and per month for an all-time board older
# than CHART_DAYS days. Either way a bounded number of rows, whatever the history.
CHART_HAND_POINTS = 400
CHART_DAYS = 93


def score_series(
    *, club, user_ids: list[int], period: str = Period.ALL, now: datetime | None = None
) -> dict[int, list[tuple]]:
    """Cumulative game points (score + piao, no fees) per user over a period:
    ``{user_id: [(time, running_total)]}``, running from 0 at the period's start."""
    series: dict[int, list[tuple]] = {uid: [] for uid in user_ids}
    if not user_ids:
        return series
    buckets = _period_buckets(club=club, period=period, now=now).filter(user_id__in=user_ids)
    hands = buckets.aggregate(n=Sum("hands"))["n"] or 0
    if period == Period.TODAY or hands <= CHART_HAND_POINTS:
        return _hand_series(club=club, user_ids=user_ids, since=period_start(period, now))
    today = timezone.localdate(now or timezone.now())
    if period == Period.WEEK:
        steps = buckets
    elif period == Period.MONTH:
        steps = LeaderboardBucket.objects.filter(club=club, span=Span.DAY, day__gte=today.replace(day=1),
                                                 day__lte=today, user_id__in=user_ids)
    else:
        months = LeaderboardBucket.objects.filter(club=club, span=Span.MONTH, user_id__in=user_ids)
        first = months.order_by("day").values_list("day", flat=True).first()
        if first is not None and (today - first).days > CHART_DAYS:
            steps = months
        else:
            steps = LeaderboardBucket.objects.filter(club=club, span=Span.DAY, user_id__in=user_ids)
    running: dict[int, int] = dict.fromkeys(user_ids, 0)
    for user_id, points, last_at in steps.order_by("day", "user_id").values_list("user_id", "points", "last_at"):
        running[user_id] += points
        series[user_id].append((last_at, running[user_id]))
    return series


def _hand_series(*, club, user_ids: list[int], since: datetime | None) -> dict[int, list[tuple]]:
    """One point per hand (score + piao of the same hand: one point)."""
    qs = Entry.objects.filter(
        transaction__club=club,
        transaction__kind="hand",
        account__kind=AccountKind.MEMBER,
        account__user_id__in=user_ids,
        kind__in=GAME_KINDS,
    )
    if since is not None:
        qs = qs.filter(transaction__created_at__gte=since)
    rows = qs.order_by("transaction__created_at", "transaction_id").values_list(
        "account__user_id", "transaction_id", "transaction__created_at", "amount"
    )
    series: dict[int, list[tuple]] = {uid: [] for uid in user_ids}
    running: dict[int, int] = dict.fromkeys(user_ids, 0)
    last_txn: dict[int, int] = {}
    for user_id, txn_id, created_at, amount in rows:
        running[user_id] += amount
        if last_txn.get(user_id) == txn_id:  # score + piao of the same hand: one point
            series[user_id][-1] = (created_at, running[user_id])
        else:
            series[user_id].append((created_at, running[user_id]))
            last_txn[user_id] = txn_id
    return series


# --- the settlement hot path: two plain queries instead of four ORM ones ----------------------


@dataclass(frozen=True)
class TableFacts:
    pk: int
    club_id: int
    base_score: int
    name: str
    practice: bool
    fee: int = 0  # the table's snapshot of its template's fee (桌费)
    fee_payer: str = FeePayer.EACH


@dataclass(frozen=True)
class HandFacts:
    """What settlement reads of a tables.Hand: what the hand froze when it was dealt and when it
    ended (who sat where, which seats played, the totals), its table's fee snapshot, and the seats'
    member accounts."""

    pk: int
    status: str
    number: int
    result: dict | None  # the engine's result (winner, 胡息) for the transaction's detail
    totals: dict | None  # the engine's settle(): {"score", "piao", "total"} per seat
    players: dict  # {seat: user id | None} at the deal
    playing: list | None  # the seats that played (all but a 4-player sit_out sitter)
    table: TableFacts
    settled_id: int | None  # the transaction of ``hand:<pk>``, if already posted
    accounts: dict = field(default_factory=dict)  # {user_id: member Account id} (existing ones)


def _json(value):
    return json.loads(value) if isinstance(value, str | bytes) else value


def hand_facts(*, hand_id: int, key: str) -> HandFacts | None:
    """One query: the hand's frozen facts, its table, "already settled?" and the member accounts
    of the hand's players (raw SQL: this is the settlement's hot path, a few hundred a second)."""
    from apps.tables.models import Hand, Seat, Table

    hand_t, table_t, seat_t = Hand._meta.db_table, Table._meta.db_table, Seat._meta.db_table
    txn_t, account_t = Transaction._meta.db_table, Account._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT h.id, h.status, h.number, h.result, h.totals, h.players, h.playing, "
            f"t.id, t.club_id, t.base_score, t.name, t.practice, t.fee, t.fee_payer, "
            f"(SELECT x.id FROM {txn_t} x WHERE x.idempotency_key = %s), a.user_id, a.id "
            f"FROM {hand_t} h JOIN {table_t} t ON t.id = h.table_id "
            f"LEFT JOIN {account_t} a ON a.club_id = t.club_id AND a.kind = 'member' "
            f"AND a.user_id IN (SELECT s.user_id FROM {seat_t} s WHERE s.table_id = t.id) "
            f"WHERE h.id = %s",
            [key, hand_id],
        )
        rows = cursor.fetchall()
    if not rows:
        return None
    row = rows[0]
    table = TableFacts(row[7], row[8], row[9], row[10], bool(row[11]), int(row[12]), row[13])
    players = {int(k): (None if v is None else int(v)) for k, v in (_json(row[5]) or {}).items()}
    facts = HandFacts(row[0], row[1], row[2], _json(row[3]), _json(row[4]), players, _json(row[6]), table, row[14])
    for *_, user_id, account_id in rows:
        if account_id is not None:
            facts.accounts[user_id] = account_id
    return facts
