"""The one write path into the ledger: ``post_transaction``.

Exactly-once comes from the database: the transaction row is inserted first, inside an atomic
block, under a unique ``idempotency_key``; a concurrent or repeated posting of the same key fails
with IntegrityError (PostgreSQL makes the second inserter wait for the first to commit), which we
report as "already posted". No cache lock is involved.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import Case, F, Value, When

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
