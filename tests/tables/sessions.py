"""Ended table sessions written straight to the rows: the 战绩 pages' histories."""

from __future__ import annotations

from django.utils import timezone

from apps.tables.models import Hand, Seat, Table, TableStatus


def ended_session(club, template, users, *, name, hands=2, scores=(5, -2, -3), status=TableStatus.FINISHED):
    """An ended table where ``users`` sat, with ``hands`` finished hands (the first seat +5 in each)."""
    table = Table(club=club, template=template, name=name, hands_per_session=max(hands, 1), status=status,
                  hands_played=hands, created_by=users[0])
    table.copy_rules(template)
    table.save()
    for i, user in enumerate(users):
        Seat.objects.create(table=table, index=i, user=user, score=scores[i] * hands, wins=hands if i == 0 else 0)
    for n in range(1, hands + 1):
        Hand.objects.create(table=table, number=n, dealer=0, seed_hash="0" * 64, seed="1" * 64, status="finished",
                            players={str(i): u.pk for i, u in enumerate(users)},
                            totals={"total": {str(i): scores[i] for i in range(len(users))}},
                            finished_at=timezone.now())
    return table
