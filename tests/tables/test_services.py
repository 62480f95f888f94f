"""A table's life through the services: deal, play, settle, next hand, session end, the hash chain."""

from __future__ import annotations

import hashlib

import pytest

from apps.engine.records.chain import verify_chain
from apps.tables.models import Table, TableEvent
from apps.tables.signals import hand_finished
from apps.tables.transaction.context import TableError
from apps.tables.verbs import services
from tests.tables.helpers import current, play_hand_via_services, ready_all


@pytest.mark.django_db
def test_session_of_two_hands_settles_and_ends(full_table, players):
    finished = []
    hand_finished.connect(lambda sender, hand, **kw: finished.append(hand.pk), weak=False, dispatch_uid="t1")
    try:
        ready_all(full_table.pk, players)
        table, hand, eh = current(full_table.pk)
        assert table.status == "playing" and table.stage == "hand"
        start = TableEvent.objects.get(table=table, type="hand.start")
        assert start.payload["seed_hash"] == hand.seed_hash and hand.seed == ""
        assert hand.players == {str(s.index): s.user_id for s in table.seats.all()}  # seating frozen
        hand = play_hand_via_services(full_table.pk, players)
        assert hand.status == "finished"
        assert hashlib.sha256(bytes.fromhex(hand.seed)).hexdigest() == hand.seed_hash
        assert sum(hand.totals["total"].values()) == 0
        table = Table.objects.get(pk=full_table.pk)
        assert table.stage == "settle" and table.hands_played == 1
        ready_all(full_table.pk, players)
        hand2 = play_hand_via_services(full_table.pk, players)
        assert hand2.number == 2
        table = Table.objects.get(pk=full_table.pk)
        assert table.status == "finished" and table.stage == "over"
        end = TableEvent.objects.get(table=table, type="table.end")
        assert len(end.payload["summary"]) == 3
        assert sum(s["total"] for s in end.payload["summary"]) == 0
        assert finished == [hand.pk, hand2.pk]
        assert verify_chain(TableEvent.objects.filter(table=table).order_by("seq")) is None
    finally:
        hand_finished.disconnect(dispatch_uid="t1")


@pytest.mark.django_db
def test_chain_detects_tampering(full_table, players):
    ready_all(full_table.pk, players)
    events = list(TableEvent.objects.filter(table=full_table).order_by("seq"))
    assert verify_chain(events) is None
    events[2].payload = {**events[2].payload, "x": 1}
    assert "seq 3" in verify_chain(events)


@pytest.mark.django_db
def test_join_rules(players, template, make_user):
    table = services.table_open(user=players[0], template=template)
    with pytest.raises(TableError) as err:
        services.table_join(user=players[0], table_id=table.pk)
    assert err.value.code == "already_seated"
    with pytest.raises(TableError) as err:
        services.table_join(user=make_user(), table_id=table.pk)
    assert err.value.code == "not_member"
    services.table_join(user=players[1], table_id=table.pk)
    services.table_join(user=players[2], table_id=table.pk)
    with pytest.raises(TableError) as err:
        services.seat_add_bot(user=players[0], table_id=table.pk)
    assert err.value.code == "not_allowed"


@pytest.mark.django_db
def test_practice_table_bots_play_to_the_human(players, template):
    table = services.table_open(user=players[0], template=template, practice=True)
    services.seat_ready(user=players[0], table_id=table.pk)
    hand = play_hand_via_services(table.pk, players)
    assert hand.status == "finished"
    acts = TableEvent.objects.filter(table=table, type="action")
    assert {e.payload["by"] for e in acts} <= {"player", "bot"}
    assert all(e.payload["by"] == "player" for e in acts if e.payload["seat"] == 0)


@pytest.mark.django_db
def test_finished_hands_verify_by_replay(full_table, players):
    from apps.tables.storage.verify import verify_table_hands

    ready_all(full_table.pk, players)
    play_hand_via_services(full_table.pk, players)
    assert verify_table_hands(full_table.pk) == [None]


@pytest.mark.django_db
def test_a_banned_member_loses_his_seat_at_a_waiting_table(full_table, players, club):
    """Issue 12, item 4: banning (or removing) a member frees his seat; he cannot ready or be dealt in."""
    from apps.clubs import services as club_services
    from apps.clubs.models import Membership

    banned = players[2]
    services.seat_ready(user=players[0], table_id=full_table.pk)
    club_services.member_ban(membership=Membership.objects.get(club=club, user=banned), by=club.admin_user)
    table = Table.objects.get(pk=full_table.pk)
    assert not table.seats.filter(user=banned).exists()
    leave = TableEvent.objects.filter(table=table, type="seat.leave").last()
    assert leave.payload == {"seat": 2, "reason": "not_member"}
    with pytest.raises(TableError) as refused:
        services.seat_ready(user=banned, table_id=full_table.pk)
    assert refused.value.code == "not_seated"
    services.seat_ready(user=players[1], table_id=full_table.pk)
    assert Table.objects.get(pk=full_table.pk).status == "waiting"  # two of three: nobody is dealt in


@pytest.mark.django_db
def test_a_seated_user_who_is_no_longer_a_member_cannot_ready(full_table, players, club):
    """The seat row survives a membership removed behind the services' back: ready still refuses."""
    from django.db.models.signals import post_delete

    from apps.clubs.models import Membership
    from apps.tables.receivers import on_membership_deleted

    post_delete.disconnect(on_membership_deleted, sender=Membership, dispatch_uid="tables.vacate_on_membership_end")
    try:
        Membership.objects.filter(club=club, user=players[2]).delete()
    finally:
        post_delete.connect(on_membership_deleted, sender=Membership, dispatch_uid="tables.vacate_on_membership_end")
    with pytest.raises(TableError) as refused:
        services.seat_ready(user=players[2], table_id=full_table.pk)
    assert refused.value.code == "not_member"
