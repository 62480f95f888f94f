"""Every format end to end through the real services; hands played by 托管 (the bots' path)."""

from __future__ import annotations

import hashlib

import pytest

from apps.matches import seating
from apps.matches.models import Entrant, MatchRound, MatchTable

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _english():
    """Messages are matched in English here (the site's default language is zh-hans)."""
    from django.utils import translation

    with translation.override("en"):
        yield


def _finished_checks(match, club, players, mh, *, fee=100):
    assert match.state == "finished", match.state
    assert mh.escrow_balance(match) == 0
    match.escrow.refresh_from_db()
    assert match.escrow.closed
    assert mh.audit_clean() == {}
    ranked = list(Entrant.objects.filter(match=match, rank__isnull=False).order_by("rank"))
    assert [e.rank for e in ranked] == list(range(1, len(ranked) + 1))
    pool = fee * len(ranked)
    assert sum(e.prize for e in ranked) == pool
    # the percent scheme 50/30/20 pays places 1..3, the remainder to 1st
    assert [e.prize for e in ranked[:3]] == [pool * 50 // 100 + (pool - pool * 50 // 100 - pool * 30 // 100
                                                                 - pool * 20 // 100), pool * 30 // 100,
                                              pool * 20 // 100]
    for e in ranked:
        assert mh.balance(club, e.user) == 1000 - fee + e.prize
    # every table ended and was recorded exactly once
    assert not MatchTable.objects.filter(match=match, results__isnull=True).exists()
    return ranked


def test_fixed_9_players_two_rounds(match_club, make_match, mh):
    club, owner, _admin, players = match_club(9)
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    assert match.state == "running"
    # the seed was committed at registration close and revealed after seating round 1
    assert match.seed and hashlib.sha256(bytes.fromhex(match.seed)).hexdigest() == match.seed_hash
    r1 = MatchRound.objects.get(match=match, number=1)
    stored = [t.seats for t in MatchTable.objects.filter(round=r1).order_by("number")]
    again = seating.seat_round(sorted(r1.players), table_size=3, seed=bytes.fromhex(match.seed), round_no=1,
                               met=set(), avoid=set(), byes_had=set(), by_standings=False)
    assert again.tables == stored and len(stored) == 3
    mh.drive(match)
    ranked = _finished_checks(match, club, players, mh)
    assert len(ranked) == 9
    # round 2 avoided repeat table-mates (avoidable with 9 players)
    r2 = MatchRound.objects.get(match=match, number=2)
    assert r2.repeats == 0
    met1 = {frozenset((a, b)) for s in stored for a in s for b in s if a != b}
    for t in MatchTable.objects.filter(round=r2):
        assert not any(frozenset((a, b)) in met1 for a in t.seats for b in t.seats if a != b)
    # match points: 4/2/0 per table (scaled), each table's sum is 6 points (ties split)
    from apps.matches import formats
    scale = formats.points_scale(3)
    assert sum(e.match_points for e in ranked) == 2 * 3 * 6 * scale
    # final order follows the printed tie-breaks
    assert ranked == formats.standings_order(ranked)


def test_fixed_13_players_byes(match_club, make_match, mh):
    club, owner, _admin, players = match_club(13)
    match = make_match(club, owner, rounds=2, hands_per_round=1)
    mh.register_all(match, players)
    mh.start(match)
    rounds = []
    mh.drive(match)
    for r in MatchRound.objects.filter(match=match).order_by("number"):
        rounds.append(r)
        assert len(r.byes) == 1  # 13 = 4 tables of 3 + 1 bye
        assert MatchTable.objects.filter(round=r).count() == 4
    assert rounds[0].byes != rounds[1].byes  # nobody gets a second bye while others had none
    from apps.matches import formats
    bye_user = rounds[0].byes[0]
    entry = Entrant.objects.get(match=match, user_id=bye_user)
    assert entry.byes == 1 and entry.match_points >= formats.bye_points([4, 2, 0], 3)
    _finished_checks(match, club, players, mh)


def test_fixed_four_player_preset_with_piao(match_club, make_match, make_template, mh):
    club, owner, _admin, players = match_club(8)
    template = make_template(club, name="郴州四人", preset="chenzhou", players=4, piao_choices=[0, 1, 2])
    match = make_match(club, owner, template=template, rounds=2, hands_per_round=1, min_entrants=4)
    assert match.players == 4 and match.piao_choices == [0, 1, 2]
    mh.register_all(match, players)
    mh.start(match)
    assert MatchTable.objects.filter(match=match, round__number=1).count() == 2
    mh.drive(match)
    ranked = _finished_checks(match, club, players, mh)
    assert len(ranked) == 8
    # the piao phase ran at the match tables (the template has one)
    from apps.tables.models import Hand
    hands = Hand.objects.filter(table__match_table__match=match)
    assert hands.exists() and all(h.piao for h in hands)


def test_elimination_12_players(match_club, make_match, mh):
    club, owner, _admin, players = match_club(12)
    match = make_match(club, owner, format="elimination", elim_start_chips=1000, elim_line=1000,
                       elim_rise_every=1, elim_rise_by=5, final_hands=1)
    mh.register_all(match, players)
    mh.start(match)
    assert MatchTable.objects.filter(match=match, round__number=1).count() == 4
    mh.drive(match)
    ranked = _finished_checks(match, club, players, mh)
    assert len(ranked) == 12
    final = MatchRound.objects.filter(match=match, kind="final").get()
    assert final.number == match.current_round
    finalists = {u for t in MatchTable.objects.filter(round=final) for u in t.seats}
    assert len(finalists) == 3
    assert {e.user_id for e in ranked[:3]} == finalists
    # everyone else went out in an earlier round, later out ranks better
    rest = ranked[3:]
    assert all(e.status == "out" and e.out_round is not None for e in rest)
    assert [e.out_round for e in rest] == sorted((e.out_round for e in rest), reverse=True)
    # elimination rounds are one hand per table; chips are zero-sum around the start
    assert all(r.hands == 1 for r in MatchRound.objects.filter(match=match, kind="round"))
    assert sum(e.chips for e in ranked) == 12 * 1000


def test_knockout_13_players(match_club, make_match, mh):
    club, owner, _admin, players = match_club(13)
    match = make_match(club, owner, format="knockout", knockout_top=1, hands_per_round=1, final_hands=1)
    mh.register_all(match, players)
    mh.start(match)
    mh.drive(match)
    ranked = _finished_checks(match, club, players, mh)
    rounds = list(MatchRound.objects.filter(match=match).order_by("number"))
    # 13 → 4 tables + 1 bye → 5 advance → 1 table + 2 byes → 3 → final
    assert [len(r.players) for r in rounds] == [13, 5, 3]
    assert rounds[-1].kind == "final"
    finalists = {u for t in MatchTable.objects.filter(round=rounds[-1]) for u in t.seats}
    assert {e.user_id for e in ranked[:3]} == finalists
    # every round-1 table's winner (or its bye) reached round 2
    for t in MatchTable.objects.filter(round=rounds[0]):
        top = min(t.results.items(), key=lambda kv: kv[1]["rank"])
        assert int(top[0]) in rounds[1].players
