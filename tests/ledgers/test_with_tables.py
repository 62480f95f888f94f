"""End to end: a hand played through the tables services is settled by the hand_finished receiver."""

from __future__ import annotations

import random

from apps.clubs.models import RuleTemplate
from apps.ledgers.models import Account, Entry, Transaction


def test_hand_played_at_a_table_is_settled_once_like_its_totals(people, django_capture_on_commit_callbacks):
    from tests.tables.helpers import open_and_play_hand

    users = [people["owner"], people["member"], people["other"]]
    template = RuleTemplate.objects.create(
        club=people["club"], name="t", preset="full", options={}, players=3, base_score=2,
        piao_choices=[], hands_per_session=2, turn_seconds=15,
    )
    with django_capture_on_commit_callbacks(execute=True):
        hand = open_and_play_hand(template, users, rng=random.Random(3))
    hand.refresh_from_db()
    assert hand.status == "finished"
    txn = Transaction.objects.get(hand=hand)
    assert txn.idempotency_key == f"hand:{hand.pk}"
    for seat, user in enumerate(users):
        posted = sum(Entry.objects.filter(transaction=txn, account__user=user).values_list("amount", flat=True))
        assert posted == int((hand.totals or {}).get("total", {}).get(str(seat), 0))
        account = Account.objects.filter(club=people["club"], user=user).first()
        assert (account.balance if account else 0) == posted


def test_settlement_pays_the_players_frozen_on_the_hand_not_the_current_seats(make_finished_hand, people):
    """RULES.md §9.3 per seat: a seat that changed player before the ledger posted still pays/gets
    for whoever sat there when the hand was dealt (tables.Hand.players)."""
    from apps.ledgers import services as ledger_services
    from apps.tables.models import Seat

    hand = make_finished_hand()
    dealt = {str(s.index): s.user_id for s in hand.table.seats.all()}
    hand.players = dealt
    hand.save(update_fields=["players"])
    winner = hand.result["winner"]
    newcomer = people["admin"]
    Seat.objects.filter(table=hand.table, index=winner).update(user=newcomer)  # he left, admin sat down

    assert ledger_services.settle_hand(hand_id=hand.pk).status == "posted"
    paid = {e.account.user_id for e in Entry.objects.filter(transaction__hand=hand, amount__gt=0)}
    assert paid == {dealt[str(winner)]}
    assert not Entry.objects.filter(transaction__hand=hand, account__user=newcomer).exists()
