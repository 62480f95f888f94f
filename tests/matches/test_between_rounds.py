"""Between his tables a player is told where he stands (issue #46): a player sitting the round
out reads 轮空 and what it means in this format; one whose table has finished reads 等待下一轮
("the next round starts by itself") only until it has started — then his new table, or 轮空.

The match page (``page_payload``), its poll (``standings_payload``) and the table page's follow
endpoint (``my_table``) say the same (status.py)."""

from __future__ import annotations

import pytest
from django.utils import translation

from apps.matches import formats, live, services
from apps.matches.models import MatchRound, MatchTable
from apps.tables.models import Seat

pytestmark = pytest.mark.django_db

NEXT = "下一轮会自动开始"


def _finish_table(table_id):
    """Everyone at the table chooses 托管: it plays to its end at once (bots play in the request)."""
    from apps.tables.verbs.services import seat_set_tuoguan

    for seat in Seat.objects.filter(table_id=table_id).select_related("user"):
        if not seat.tuoguan:
            seat_set_tuoguan(user=seat.user, table_id=table_id, on=True)


def _statuses(match, users):
    match.refresh_from_db()
    out = {}
    for u in users:
        mine = live.my_table(match=match, user=u)
        page = live.page_payload(match=match, user=u, membership=True, can_watch=False)
        assert page["entry"]["status"] == mine["status"], u.name  # one status, every page
        row = next(r for r in page["rows"] if r["user_id"] == u.pk)
        assert row["status"] == mine["status"]
        out[u.pk] = (mine["status"], mine["table"])
    return out


def test_bye_and_waiting_are_said_and_go_when_the_next_round_starts(match_club, make_match, mh):
    club, owner, _admin, players = match_club(7)
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    one = MatchRound.objects.get(match=match, number=1)
    assert len(one.byes) == 1
    bye = next(u for u in players if u.pk == one.byes[0])
    with translation.override("zh-hans"):
        status, table = _statuses(match, [bye])[bye.pk]
        assert table is None
        assert status["key"] == "bye" and status["label"] == "轮空"
        assert status["reason"].startswith("本轮轮空") and "等待下一轮" in status["reason"]

        first, second = MatchTable.objects.filter(round=one).order_by("number")
        _finish_table(first.table_id)
        services.advance(match_id=match.pk)  # (the on-commit advance of a real server)
        match.refresh_from_db()
        assert match.current_round == 1
        done = [u for u in players if u.pk in first.seats]
        for status, table in _statuses(match, done).values():
            assert table is None
            assert status["key"] == "waiting" and status["label"] == "等待下一轮"
            assert NEXT in status["reason"]
        playing = [u for u in players if u.pk in second.seats]
        assert all(s["key"] == "playing" for s, _t in _statuses(match, playing).values())

        _finish_table(second.table_id)
        services.advance(match_id=match.pk)
        match.refresh_from_db()
        assert match.current_round == 2
        two = MatchRound.objects.get(match=match, number=2)
        now = _statuses(match, players)
        for u in players:
            status, table = now[u.pk]
            assert NEXT not in status["reason"], u.name  # no stale "the next round starts by itself"
            if u.pk in two.byes:
                assert status["key"] == "bye" and table is None
            else:
                assert status["key"] == "playing" and table is not None

        # the last round: a finished table waits for the final standings, not for a next round
        last = MatchTable.objects.filter(round=two).order_by("number").first()
        _finish_table(last.table_id)
        services.advance(match_id=match.pk)
        for status, _table in _statuses(match, [u for u in players if u.pk in last.seats]).values():
            assert status["key"] == "waiting" and "最终排名" in status["reason"] and NEXT not in status["reason"]


def test_each_format_says_what_a_bye_means():
    class M:
        players, hands_per_round, rounds, points_by_rank = 3, 1, 3, (4, 2, 0)
        elim_start_chips, elim_line, elim_rise_every, elim_rise_by = 1000, 900, 1, 20
        knockout_top, final_hands = 1, 4

    notes = {}
    with translation.override("zh-hans"):
        for key in ("fixed", "knockout", "elimination"):
            m = M()
            m.format = key
            notes[key] = formats.of(m).bye_note(translation.gettext)
    assert notes["fixed"] == "本轮轮空（得 2 比赛分），等待下一轮。"
    assert "晋级" in notes["knockout"]
    assert notes["elimination"] == "本手轮空（筹码不变），等待下一手。"
