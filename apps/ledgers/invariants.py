"""Ledger invariants, checked over the whole database (``manage.py ledger_audit``)."""

from __future__ import annotations

from django.db.models import Count, Exists, F, OuterRef, Sum

from .models import Account, Entry, Transaction, TransactionKind


def unbalanced_transactions(limit: int = 100) -> list[str]:
    rows = (
        Entry.objects.order_by()
        .values("transaction_id")
        .annotate(total=Sum("amount"))
        .exclude(total=0)
        .values_list("transaction_id", "total")[:limit]
    )
    return [f"transaction {txn_id} sums to {total}, not 0" for txn_id, total in rows]


def hands_without_settlement(limit: int = 100) -> tuple[int, list[str]]:
    from apps.tables.models import Hand

    qs = Hand.objects.filter(status="finished").exclude(
        Exists(Transaction.objects.filter(hand_id=OuterRef("pk")))
    )
    count = qs.count()
    ids = list(qs.order_by("pk").values_list("pk", flat=True)[:limit])
    return count, [f"finished hand {pk} has no settlement" for pk in ids]


def hands_settled_twice(limit: int = 100) -> list[str]:
    rows = (
        Transaction.objects.filter(hand__isnull=False)
        .order_by()
        .values("hand_id")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
        .values_list("hand_id", "n")[:limit]
    )
    return [f"hand {hand_id} has {n} settlements" for hand_id, n in rows]


def settlements_of_unfinished_hands(limit: int = 100) -> list[str]:
    rows = (
        Transaction.objects.filter(kind=TransactionKind.HAND)
        .exclude(hand__status="finished")
        .order_by("pk")
        .values_list("pk", "hand_id")[:limit]
    )
    return [f"transaction {pk} settles hand {hand_id}, which is not finished" for pk, hand_id in rows]


def balance_mismatches(limit: int = 100) -> list[str]:
    sums = dict(
        Entry.objects.order_by().values("account_id").annotate(total=Sum("amount")).values_list("account_id", "total")
    )
    problems = []
    for pk, balance in Account.objects.order_by("pk").values_list("pk", "balance").iterator(chunk_size=2000):
        expected = sums.get(pk, 0)
        if balance != expected:
            problems.append(f"account {pk} balance {balance} != sum of entries {expected}")
            if len(problems) >= limit:
                break
    return problems


def club_sums_nonzero(limit: int = 100) -> list[str]:
    """A closed system: every club's accounts sum to zero (follows from balanced transactions)."""
    rows = (
        Account.objects.order_by()
        .values("club_id")
        .annotate(total=Sum("balance"))
        .exclude(total=0)
        .values_list("club_id", "total")[:limit]
    )
    return [f"club {club_id} balances sum to {total}, not 0" for club_id, total in rows]


def entries_across_clubs(limit: int = 100) -> list[str]:
    rows = Entry.objects.exclude(account__club_id=F("transaction__club_id")).values_list("pk", flat=True)
    return [f"entry {pk} posts to another club's account" for pk in rows[:limit]]


def closed_escrows_not_zero(limit: int = 100) -> list[str]:
    """An escrow account (a match's fees) is closed once settled: it must hold exactly zero, by its
    balance and by the sum of its entries (the owner of the escrow closes it only at zero)."""
    from .models import AccountKind

    closed = Account.objects.filter(kind=AccountKind.ESCROW, closed=True)
    sums = dict(
        Entry.objects.filter(account__in=closed).order_by().values("account_id").annotate(total=Sum("amount"))
        .values_list("account_id", "total")
    )
    problems = []
    for pk, key, balance in closed.order_by("pk").values_list("pk", "key", "balance"):
        if balance != 0 or sums.get(pk, 0) != 0:
            problems.append(f"closed escrow {key} (account {pk}) holds {balance} (entries {sums.get(pk, 0)}), not 0")
            if len(problems) >= limit:
                break
    return problems


def leaderboards_not_matching_ledger(limit: int = 100) -> list[str]:
    """The incrementally kept leaderboard buckets equal what the ledger says (per club)."""
    from .leaderboards import compare_club

    club_ids = Transaction.objects.filter(kind=TransactionKind.HAND).order_by().values_list("club_id", flat=True)
    problems: list[str] = []
    for club_id in sorted(set(club_ids.distinct())):
        problems += compare_club(club_id=club_id)
        if len(problems) >= limit:
            break
    return problems[:limit]


def run_all() -> dict[str, list[str]]:
    missing_count, missing = hands_without_settlement()
    report = {
        "unbalanced transactions": unbalanced_transactions(),
        "finished hands without settlement": missing,
        "hands settled more than once": hands_settled_twice(),
        "settlements of unfinished hands": settlements_of_unfinished_hands(),
        "balances not equal to their entries": balance_mismatches(),
        "clubs whose balances do not sum to zero": club_sums_nonzero(),
        "entries in another club's account": entries_across_clubs(),
        "closed escrow accounts not at zero": closed_escrows_not_zero(),
        "leaderboard buckets not equal to the ledger": leaderboards_not_matching_ledger(),
    }
    if missing_count > len(missing):
        report["finished hands without settlement"].append(f"... {missing_count} in all")
    return report
