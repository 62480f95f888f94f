"""Read-side queries of the ledger."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet, Sum
from django.utils import timezone

from apps.clubs.models import FeePayer

from .models import Account, AccountKind, Entry, EntryKind, LeaderboardRow, Period, Transaction

# The lines that are results of play (leaderboard points, the points chart); fees and
# adjustments move balances but are not game points.
GAME_KINDS = (EntryKind.SCORE, EntryKind.PIAO)

SWEEP_GRACE_SECONDS = 30  # a backlog younger than this is still in the queue, not lost


def unsettled_hand_ids(*, limit: int = 2000, grace_seconds: int = SWEEP_GRACE_SECONDS) -> list[int]:
    """Finished hands with no transaction (the outbox), oldest first.

    Hands finished in the last few seconds are left to their own on_commit enqueue.
    """
    from apps.tables.models import Hand

    cutoff = timezone.now() - timedelta(seconds=grace_seconds)
    settled = Transaction.objects.filter(hand_id=OuterRef("pk"))
    qs = (
        Hand.objects.filter(status="finished")
        .filter(Q(finished_at__lte=cutoff) | Q(finished_at__isnull=True))
        .exclude(Exists(settled))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return list(qs[:limit])


def member_account(*, club, user) -> Account | None:
    return Account.objects.filter(club=club, kind=AccountKind.MEMBER, user=user).first()


def club_account(*, club) -> Account | None:
    return Account.objects.filter(club=club, kind=AccountKind.CLUB).first()


def account_history(*, account: Account) -> QuerySet[Entry]:
    """Entries of one account, newest first, with their transaction, hand and table."""
    return (
        Entry.objects.filter(account=account)
        .select_related("transaction", "transaction__hand", "transaction__created_by")
        .order_by("-transaction__created_at", "-transaction_id", "id")
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
        "transaction", "transaction__hand", "transaction__created_by", "account", "account__user"
    )
    if user_id is not None:
        qs = qs.filter(account__user_id=user_id, account__kind=AccountKind.MEMBER)
    if date_from is not None:
        qs = qs.filter(transaction__created_at__gte=day_bounds(date_from))
    if date_to is not None:
        qs = qs.filter(transaction__created_at__lt=day_bounds(date_to + timedelta(days=1)))
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-transaction__created_at", "-transaction_id", "id")


def fee_income(
    *, club, user_id: int | None = None, date_from: date | None = None, date_to: date | None = None
) -> int:
    """Table fees (桌费) the club account received in a date range (inclusive), or from one member.

    Every fee is a pair of entries (−fee for the member, +fee for the club), so one member's
    contribution is minus the sum of their fee lines.
    """
    qs = club_entries(club=club, user_id=user_id, date_from=date_from, date_to=date_to, kind=EntryKind.FEE)
    if user_id is None:
        return qs.filter(account__kind=AccountKind.CLUB).aggregate(total=Sum("amount"))["total"] or 0
    return -(qs.aggregate(total=Sum("amount"))["total"] or 0)


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


def leaderboard(*, club, period: str) -> QuerySet[LeaderboardRow]:
    return LeaderboardRow.objects.filter(club=club, period=period).select_related("user").order_by("rank")


def score_series(*, club, user_ids: list[int], since: datetime | None = None) -> dict[int, list[tuple]]:
    """Cumulative game points (score + piao, no fees) per user: {user_id: [(created_at, running_total)]}."""
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
    """What settlement reads of a tables.Hand, with its table, seats and their accounts.

    Only the parts of the snapshot that settlement needs are read (``ruleset_json``,
    ``state_dealer``); ``full_state()`` fetches the whole snapshot for a replay.
    """

    pk: int
    status: str
    number: int
    dealer: int
    ruleset_json: dict | None
    state_dealer: int | None
    piao: dict
    result: dict | None
    table: TableFacts
    settled_id: int | None  # the transaction of ``hand:<pk>``, if already posted
    players: dict | None = None  # Hand.players ({seat: user_id}) if tables records it
    seat_users: dict = field(default_factory=dict)  # {seat: user_id | None}
    accounts: dict = field(default_factory=dict)  # {user_id: member Account id} (existing ones)

    def full_state(self) -> dict:
        from apps.tables.models import Hand

        return Hand.objects.values_list("state", flat=True).get(pk=self.pk)


def _json(value):
    return json.loads(value) if isinstance(value, str | bytes) else value


def hand_facts(*, hand_id: int, key: str) -> HandFacts | None:
    """One query: the hand, its table, "already settled?", its seats and their member accounts."""
    from apps.tables.models import Hand, Seat, Table

    hand_t, table_t, seat_t = Hand._meta.db_table, Table._meta.db_table, Seat._meta.db_table
    txn_t, account_t = Transaction._meta.db_table, Account._meta.db_table
    players = "h.players" if any(f.name == "players" for f in Hand._meta.concrete_fields) else "NULL"
    if connection.vendor == "postgresql":  # not the whole snapshot (actions, events): two keys of it
        snapshot = "h.state -> 'ruleset', h.state -> 'dealer'"
    else:
        snapshot = "h.state, NULL"
    index = connection.ops.quote_name("index")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT h.id, h.status, h.number, h.dealer, {snapshot}, h.piao, h.result, "
            f"t.id, t.club_id, t.base_score, t.name, t.practice, t.fee, t.fee_payer, "
            f"(SELECT x.id FROM {txn_t} x WHERE x.idempotency_key = %s), {players}, "
            f"s.{index}, s.user_id, a.id "
            f"FROM {hand_t} h JOIN {table_t} t ON t.id = h.table_id "
            f"LEFT JOIN {seat_t} s ON s.table_id = t.id "
            f"LEFT JOIN {account_t} a ON a.user_id = s.user_id AND a.club_id = t.club_id AND a.kind = 'member' "
            f"WHERE h.id = %s",
            [key, hand_id],
        )
        rows = cursor.fetchall()
    if not rows:
        return None
    row = rows[0]
    ruleset, state_dealer = _json(row[4]), _json(row[5])
    if connection.vendor != "postgresql":
        state = ruleset or {}
        ruleset, state_dealer = state.get("ruleset"), state.get("dealer")
    table = TableFacts(row[8], row[9], row[10], row[11], bool(row[12]), int(row[13]), row[14])
    facts = HandFacts(row[0], row[1], row[2], row[3], ruleset, state_dealer, _json(row[6]) or {}, _json(row[7]),
                      table, row[15], _json(row[16]))
    for *_, seat, user_id, account_id in rows:
        if seat is None:
            continue
        facts.seat_users[int(seat)] = user_id
        if account_id is not None:
            facts.accounts[user_id] = account_id
    return facts
