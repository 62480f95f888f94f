"""A running match: the on-commit advance, no-shows on 托管, pause/resume and re-seat, concurrent
advancing, collusion-aware seating, standings queries."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.clubs.models import AuditLog
from apps.matches import selectors, services
from apps.matches.models import Entrant, MatchRound, MatchTable
from apps.tables.models import Seat

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _english():
    """Messages are matched in English here (the site's default language is zh-hans)."""
    from django.utils import translation

    with translation.override("en"):
        yield


def _tuoguan_round(match, number):
    """Everyone at the round's tables chooses 托管: their tables play to the end at once."""
    from apps.tables.verbs.services import seat_set_tuoguan

    for mt in MatchTable.objects.filter(match=match, round__number=number):
        for seat in Seat.objects.filter(table_id=mt.table_id).select_related("user"):
            if not seat.tuoguan:
                seat_set_tuoguan(user=seat.user, table_id=mt.table_id, on=True)


def test_next_round_is_seated_on_commit_of_the_last_table(match_club, make_match, mh):
    club, owner, _admin, players = match_club(9)
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    _tuoguan_round(match, 1)
    match.refresh_from_db()
    # no advance() call here: the table_finished receiver seated round 2 when the last table committed
    assert match.current_round == 2
    assert MatchTable.objects.filter(match=match, round__number=2).count() == 3
    # players still on 托管 start the next table on 托管 (they are not made to time out again)
    assert all(s.tuoguan for s in Seat.objects.filter(table__match_table__round__number=2,
                                                      table__match_table__match=match))
    mh.drive(match)
    assert match.state == "finished"


def test_no_show_is_played_by_tuoguan_and_withdrawn_after_two_rounds(match_club, make_match, mh):
    club, owner, _admin, players = match_club(9)
    match = make_match(club, owner, rounds=3, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    ghost = players[4]
    mh.drive(match, absent=[ghost])
    assert match.state == "finished"
    entry = Entrant.objects.get(match=match, user=ghost)
    assert entry.status == "withdrawn" and entry.absent_rounds == 2 and entry.out_round == 2
    assert entry.rank == 9  # behind everyone still playing
    r3 = MatchRound.objects.get(match=match, number=3)
    assert ghost.pk not in r3.players and len(r3.players) == 8 and len(r3.byes) == 2
    # his tables went on: he timed out; time-outs on his own turns put him on 托管 (a claim
    # window's time-out does not: others would learn he held an option, RULES.md §5.3)
    from apps.tables.models import TableEvent
    from apps.tables.transaction.transitions import TUOGUAN_AFTER_TIMEOUTS
    first = MatchTable.objects.get(match=match, round__number=1, seats__contains=ghost.pk) \
        if connection.vendor == "postgresql" else next(
            t for t in MatchTable.objects.filter(match=match, round__number=1) if ghost.pk in t.seats)
    seat = first.seats.index(ghost.pk)
    events = [e.payload for e in TableEvent.objects.filter(table_id=first.table_id, type="seat.timeout")
              if e.payload.get("seat") == seat]
    assert events
    turn_timeouts = [e for e in events if not e.get("claim")]
    went_tuoguan = TableEvent.objects.filter(table_id=first.table_id, type="seat.tuoguan", payload__seat=seat,
                                             payload__on=True).exists()
    assert went_tuoguan == (len(turn_timeouts) >= TUOGUAN_AFTER_TIMEOUTS)
    assert first.results[str(ghost.pk)]["absent"] is True
    assert mh.escrow_balance(match) == 0 and mh.audit_clean() == {}


def test_withdraw_while_running_tuoguan_finishes_his_table(match_club, make_match, mh):
    club, owner, _admin, players = match_club(9)
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    quitter = players[0]
    table_id = Entrant.objects.get(match=match, user=quitter).current_table_id
    services.withdraw(match=match, user=quitter)
    assert Seat.objects.get(table_id=table_id, user=quitter).tuoguan
    assert mh.balance(club, quitter) == 900  # no refund once the match runs
    mh.drive(match)
    entry = Entrant.objects.get(match=match, user=quitter)
    assert entry.status == "withdrawn" and entry.rank == 9
    assert quitter.pk not in MatchRound.objects.get(match=match, number=2).players


def test_pause_holds_hands_reseat_is_audited_resume_goes_on(match_club, make_match, mh):
    club, owner, admin, players = match_club(9)
    match = make_match(club, owner, rounds=2, hands_per_round=2)
    mh.register_all(match, players)
    mh.start(match)
    services.pause(match=match, by=admin)
    _tuoguan_round(match, 1)
    # hand 1 was played; hand 2 is held at every table
    for mt in MatchTable.objects.filter(match=match, round__number=1).select_related("table"):
        assert mt.table.hands_played == 1 and mt.table.stage == "settle" and mt.table.hands.count() == 1
    with pytest.raises(services.ValidationError, match="no table 99"):
        services.reseat(match=match, by=admin, user=players[0], table_number=99)
    services.resume(match=match, by=admin)
    for mt in MatchTable.objects.filter(match=match, round__number=1).select_related("table"):
        mt.table.refresh_from_db()
        assert mt.table.hands_played == 2 and mt.table.status == "finished"
    match.refresh_from_db()
    assert match.current_round == 2
    # round 2 seated while paused: its tables wait; the admin swaps two players, then resumes
    services.pause(match=match, by=admin)
    match.refresh_from_db()
    assert match.current_round == 2
    tables = list(MatchTable.objects.filter(match=match, round__number=2).order_by("number"))
    assert all(t.table.status == "playing" for t in tables)  # seated before the pause: already dealing
    from django.contrib.auth import get_user_model
    with pytest.raises(services.ValidationError, match="already started"):
        services.reseat(match=match, by=admin, user=get_user_model().objects.get(pk=tables[0].seats[0]),
                        table_number=2)
    services.resume(match=match, by=admin)
    mh.drive(match)
    assert match.state == "finished"
    actions = set(AuditLog.objects.filter(club=club, action__startswith="match.").values_list("action", flat=True))
    assert {"match.create", "match.pause", "match.resume"} <= actions


def test_reseat_swaps_players_of_held_tables(match_club, make_match, mh):
    club, owner, admin, players = match_club(9)
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    services.pause(match=match, by=admin)
    _tuoguan_round(match, 1)  # round 1 ends; round 2 is seated but held (paused)
    match.refresh_from_db()
    assert match.current_round == 2
    tables = list(MatchTable.objects.filter(match=match, round__number=2).order_by("number").select_related("table"))
    assert all(t.table.status == "waiting" and t.table.hands.count() == 0 for t in tables)
    mover, other = tables[0].seats[0], tables[1].seats[-1]
    from django.contrib.auth import get_user_model
    User = get_user_model()
    with pytest.raises(services.PermissionDenied):
        services.reseat(match=match, by=players[0], user=User.objects.get(pk=mover), table_number=2)
    services.reseat(match=match, by=admin, user=User.objects.get(pk=mover), table_number=2)
    t1, t2 = (MatchTable.objects.get(pk=t.pk) for t in tables[:2])
    assert mover in t2.seats and other in t1.seats
    assert Seat.objects.filter(table_id=t2.table_id, user_id=mover).exists()
    assert Seat.objects.filter(table_id=t1.table_id, user_id=other).exists()
    log = AuditLog.objects.get(club=club, action="match.reseat")
    assert log.actor == admin and log.target_user_id == mover and log.detail["to_table"] == 2
    assert MatchRound.objects.get(match=match, number=2).reseated
    services.resume(match=match, by=admin)
    mh.drive(match)
    assert match.state == "finished" and mh.audit_clean() == {}


def test_concurrent_advance_creates_one_set_of_tables(match_club, make_match, mh):
    from apps.matches import receivers
    from apps.tables.signals import table_finished

    club, owner, _admin, players = match_club(9)
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    table_finished.disconnect(dispatch_uid="matches.advance_on_table_finished")
    try:
        _tuoguan_round(match, 1)
    finally:
        table_finished.connect(receivers.on_table_finished, dispatch_uid="matches.advance_on_table_finished")
    match.refresh_from_db()
    assert match.current_round == 1  # nobody advanced yet
    if connection.vendor == "postgresql":
        barrier = threading.Barrier(3)
        errors = []

        def run():
            try:
                barrier.wait()
                services.advance(match_id=match.pk, play=False)
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=run) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
    else:
        services.advance(match_id=match.pk, play=False)
        services.advance(match_id=match.pk, play=False)
    assert MatchRound.objects.filter(match=match, number=2).count() == 1
    assert MatchTable.objects.filter(match=match, round__number=2).count() == 3
    # and the database itself refuses a second round 2 or a second table 1
    r2 = MatchRound.objects.get(match=match, number=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        MatchRound.objects.create(match=match, number=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        MatchTable.objects.create(match=match, round=r2, number=1,
                                  table=MatchTable.objects.filter(match=match, round__number=1).first().table)
    mh.drive(match)
    assert match.state == "finished"


def test_shared_ip_and_never_together_pairs_are_kept_apart(match_club, make_match, mh):
    from apps.accounts.models import SeenAddress

    club, owner, admin, players = match_club(9)
    now = timezone.now()
    pairs = [(players[0], players[1]), (players[2], players[3]), (players[4], players[5])]
    for n, (a, b) in enumerate(pairs[:2], start=1):
        for u in (a, b):  # one address per pair (ids can be large on PostgreSQL: not part of the address)
            SeenAddress.objects.create(user=u, ip=f"10.0.0.{n}", first_seen=now, last_seen=now)
    # an old shared address (more than 30 days ago) does not count
    for u in (players[6], players[7]):
        SeenAddress.objects.create(user=u, ip="10.9.9.9", first_seen=now - timedelta(days=60),
                                   last_seen=now - timedelta(days=40))
    services.never_together_add(club=club, by=admin, user_a=players[4], user_b=players[5])
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    mh.drive(match)
    for mt in MatchTable.objects.filter(match=match):
        for a, b in pairs:
            assert not (a.pk in mt.seats and b.pk in mt.seats), (mt.round.number, mt.seats)
    assert all(r.avoid_broken == 0 for r in MatchRound.objects.filter(match=match))


def test_standings_queries_do_not_grow_with_entrants(match_club, make_match, make_user, mh):
    club, owner, _admin, players = match_club(13)
    small = make_match(club, owner, name="小", rounds=1)
    mh.register_all(small, players[:4])
    big = make_match(club, owner, name="大", rounds=1)
    mh.register_all(big, players)
    counts = []
    for match in (small, big):
        mh.start(match)
        with CaptureQueriesContext(connection) as ctx:
            rows = selectors.standings(match=match)
            selectors.round_seatings(match=match)
        counts.append(len(ctx.captured_queries))
        assert len(rows) == match.entrants.count()
        assert [r.rank for r in rows] == list(range(1, len(rows) + 1))
    assert counts[0] == counts[1], counts
    mh.drive(small)
    mh.drive(big)
    rows = selectors.standings(match=big)
    assert [r.final_rank for r in rows] == list(range(1, 14))
    assert sum(r.prize for r in rows) == 1300


@pytest.mark.parametrize("amounts, house", [([150], 150), ([200, 200], -100)])
def test_fixed_prizes_and_the_club_account(match_club, make_match, mh, amounts, house):
    """Fixed prizes below the pool leave the rest to the club account; beyond it, the club pays."""
    from apps.ledgers.models import Account, Transaction

    club, owner, _admin, players = match_club(3)
    match = make_match(club, owner, rounds=1, hands_per_round=1,
                       prize_scheme={"kind": "fixed", "amounts": amounts})
    mh.register_all(match, players)
    mh.start(match)
    house_before = Account.objects.get(club=club, kind="club").balance
    mh.drive(match)
    ranked = list(Entrant.objects.filter(match=match).order_by("rank"))
    assert [e.prize for e in ranked[: len(amounts)]] == amounts
    assert Account.objects.get(club=club, kind="club").balance - house_before == house
    key = f"match:{match.pk}:house-out" if house > 0 else f"match:{match.pk}:house-in"
    assert Transaction.objects.filter(idempotency_key=key).count() == 1
    assert mh.escrow_balance(match) == 0 and mh.audit_clean() == {}
    # finishing is exactly once: advancing again posts nothing more
    count = Transaction.objects.filter(idempotency_key__startswith=f"match:{match.pk}:").count()
    services.advance(match_id=match.pk)
    assert Transaction.objects.filter(idempotency_key__startswith=f"match:{match.pk}:").count() == count


def test_cancel_while_running_dissolves_tables_and_refunds(match_club, make_match, mh):
    club, owner, admin, players = match_club(6)
    match = make_match(club, owner, rounds=2, hands_per_round=2)
    mh.register_all(match, players)
    mh.start(match)
    table_ids = services.open_table_ids(match_id=match.pk)
    assert len(table_ids) == 2
    services.match_cancel(match=match, by=admin, reason="断网")
    match.refresh_from_db()
    assert match.state == "cancelled" and match.cancel_reason == "断网"
    from apps.tables.models import Table
    assert set(Table.objects.filter(pk__in=table_ids).values_list("status", flat=True)) == {"dissolved"}
    assert all(mh.balance(club, u) == 1000 for u in players)
    assert mh.escrow_balance(match) == 0 and mh.audit_clean() == {}
    assert set(Entrant.objects.filter(match=match).values_list("status", flat=True)) == {"cancelled"}


def test_humans_hands_start_by_themselves(match_club, make_match, mh):
    """Players who play every move themselves never click "ready": each next hand deals itself."""
    from apps.tables.models import Hand, Table
    from apps.tables.verbs import play
    from tests.tables.helpers import play_hand_via_services

    club, owner, _admin, players = match_club(3)
    match = make_match(club, owner, rounds=1, hands_per_round=2)
    mh.register_all(match, players)
    mh.start(match)
    mt = MatchTable.objects.get(match=match)
    seated = [next(u for u in players if u.pk == pk) for pk in mt.seats]
    assert Hand.objects.filter(table_id=mt.table_id).count() == 1  # dealt at once, nobody clicked ready
    play_hand_via_services(mt.table_id, seated)
    # the hand's result shows for NEXT_HAND_SECONDS (a countdown on the page), then the second
    # hand deals itself (the deadline beat)
    table = Table.objects.get(pk=mt.table_id)
    assert table.stage == "settle" and table.deadline_kind == "next"
    assert play.deadline_fire(table_id=mt.table_id, at=table.deadline)
    assert Hand.objects.filter(table_id=mt.table_id).count() == 2  # the second hand dealt itself
    play_hand_via_services(mt.table_id, seated)
    match.refresh_from_db()
    assert match.state == "finished"  # the table's end finished the match (on commit, no beat)
    assert all(not r["absent"] for r in MatchTable.objects.get(pk=mt.pk).results.values())
    assert mh.audit_clean() == {}
