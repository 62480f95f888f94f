"""Session rules through the services: piao window, force-dissolve, spectators, dealer rotation over
consecutive hands, the session summary, bot pacing, and the in-process hand cache."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.engine.bots.choose import bot_choose
from apps.engine.play.dealer import next_dealer
from apps.engine.rules import RuleSet
from apps.tables.models import Hand, Seat, Table, TableEvent
from apps.tables.read.presenters import legal_of, table_state
from apps.tables.read.selectors import access_for
from apps.tables.storage import hand_cache
from apps.tables.transaction import unit
from apps.tables.transaction.context import TableError
from apps.tables.transaction.outbox import view_seq
from apps.tables.transaction.snapshot import table_snapshot
from apps.tables.verbs import dissolve, play, services
from tests.tables.helpers import cached, current, play_hand_via_services, ready_all


def later(table, seconds=1):
    return table.deadline + timedelta(seconds=seconds)


@pytest.mark.django_db
def test_piao_window_choices_default_on_timeout_and_settlement(players, make_template):
    template = make_template(piao_choices=(0, 1, 3), hands=1, piao=True)
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    table = Table.objects.get(pk=table.pk)
    assert table.stage == "piao" and table.deadline_kind == "piao"
    opened = TableEvent.objects.get(table=table, type="piao.open")
    assert opened.payload["choices"] == [0, 1, 3]
    with pytest.raises(TableError) as bad:
        services.piao_choose(user=players[1], table_id=table.pk, value=2)
    assert bad.value.code == "bad_piao"
    with pytest.raises(TableError):
        services.piao_choose(user=players[1], table_id=table.pk, value=True)
    services.piao_choose(user=players[1], table_id=table.pk, value=3)
    with pytest.raises(TableError) as again:
        services.piao_choose(user=players[1], table_id=table.pk, value=1)
    assert again.value.code == "piao_chosen"
    # while the window is open nobody sees another seat's choice
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    state = table_state(Table.objects.get(pk=table.pk), seats, None, None, 0)
    assert state["seats"][1]["piao"] is None and state["seats"][1]["piao_chosen"] is True
    with pytest.raises(TableError):
        play.hand_act(user=players[0], table_id=table.pk, seq=view_seq(table, 0), action={"type": "pass"})
    # the deadline passes: the others get the first choice (0), and the hand is dealt
    table = Table.objects.get(pk=table.pk)
    assert play.deadline_fire(table_id=table.pk, at=later(table))
    timeouts = TableEvent.objects.filter(table=table, type="piao.choose", payload__timeout=True)
    assert sorted(e.payload["seat"] for e in timeouts) == [0, 2]
    table, hand, eh = current(table.pk)
    assert table.stage == "hand" and hand.piao == {"0": 0, "1": 3, "2": 0}
    hand = play_hand_via_services(table.pk, players)
    piao_line = hand.totals["piao"]
    assert set(piao_line) == {"0", "1", "2"} and sum(piao_line.values()) == 0
    if hand.result["winner"] is not None and hand.result["winner"] != 1:
        assert piao_line["1"] < 0  # seat 1 floated 3: it pays more when it loses
    end = TableEvent.objects.get(table=table, type="hand.end")
    assert end.payload["totals"]["piao"] == piao_line
    snap = table_snapshot(table_id=table.pk, viewer=2)["state"]
    assert snap["hand"]["totals"]["piao"] == piao_line and snap["hand"]["piao"] == hand.piao
    assert [s["piao"] for s in snap["seats"]] == [0, 3, 0]


@pytest.mark.django_db
def test_admin_force_dissolve(full_table, players, club):
    ready_all(full_table.pk, players)
    with pytest.raises(TableError) as refused:
        dissolve.table_force_dissolve(user=players[1], table_id=full_table.pk)
    assert refused.value.code == "not_allowed"
    assert Table.objects.get(pk=full_table.pk).status == "playing"
    dissolve.table_force_dissolve(user=club.admin_user, table_id=full_table.pk)
    table = Table.objects.get(pk=full_table.pk)
    assert table.status == "dissolved" and table.stage == "over" and table.deadline is None
    hand = table.hands.get()
    assert hand.status == "dissolved" and len(hand.seed) == 64
    event = TableEvent.objects.get(table=table, type="table.dissolve")
    assert event.payload == {"reason": "admin", "by": club.admin_user.pk}
    assert TableEvent.objects.filter(table=table, type="table.end").exists()
    with pytest.raises(TableError) as closed:
        dissolve.table_force_dissolve(user=club.admin_user, table_id=full_table.pk)
    assert closed.value.code == "table_closed"
    with pytest.raises(TableError):
        play.hand_act(user=players[0], table_id=table.pk, seq=view_seq(table, 0), action={"type": "pass"})


@pytest.mark.django_db
def test_admin_spectator_sees_no_hidden_card(full_table, players, club):
    ready_all(full_table.pk, players)
    table = Table.objects.get(pk=full_table.pk)
    access = access_for(user=club.admin_user, table=table)
    assert access is not None and access.seat is None and not access.can_act
    snap = table_snapshot(table_id=table.pk, viewer=access.seat)
    text = json.dumps(snap)
    _, hand, eh = current(table.pk)
    assert bytes(eh.seed).hex() not in text
    view = snap["state"]["hand"]["view"]
    assert all(cards is None for cards in view["hands"].values())
    assert not view["legal_actions"] and not legal_of(snap["state"]["hand"]) and "chou" not in view
    assert "stock_cards" not in view


@pytest.mark.django_db
def test_two_hands_move_the_dealer_and_the_session_summary(full_table, players):
    ready_all(full_table.pk, players)
    hand1 = play_hand_via_services(full_table.pk, players)
    table = Table.objects.get(pk=full_table.pk)
    rules = RuleSet.from_json(table.ruleset)
    expected = next_dealer(rules, hand1.dealer, hand1.result["winner"], 0)
    assert (table.dealer, table.consecutive_draws) == expected
    assert table.stage == "settle" and table.status == "playing"
    ready_all(full_table.pk, players)
    _, hand2, eh2 = current(full_table.pk)
    assert hand2.number == 2 and hand2.dealer == expected[0] and eh2.dealer == expected[0]
    start = TableEvent.objects.filter(table=table, type="hand.start").order_by("-seq").first()
    assert start.payload["dealer"] == expected[0]
    hand2 = play_hand_via_services(full_table.pk, players)
    table = Table.objects.get(pk=full_table.pk)
    assert table.status == "finished" and table.stage == "over" and table.hands_played == 2
    hands = list(Hand.objects.filter(table=table).order_by("number"))
    totals = {i: sum(h.totals["total"][str(i)] for h in hands) for i in range(3)}
    wins = {i: sum(h.result["winner"] == i for h in hands) for i in range(3)}
    end = TableEvent.objects.get(table=table, type="table.end")
    assert end.payload["reason"] == "complete" and end.payload["hands_played"] == 2
    assert {r["seat"]: r["total"] for r in end.payload["summary"]} == totals
    assert {r["seat"]: r["wins"] for r in end.payload["summary"]} == wins
    state = table_snapshot(table_id=table.pk, viewer=0)["state"]
    assert [(r["index"], r["total"], r["wins"]) for r in state["summary"]] == [
        (i, totals[i], wins[i]) for i in range(3)
    ]
    with pytest.raises(TableError):
        services.seat_ready(user=players[0], table_id=table.pk)


@pytest.mark.django_db
def test_bots_wait_a_short_paced_deadline(players, template, settings):
    settings.TABLES_BOT_DELAY = (0.6, 1.2)
    table = services.table_open(user=players[0], template=template, practice=True)
    services.seat_ready(user=players[0], table_id=table.pk)
    for _ in range(60):
        table, hand, eh = current(table.pk)
        if hand.status != "playing":
            break
        to_act = eh.to_act()
        if 0 in to_act:  # the human: act at once, the bots must then wait their delay
            play.hand_act(user=players[0], table_id=table.pk, seq=view_seq(table, 0),
                          action=bot_choose(eh, 0, kind="random").to_wire())
            table, hand, eh = current(table.pk)
            if hand.status != "playing" or 0 in eh.to_act():
                continue
        assert table.deadline_kind == "bot"
        delay = (table.deadline - timezone.now()).total_seconds()
        assert delay <= 1.2 + 0.05
        assert unit.autoplay(table_id=table.pk) == 0  # nothing plays before the deadline
        assert not play.deadline_fire(table_id=table.pk, at=table.deadline - timedelta(seconds=0.3))
        seq = table.seq
        assert play.deadline_fire(table_id=table.pk, at=table.deadline + timedelta(milliseconds=1))
        moves = TableEvent.objects.filter(table=table, type="action", seq__gt=seq)
        # one bot move (two when both bots were deciding on the same card)
        assert 1 <= moves.count() <= 2 and all(m.payload["by"] == "bot" for m in moves)
    assert TableEvent.objects.filter(table=table, type="action", payload__by="bot").count() >= 3


@pytest.mark.django_db(transaction=True)
def test_hand_cache_matches_the_rows_and_rebuilds_on_mismatch(full_table, players):
    hand_cache.clear()
    ready_all(full_table.pk, players)
    hits = hand_cache.stats["hits"]
    for _ in range(12):
        table, hand, eh = current(full_table.pk)
        if hand.status != "playing":
            break
        entry = cached(table)
        assert entry is not None, "a committed action leaves its hand in the cache"
        assert entry[1].to_json() == eh.to_json()
        seat = eh.to_act()[0]
        play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat),
                      action=bot_choose(eh, seat, kind="random").to_wire())
    assert hand_cache.stats["hits"] > hits
    # Another process moved the table: our entry is for an older seq and must not be used.
    table, hand, eh = current(full_table.pk)
    stale = cached(table)
    Table.objects.filter(pk=table.pk).update(seq=table.seq)  # no change yet: still valid
    assert cached(Table.objects.get(pk=table.pk)) is not None
    hand_cache.store(Table(pk=table.pk, rev=table.rev, seq=table.seq - 1, last_hash=table.last_hash), stale[0],
                     stale[1], seats=stale[2])
    assert cached(Table.objects.get(pk=table.pk)) is None
    seat = eh.to_act()[0]
    play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat),
                  action=bot_choose(eh, seat, kind="random").to_wire())
    table, hand, eh = current(full_table.pk)
    assert cached(table)[1].to_json() == eh.to_json()
    # A refused action changes nothing, in the rows and in the cache.
    with pytest.raises(TableError):
        play.hand_act(user=players[0], table_id=table.pk, seq=view_seq(table, 0) - 1, action={"type": "pass"})
    assert cached(Table.objects.get(pk=table.pk))[1].to_json() == eh.to_json()


@pytest.mark.django_db
def test_who_may_watch_a_table(full_table, players, club, make_user):
    """README "Who may do what": managers and staff (auditing) watch as spectators; a plain member
    only looks at a waiting table; an outsider sees nothing (issue 12, item 8)."""
    staff = make_user(username="staff1", is_staff=True)
    outsider = make_user(username="outsider1")
    member = make_user(username="member9")
    from apps.clubs.models import Membership

    Membership.objects.create(club=club, user=member, role="member")
    table = Table.objects.get(pk=full_table.pk)
    assert access_for(user=member, table=table).seat is None  # waiting: a member may look
    ready_all(full_table.pk, players)
    table = Table.objects.get(pk=full_table.pk)
    for watcher in (club.admin_user, staff):
        access = access_for(user=watcher, table=table)
        assert access is not None and access.seat is None and not access.can_act
    assert access_for(user=member, table=table) is None  # playing: members may not watch
    assert access_for(user=outsider, table=table) is None


@pytest.mark.django_db
def test_viewer_snapshot_decides_access_in_the_same_read(full_table, players, club, make_user):
    """Issue 12, item 3: a plain member gets a waiting table's state, and nothing once it has started."""
    from apps.clubs.models import Membership
    from apps.tables.transaction.snapshot import viewer_snapshot

    member = make_user(username="member8")
    Membership.objects.create(club=club, user=member, role="member")
    waiting = viewer_snapshot(user=member, table_id=full_table.pk)
    assert waiting is not None and waiting["state"]["status"] == "waiting"
    ready_all(full_table.pk, players)
    assert viewer_snapshot(user=member, table_id=full_table.pk) is None
    mine = viewer_snapshot(user=players[1], table_id=full_table.pk)
    assert mine["state"]["hand"]["view"]["hands"][1]  # his own cards
