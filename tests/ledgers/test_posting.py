"""The posting core: zero-sum, idempotency keys, append-only rows, cached balances, DB guards."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from apps.ledgers.models import Account, Entry, ImmutableError, Transaction
from apps.ledgers.posting import Line, UnbalancedTransaction, post_transaction

pg_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: SQLite serialises writers and has no deferred constraint triggers",
)


def _post(club, accounts, key="k1", amount=5):
    return post_transaction(
        club_id=club.pk,
        kind="adjustment",
        idempotency_key=key,
        lines=[Line(accounts["member"].pk, amount, "adjustment"), Line(accounts["house"].pk, -amount, "adjustment")],
    )


def test_post_updates_balances_and_sums_to_zero(people, accounts):
    result = _post(people["club"], accounts)
    assert result.created
    assert sum(e.amount for e in result.transaction.entries.all()) == 0
    accounts["member"].refresh_from_db()
    accounts["house"].refresh_from_db()
    assert (accounts["member"].balance, accounts["house"].balance) == (5, -5)


def test_unbalanced_is_refused_before_touching_the_db(people, accounts):
    with pytest.raises(UnbalancedTransaction):
        post_transaction(
            club_id=people["club"].pk, kind="adjustment", idempotency_key="bad",
            lines=[Line(accounts["member"].pk, 5, "adjustment")],
        )
    with pytest.raises(UnbalancedTransaction):
        post_transaction(
            club_id=people["club"].pk, kind="adjustment", idempotency_key="bad",
            lines=[Line(accounts["member"].pk, 1.5, "adjustment"), Line(accounts["house"].pk, -1.5, "adjustment")],
        )
    assert not Transaction.objects.exists()


def test_same_key_posts_once(people, accounts):
    first = _post(people["club"], accounts)
    again = _post(people["club"], accounts)
    assert not again.created and again.transaction.pk == first.transaction.pk
    assert Transaction.objects.count() == 1 and Entry.objects.count() == 2
    accounts["member"].refresh_from_db()
    assert accounts["member"].balance == 5


def test_duplicate_insert_race_is_reported_as_already_posted(people, accounts, monkeypatch):
    """The pre-check misses (a concurrent poster got in between): the unique index decides."""
    _post(people["club"], accounts)
    real_filter = Transaction.objects.filter
    calls = {"n": 0}

    def blind_first_check(*args, **kwargs):
        calls["n"] += 1
        qs = real_filter(*args, **kwargs)
        return qs.none() if calls["n"] == 1 else qs

    monkeypatch.setattr(Transaction.objects, "filter", blind_first_check)
    again = _post(people["club"], accounts)
    assert not again.created
    assert Transaction.objects.count() == 1
    accounts["member"].refresh_from_db()
    assert accounts["member"].balance == 5


def test_rows_are_append_only(people, accounts):
    txn = _post(people["club"], accounts).transaction
    entry = txn.entries.first()
    entry.amount = 100
    with pytest.raises(ImmutableError):
        entry.save()
    with pytest.raises(ImmutableError):
        entry.delete()
    with pytest.raises(ImmutableError):
        txn.delete()
    with pytest.raises(ImmutableError):
        Entry.objects.filter(pk=entry.pk).update(amount=100)
    with pytest.raises(ImmutableError):
        Entry.objects.all().delete()
    with pytest.raises(ImmutableError):
        Transaction.objects.all().update(memo="x")
    assert Entry.objects.get(pk=entry.pk).amount in (5, -5)


@pg_only
def test_postgres_refuses_raw_update_and_delete(people, accounts):
    txn = _post(people["club"], accounts).transaction
    for sql in (
        "UPDATE ledgers_entry SET amount = 0 WHERE transaction_id = %s",
        "DELETE FROM ledgers_entry WHERE transaction_id = %s",
        "DELETE FROM ledgers_transaction WHERE id = %s",
    ):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cur:
            cur.execute(sql, [txn.pk])


@pg_only
def test_postgres_refuses_an_unbalanced_transaction_at_commit(people, accounts):
    """The deferred constraint trigger: checked when constraints are checked (at COMMIT)."""
    with pytest.raises(IntegrityError), transaction.atomic():
        txn = Transaction.objects.create(club=people["club"], kind="adjustment", idempotency_key="raw")
        Entry.objects.create(transaction=txn, account=accounts["member"], amount=7, kind="adjustment")
        with connection.cursor() as cur:  # TestCase never commits: force the deferred check now
            cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert not Transaction.objects.filter(idempotency_key="raw").exists()


@pg_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_postings_of_one_key_yield_one_transaction(people, accounts):
    barrier = threading.Barrier(6)
    results, errors = [], []

    def worker():
        try:
            barrier.wait()
            results.append(_post(people["club"], accounts, key="race").created)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(results) == [False] * 5 + [True]
    assert Transaction.objects.filter(idempotency_key="race").count() == 1
    assert Account.objects.get(pk=accounts["member"].pk).balance == 5
