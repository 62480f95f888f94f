"""Leaderboards: derived from hand transactions (entries for points, frozen hand facts for the rest).

Points are game points: the score and piao lines of hands (``GAME_KINDS``). Table fees (桌费) are
left out on purpose: a fee is what the club charges for a seat, not a result of play, and counting
it would rank players by how few hands they played. Balances, of course, include fees.

Rebuilt per club, every period at once, in one database transaction holding the club's
LeaderboardBuild row lock: readers see either the old or the new ranking; two rebuilds of a club
never run at once (the second one finds the row locked and steps aside).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from .models import AccountKind, Entry, LeaderboardBuild, LeaderboardRow, Period, Transaction, TransactionKind
from .selectors import GAME_KINDS, period_start


@dataclass
class Stats:
    points: int = 0
    hands: int = 0
    wins: int = 0
    best_hand: int | None = None
    best_huxi: int = 0


def _hand_facts(club_id: int):
    """[(txn_id, created_at, {seat: user_id}, winner_user_id, huxi)] of every settled hand."""
    facts = []
    rows = Transaction.objects.filter(club_id=club_id, kind=TransactionKind.HAND).values_list(
        "pk", "created_at", "detail"
    )
    for pk, created_at, detail in rows.iterator(chunk_size=2000):
        if (detail or {}).get("practice"):
            continue
        seats = {int(s): u for s, u in (detail.get("seats") or {}).items()}
        winner = detail.get("winner")
        winner_user = seats.get(int(winner)) if winner is not None else None
        facts.append((pk, created_at, seats, winner_user, detail.get("huxi")))
    return facts


def _hand_amounts(club_id: int) -> dict[int, dict[int, int]]:
    """{txn_id: {user_id: score + piao}} for member accounts (fees are not game points)."""
    out: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    rows = Entry.objects.filter(
        transaction__club_id=club_id,
        transaction__kind=TransactionKind.HAND,
        account__kind=AccountKind.MEMBER,
        kind__in=GAME_KINDS,
    ).values_list("transaction_id", "account__user_id", "amount")
    for txn_id, user_id, amount in rows.iterator(chunk_size=5000):
        out[txn_id][user_id] += amount
    return out


def compute(facts, amounts, since) -> dict[int, Stats]:
    stats: dict[int, Stats] = defaultdict(Stats)
    for txn_id, created_at, seats, winner_user, huxi in facts:
        if since is not None and created_at < since:
            continue
        per_user = amounts.get(txn_id, {})
        for user_id in seats.values():
            if user_id is None:
                continue
            st = stats[user_id]
            st.hands += 1
            if txn_id in amounts:
                total = per_user.get(user_id, 0)
                st.points += total
                st.best_hand = total if st.best_hand is None else max(st.best_hand, total)
            if user_id == winner_user:
                st.wins += 1
                st.best_huxi = max(st.best_huxi, int(huxi or 0))
    return stats


def rebuild_club(*, club_id: int, now=None, requested_at=None) -> str:
    """Recompute every period of one club: "built", "covered" or "busy".

    "busy": another rebuild holds the club's build row (the caller may try again later);
    "covered": a rebuild started after ``requested_at`` already includes what we were asked for.
    """
    LeaderboardBuild.objects.get_or_create(club_id=club_id)
    with transaction.atomic():
        build = LeaderboardBuild.objects.select_for_update(skip_locked=True).filter(pk=club_id).first()
        if build is None:
            return "busy"
        if requested_at is not None and build.built_at is not None and build.built_at >= requested_at:
            return "covered"
        started = timezone.now()
        now = now or started
        rows = _rows(club_id, now)
        LeaderboardRow.objects.filter(club_id=club_id).delete()
        LeaderboardRow.objects.bulk_create(rows, batch_size=1000)
        build.built_at = started
        build.save(update_fields=["built_at"])
    return "built"


def _rows(club_id: int, now) -> list[LeaderboardRow]:
    facts = _hand_facts(club_id)
    amounts = _hand_amounts(club_id)
    rows = []
    for period in Period.values:
        stats = compute(facts, amounts, period_start(period, now))
        ranked = sorted(stats.items(), key=lambda kv: (-kv[1].points, -kv[1].wins, kv[0]))
        for rank, (user_id, st) in enumerate(ranked, start=1):
            rows.append(
                LeaderboardRow(
                    club_id=club_id,
                    period=period,
                    user_id=user_id,
                    rank=rank,
                    points=st.points,
                    hands=st.hands,
                    wins=st.wins,
                    best_hand=st.best_hand or 0,
                    best_huxi=st.best_huxi,
                    built_at=now,
                )
            )
    return rows


def rebuild_all() -> int:
    """Every club that has hand transactions (the beat entry)."""
    club_ids = Transaction.objects.filter(kind=TransactionKind.HAND).order_by().values_list("club_id", flat=True).distinct()
    count = 0
    for club_id in sorted(set(club_ids)):
        rebuild_club(club_id=club_id)
        count += 1
    return count
