"""The 大局 summary (issue #11): per seat total, wins, 自摸, 放炮, best 胡息, big winner — in the
table state at stage over and on the 大局 replay page, from the stored hands."""

from __future__ import annotations

import random

import pytest

from apps.tables.models import Hand, Seat, Table
from apps.tables.read.presenters import table_state
from apps.tables.read.summary import session_summary
from apps.tables.verbs import services
from tests.tables.helpers import play_hand_via_services, ready_all

KEYS = {"index", "name", "total", "wins", "zimo", "dianpao", "best_huxi", "big_winner"}


def _state(table_id, viewer=0):
    table = Table.objects.get(pk=table_id)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    return table_state(table, seats, None, None, viewer)


def _fake_hand(table, number, dealer, result):
    return Hand.objects.create(table=table, number=number, dealer=dealer, seed_hash="0" * 64, seed="ab",
                               status="finished", result=result, totals={"total": {}})


def _win(winner, win_by, huxi, discarder=None):
    out = {"winner": winner, "win_by": win_by, "card": "s1", "settlement": {"win": True, "huxi": huxi, "score": 1}}
    if discarder is not None:
        out["discarder"] = discarder
    return out


@pytest.mark.django_db
def test_summary_over_a_played_session_matches_the_hands(players, make_template):
    template = make_template(hands=3)
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    rng = random.Random(7)
    assert _state(table.pk)["summary"] is None
    for _ in range(3):
        ready_all(table.pk, players)
        play_hand_via_services(table.pk, players, rng, kind="greedy")
    state = _state(table.pk)
    assert state["stage"] == "over"
    rows = state["summary"]
    assert [r["index"] for r in rows] == [0, 1, 2] and all(set(r) == KEYS for r in rows)
    hands = list(Hand.objects.filter(table_id=table.pk, status="finished"))
    assert len(hands) == 3
    assert sum(r["wins"] for r in rows) >= 1, "the scripted session has a won hand"
    for row in rows:
        won = [h for h in hands if h.result.get("winner") == row["index"]]
        assert row["name"] == players[row["index"]].name
        assert row["total"] == sum(int(h.totals["total"][str(row["index"])]) for h in hands)
        assert row["wins"] == len(won)
        assert row["zimo"] == sum(1 for h in won if h.result["win_by"] in ("self_draw", "natural")
                                  or (h.result["win_by"] == "reveal" and h.dealer == row["index"]))
        assert row["best_huxi"] == max((h.result["settlement"]["huxi"] for h in won), default=0)
        assert row["dianpao"] is None  # preset full: no 胡 on a discard
    top = max(r["total"] for r in rows)
    assert [r["big_winner"] for r in rows] == [top > 0 and r["total"] == top for r in rows]


@pytest.mark.django_db
def test_zimo_dianpao_best_huxi_and_big_winner_from_stored_results(players, make_template):
    template = make_template(preset="chenzhou", hands=5)
    table = services.table_open(user=players[0], template=template)
    _fake_hand(table, 1, 0, _win(1, "discard", 15, discarder=2))
    _fake_hand(table, 2, 1, _win(1, "self_draw", 24))
    _fake_hand(table, 3, 1, _win(0, "reveal", 18))  # seat 0 is not the dealer: not 自摸
    _fake_hand(table, 4, 0, _win(0, "discard", 12, discarder=2))
    _fake_hand(table, 5, 0, {"winner": None, "draw": True})
    Hand.objects.create(table=table, number=6, dealer=0, seed_hash="0" * 64, seed="ab", status="dissolved",
                        result=_win(2, "self_draw", 99))  # a dissolved hand counts for nothing
    Seat.objects.filter(table=table, index=0).update(score=6, wins=2)
    Seat.objects.filter(table=table, index=1).update(score=6, wins=2)
    Seat.objects.filter(table=table, index=2).update(score=-12, wins=0)
    rows = {r["index"]: r for r in session_summary(Table.objects.get(pk=table.pk))}
    assert rows[0] == {"index": 0, "name": players[0].name, "total": 6, "wins": 2, "zimo": 0, "dianpao": 0,
                       "best_huxi": 18, "big_winner": True}
    assert rows[1]["zimo"] == 1 and rows[1]["best_huxi"] == 24 and rows[1]["dianpao"] == 0
    assert rows[1]["big_winner"] is True  # a tie: both share the top total
    assert rows[2] == {"index": 2, "name": "", "total": -12, "wins": 0, "zimo": 0, "dianpao": 2,
                       "best_huxi": 0, "big_winner": False}
    # the dealer's reveal win is 自摸
    _fake_hand(table, 7, 0, _win(0, "reveal", 10))
    assert session_summary(Table.objects.get(pk=table.pk))[0]["zimo"] == 1


@pytest.mark.django_db
def test_no_big_winner_when_nobody_is_up(players, make_template):
    table = services.table_open(user=players[0], template=make_template())
    assert [r["big_winner"] for r in session_summary(table)] == [False, False, False]
    Seat.objects.filter(table=table, index=1).update(score=-1)
    assert [r["big_winner"] for r in session_summary(table)] == [False, False, False]
    assert [r["dianpao"] for r in session_summary(table)] == [None, None, None]


@pytest.mark.django_db
def test_replay_page_shows_the_same_summary(client, players, make_template):
    template = make_template(preset="chenzhou", hands=1)
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    play_hand_via_services(table.pk, players, rng=random.Random(2))
    client.force_login(players[1])
    page = client.get(f"/replays/tables/{table.pk}/")
    assert page.status_code == 200
    assert page.context["data"]["summary"] == _state(table.pk)["summary"]
    body = page.content.decode()
    assert 'id="session-summary"' in body
    assert body.count('<tr data-seat="') == 3
    assert "放炮" in body or "Dianpao" in body  # chenzhou counts 放炮


@pytest.mark.django_db
def test_replay_page_of_an_open_table_has_no_summary(client, full_table, players):
    client.force_login(players[0])
    page = client.get(f"/replays/tables/{full_table.pk}/")
    assert page.status_code == 200 and page.context["data"]["summary"] is None


@pytest.mark.django_db
def test_an_ended_tables_summary_reads_its_hands_once(players, make_template, django_assert_num_queries):
    """Stage over is final, so the hands' part is kept: the updates of an ended table (seats going
    offline, a rematch offer) no longer read every hand. The seats' part is read as given."""
    table = services.table_open(user=players[0], template=make_template(hands=1))
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    play_hand_via_services(table.pk, players, random.Random(5), kind="greedy")
    table = Table.objects.get(pk=table.pk)
    assert table.stage == "over"
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    first = session_summary(table, seats)
    with django_assert_num_queries(0):
        again = session_summary(table, seats)
    assert again == first
    seats[2].score += 100  # (not saved: the rows as the caller holds them)
    with django_assert_num_queries(0):
        changed = session_summary(table, seats)
    assert changed[2]["total"] == first[2]["total"] + 100 and changed[2]["big_winner"]
    assert [r["zimo"] for r in changed] == [r["zimo"] for r in first]
