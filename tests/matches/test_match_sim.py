"""manage.py match_sim: whole matches with bot players through the real services (托管 path)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from apps.ledgers.models import Account
from apps.matches.models import Entrant, Match, MatchRound, MatchTable

pytestmark = pytest.mark.django_db(transaction=True)

KEYS = {"format", "players", "rounds", "hands", "tables", "seconds", "errors", "ledger_audit", "escrow", "top3"}


def sim(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("match_sim", *args, stdout=out, stderr=err)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1, out.getvalue()
    report = json.loads(lines[0])
    assert set(report) == KEYS
    assert report["errors"] == 0, err.getvalue()
    assert report["ledger_audit"] == "clean"
    assert report["escrow"] == 0
    match = Match.objects.get()
    assert match.state == "finished"
    ranked = list(Entrant.objects.filter(match=match).order_by("rank").select_related("user"))
    assert [e.rank for e in ranked] == list(range(1, report["players"] + 1))
    assert report["top3"] == [str(e.user) for e in ranked[:3]]
    assert report["tables"] == MatchTable.objects.filter(match=match).count()
    assert report["rounds"] == MatchRound.objects.filter(match=match).count()
    # Fees went in and the whole pool came out as 50/30/20 prizes; every bot holds exactly his prize.
    pool = 100 * report["players"]
    assert [e.prize for e in ranked[:3]] == [pool - pool * 30 // 100 - pool * 20 // 100, pool * 30 // 100,
                                              pool * 20 // 100]
    for e in ranked:
        assert Account.objects.get(club=match.club, kind="member", user=e.user).balance == e.prize
    return report, match


def test_fixed_9_players_2_rounds_of_1_hand():
    report, match = sim("--format", "fixed", "--players", "9", "--rounds", "2", "--hands", "1")
    assert (report["format"], report["players"], report["rounds"], report["tables"], report["hands"]) == (
        "fixed", 9, 2, 6, 6)
    # The bots played through 托管: every seat's moves are 托管 moves, none timed out.
    from apps.tables.models import TableEvent

    events = TableEvent.objects.filter(table__match_table__match=match)
    bys = {e.payload.get("by") for e in events.filter(type="action")}
    assert bys == {"tuoguan"}
    assert not events.filter(type="seat.timeout").exists()
    assert MatchRound.objects.get(match=match, number=2).repeats == 0


def test_elimination_12_players():
    report, match = sim("--format", "elimination", "--players", "12", "--hands", "1")
    assert report["format"] == "elimination" and report["players"] == 12
    final = MatchRound.objects.get(match=match, kind="final")
    assert final.number == report["rounds"]
    assert sorted(len(t.seats) for t in MatchTable.objects.filter(round=final)) == [3]
    assert report["hands"] >= report["rounds"]


def test_knockout_13_players():
    report, match = sim("--format", "knockout", "--players", "13", "--hands", "1")
    # 13 → 4 tables + a bye → 5 → 1 table + 2 byes → 3 → the final.
    assert [len(r.players) for r in MatchRound.objects.filter(match=match).order_by("number")] == [13, 5, 3]
    assert (report["rounds"], report["tables"], report["hands"]) == (3, 6, 6)


def test_four_player_preset_with_piao():
    report, match = sim("--format", "fixed", "--players", "8", "--rounds", "2", "--hands", "1",
                        "--table-size", "4")
    assert match.players == 4 and match.preset == "chenzhou" and match.piao_choices == [0, 1, 2]
    assert (report["rounds"], report["tables"], report["hands"]) == (2, 4, 4)


def test_bad_arguments_change_nothing():
    with pytest.raises(CommandError):
        call_command("match_sim", "--players", "2", stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command("match_sim", "--fee", "-5", stdout=io.StringIO())
    assert not Match.objects.exists()
