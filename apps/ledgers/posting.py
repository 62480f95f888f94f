"""The write paths into the ledger: ``post_transaction`` (every kind: the ORM, one entry row each)
and ``post_settlement`` (a settlement's lines with the same guarantees, on PostgreSQL in one
statement of raw SQL: the hot path of a hand's end). Nothing else writes ledger rows.

Exactly-once comes from the database: the transaction row is inserted first, inside an atomic
block, under a unique ``idempotency_key``; a concurrent or repeated posting of the same key fails
with IntegrityError (PostgreSQL makes the second inserter wait for the first to commit), which we
report as "already posted". No cache lock is involved.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import Case, F, Value, When
from django.utils import timezone

from . import leaderboards
from .models import Account, AccountKind, Entry, EntryKind, Transaction


class UnbalancedTransaction(ValueError):
    """The entries of a transaction do not sum to zero."""


@dataclass(frozen=True)
class Line:
    """One entry to post: ``amount`` (signed int) to ``account`` (an Account id)."""

    account_id: int
    amount: int
    kind: str
    seat: int | None = None


@dataclass(frozen=True)
class PostResult:
    transaction: Transaction
    created: bool  # False: the key was already posted (a retry or a duplicate delivery)


def club_account(*, club_id: int) -> Account:
    account, _ = Account.objects.get_or_create(club_id=club_id, kind=AccountKind.CLUB, user=None)
    return account


def member_accounts(*, club_id: int, user_ids: Iterable[int]) -> dict[int, Account]:
    """The member accounts of these users in the club, created on first use."""
    wanted = set(user_ids)
    found = {
        a.user_id: a
        for a in Account.objects.filter(club_id=club_id, kind=AccountKind.MEMBER, user_id__in=wanted)
    }
    for user_id in wanted - found.keys():
        # get_or_create survives a concurrent creator (unique constraint + savepoint + re-get).
        found[user_id], _ = Account.objects.get_or_create(
            club_id=club_id, kind=AccountKind.MEMBER, user_id=user_id
        )
    return found


def check_balanced(lines: Iterable[Line]) -> None:
    """Refuse anything but a zero-sum list of integer amounts.

    >>> check_balanced([Line(1, 5, "score"), Line(2, -5, "score")])
    >>> check_balanced([Line(1, 5, "score")])
    Traceback (most recent call last):
    ...
    apps.ledgers.posting.UnbalancedTransaction: entries sum to 5, not 0
    """
    total = 0
    for line in lines:
        if not isinstance(line.amount, int) or isinstance(line.amount, bool):
            raise UnbalancedTransaction(f"amount {line.amount!r} is not an integer")
        if line.kind not in EntryKind.values:
            raise UnbalancedTransaction(f"unknown entry kind {line.kind!r}")
        total += line.amount
    if total != 0:
        raise UnbalancedTransaction(f"entries sum to {total}, not 0")


def post_transaction(
    *,
    club_id: int,
    kind: str,
    idempotency_key: str,
    lines: list[Line],
    hand_id: int | None = None,
    memo: str = "",
    created_by=None,
    detail: dict | None = None,
    after_post=None,
    precheck: bool = True,
    created_at=None,
) -> PostResult:
    """Post ``lines`` as one transaction under ``idempotency_key``, at most once ever.

    Balances are updated in the same database transaction, the account rows locked in id order
    (no deadlock between two postings touching the same accounts). ``after_post(txn)`` runs inside
    the transaction (e.g. an audit-log row that must exist iff the posting does).
    """
    check_balanced(lines)
    if precheck:
        existing = Transaction.objects.filter(idempotency_key=idempotency_key).first()
        if existing is not None:
            return PostResult(existing, created=False)
    try:
        with transaction.atomic():
            txn = Transaction.objects.create(
                club_id=club_id,
                kind=kind,
                idempotency_key=idempotency_key,
                hand_id=hand_id,
                memo=memo[:200],
                created_by=created_by,
                detail=detail or {},
                created_at=created_at or timezone.now(),
            )
            Entry.objects.bulk_create(
                [
                    Entry(transaction=txn, account_id=ln.account_id, amount=ln.amount, kind=ln.kind, seat=ln.seat)
                    for ln in lines
                ]
            )
            _apply_balances(lines)
            if after_post is not None:
                after_post(txn)
    except IntegrityError:
        existing = Transaction.objects.filter(idempotency_key=idempotency_key).first()
        if existing is None:
            raise
        return PostResult(existing, created=False)
    return PostResult(txn, created=True)


def post_settlement(
    *,
    club_id: int,
    kind: str,
    idempotency_key: str,
    lines: list[Line],
    hand_id: int | None = None,
    memo: str = "",
    detail: dict | None = None,
    board_rows: list | None = None,
    created_at=None,
) -> tuple[int, bool]:
    """``post_transaction`` for the settlement hot path: ``(transaction id, created)``.

    ``board_rows`` (``leaderboards.settlement_rows``, for ``created_at``) are added to the
    leaderboard buckets in the same database transaction, only if the transaction was posted.

    On PostgreSQL the whole posting is ONE statement (one round trip, its own transaction in
    autocommit): insert the transaction row under the unique key (``ON CONFLICT DO NOTHING``: a
    concurrent inserter of the same key makes it wait, then do nothing), insert the entries and
    lock (in id order) and update the balances only if that row was inserted. Same invariants as
    ``post_transaction``: balanced lines checked first, the deferred zero-sum trigger at COMMIT,
    the unique key decides. Elsewhere it is ``post_transaction``.
    """
    created_at = created_at or timezone.now()
    board_rows = board_rows or []
    if connection.vendor != "postgresql":
        result = post_transaction(
            club_id=club_id, kind=kind, idempotency_key=idempotency_key, lines=lines, hand_id=hand_id,
            memo=memo, detail=detail, precheck=False, created_at=created_at,
            after_post=lambda txn: leaderboards.apply_rows(club_id=club_id, rows=board_rows),
        )
        return result.transaction.pk, result.created
    check_balanced(lines)
    deltas: dict[int, int] = defaultdict(int)
    for line in lines:
        deltas[line.account_id] += line.amount
    ids = sorted(pk for pk, d in deltas.items() if d)
    params = [
        club_id, kind, idempotency_key, hand_id, memo[:200], json.dumps(detail or {}), created_at,
        [ln.account_id for ln in lines], [ln.amount for ln in lines], [ln.kind for ln in lines],
        [ln.seat for ln in lines], ids, [deltas[pk] for pk in ids],
    ]
    sql = _PG_SETTLEMENT_HEAD + (leaderboards.PG_SETTLEMENT_CTE if board_rows else "") + _PG_SETTLEMENT_TAIL
    if board_rows:
        params += leaderboards.pg_params(club_id, board_rows)
    # Inside an outer transaction (tests, callers' atomic blocks) a savepoint keeps an error from
    # breaking it, as post_transaction's atomic() does; a worker runs it in autocommit.
    with transaction.atomic() if connection.in_atomic_block else nullcontext(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
        if row is not None:
            return row[0], True
        cursor.execute(f"SELECT id FROM {Transaction._meta.db_table} WHERE idempotency_key = %s", [idempotency_key])
        row = cursor.fetchone()
    if row is None:  # pragma: no cover - the conflicting row cannot vanish (append-only)
        raise IntegrityError(f"{idempotency_key} conflicted but is not there")
    return row[0], False


_PG_SETTLEMENT_HEAD = """
WITH txn AS (
    INSERT INTO ledgers_transaction
        (club_id, kind, idempotency_key, hand_id, memo, created_by_id, detail, created_at)
    VALUES (%s, %s, %s, %s, %s, NULL, %s::jsonb, %s)
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id
), ent AS (
    INSERT INTO ledgers_entry (transaction_id, account_id, amount, kind, seat)
    SELECT txn.id, e.account_id, e.amount, e.kind, e.seat
    FROM txn, unnest(%s::bigint[], %s::bigint[], %s::varchar[], %s::smallint[])
         WITH ORDINALITY AS e(account_id, amount, kind, seat, n)
    ORDER BY e.n
), d AS (
    SELECT * FROM unnest(%s::bigint[], %s::bigint[]) AS d(id, delta) WHERE EXISTS (SELECT 1 FROM txn)
), locked AS (
    SELECT id FROM ledgers_account WHERE id IN (SELECT id FROM d) ORDER BY id FOR UPDATE
), upd AS (
    UPDATE ledgers_account AS a SET balance = a.balance + d.delta
    FROM d JOIN locked ON locked.id = d.id
    WHERE a.id = d.id
)
"""
_PG_SETTLEMENT_TAIL = """
SELECT id FROM txn
"""


def _apply_balances(lines: Iterable[Line]) -> None:
    deltas: dict[int, int] = defaultdict(int)
    for line in lines:
        deltas[line.account_id] += line.amount
    deltas = {account_id: d for account_id, d in deltas.items() if d}
    if not deltas:
        return
    ids = sorted(deltas)
    if connection.vendor == "postgresql":
        # One round trip: lock the rows in id order (no deadlock between postings sharing
        # accounts), then add the deltas.
        with connection.cursor() as cursor:
            cursor.execute(_PG_BALANCES, [ids, ids, [deltas[pk] for pk in ids]])
        return
    list(Account.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))
    Account.objects.filter(pk__in=ids).update(
        balance=F("balance") + Case(*(When(pk=pk, then=Value(deltas[pk])) for pk in ids), default=Value(0))
    )


_PG_BALANCES = """
WITH locked AS (
    SELECT id FROM ledgers_account WHERE id = ANY(%s::bigint[]) ORDER BY id FOR UPDATE
), d AS (
    SELECT * FROM unnest(%s::bigint[], %s::bigint[]) AS d(id, delta)
)
UPDATE ledgers_account AS a SET balance = a.balance + d.delta
FROM d JOIN locked ON locked.id = d.id
WHERE a.id = d.id
"""
