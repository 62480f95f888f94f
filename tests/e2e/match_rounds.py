"""Server-side steps of the browser test of a match between its tables (test_match_between_browser.py),
run in the test server's ``manage.py shell`` (``shell(script)``): seat a running 定局积分 match
with two tables and a bye, play a table's hand for every seat, finish a table. Each step prints one
JSON line (the script's last line is handed back to the test)."""

from __future__ import annotations

import json
import time

PASSWORD = "Paohuzi-between-46"
PLAYERS = [("btw0", "东家"), *[(f"btw{i}", name) for i, name in enumerate(
    ["阿明", "小芳", "老李", "大刘", "阿强", "小红", "老周"], start=1)]]


def script(call: str) -> str:
    return f"import json\nfrom tests.e2e.match_rounds import *\nprint(json.dumps({call}))"


def seed_running_match() -> dict:
    """A club of 7 players (and its owner); a 2-round fixed match of 2 hands a round on a 飘 room,
    everyone checked in and round 1 seated (2 tables of 3, one bye). The ids and who sits where."""
    from datetime import timedelta

    from django.utils import timezone

    from apps.accounts.models import User
    from apps.clubs.models import RuleTemplate
    from apps.matches import services
    from apps.matches.models import Match
    from tests.e2e.seeds import seed_club

    club_id = seed_club(club="周五俱乐部", users=PLAYERS, password=PASSWORD, members=range(1, 8),
                        templates=[dict(name="飘分赛", preset="full", players=3, hands_per_session=2,
                                        turn_seconds=300, claim_seconds=60, piao_choices=[0, 1, 2],
                                        options={"piao": True})])
    owner = User.objects.get(username="btw0")
    room = RuleTemplate.objects.get(club_id=club_id, name="飘分赛")
    match = services.match_create(
        club=room.club, by=owner, name="周五积分赛", template=room, format="fixed",
        starts_at=timezone.now() + timedelta(hours=1), min_entrants=3, max_entrants=9, entry_fee=0,
        prize_scheme={"kind": "percent", "percents": [100]}, hands_per_round=2, rounds=2)
    users = list(User.objects.filter(username__in=[u for u, _n in PLAYERS[1:]]).order_by("username"))
    for user in users:
        services.register(match=match, user=user)
    for user in users:
        services.check_in(match=match, user=user, now=match.starts_at - timedelta(minutes=5))
    services.start_due(now=match.starts_at + timedelta(seconds=1))
    match = Match.objects.get(pk=match.pk)
    return {"club": club_id, "match": match.pk, "seated_at": time.time(), **seating(match.pk, 1)}


def seating(match_id: int, number: int) -> dict:
    """The round's tables (id, seated usernames in seat order) and its byes (usernames)."""
    from apps.accounts.models import User
    from apps.matches.models import MatchRound, MatchTable

    names = dict(User.objects.values_list("pk", "username"))
    mround = MatchRound.objects.get(match_id=match_id, number=number)
    tables = [{"id": mt.table_id, "seats": [names[u] for u in mt.seats]}
              for mt in MatchTable.objects.filter(round=mround).order_by("number")]
    return {"round": number, "tables": tables, "byes": [names[u] for u in mround.byes]}


def _users(table_id: int) -> list:
    from apps.tables.models import Seat

    return [s.user for s in Seat.objects.filter(table_id=table_id).select_related("user").order_by("index")]


def choose_piao(table_id: int, *, skip: tuple[str, ...] = ()) -> str:
    """Every seat still to choose (but ``skip``) chooses 飘 0."""
    from apps.tables.models import Seat
    from apps.tables.verbs import services

    for seat in Seat.objects.filter(table_id=table_id, piao__isnull=True).select_related("user"):
        if seat.user.username not in skip:
            services.piao_choose(user=seat.user, table_id=table_id, value=0)
    return table_stage(table_id)


def play_hand(table_id: int) -> str:
    """The current hand is played to its end through the services, a greedy bot deciding for
    every seat (the table's own players: nothing is played around the rules)."""
    from tests.tables.helpers import play_hand_via_services

    play_hand_via_services(table_id, _users(table_id), kind="greedy")
    return table_stage(table_id)


def ready_all(table_id: int, *, skip: tuple[str, ...] = ()) -> str:
    from apps.tables.verbs import services

    for user in _users(table_id):
        if user.username not in skip:
            services.seat_ready(user=user, table_id=table_id)
    return table_stage(table_id)


def finish_table(table_id: int) -> str:
    """Piao, hands and readies for every seat until the table's session is over. The server's own
    timers (飘 after arrival, the next hand's countdown) may act between reading the stage and a
    step: a step the table refuses for that (``bad_stage``, ``piao_chosen``) is read again."""
    from apps.tables.transaction.context import TableError

    for _ in range(40):
        stage = table_stage(table_id)
        if stage == "over":
            return stage
        try:
            if stage == "piao":
                choose_piao(table_id)
            elif stage == "settle":
                ready_all(table_id)
            elif stage == "hand":
                play_hand(table_id)
        except TableError as e:
            if e.code not in ("bad_stage", "piao_chosen"):
                raise
    raise AssertionError(f"table {table_id} did not finish")


def table_stage(table_id: int) -> str:
    from apps.tables.models import Table

    return Table.objects.get(pk=table_id).stage


def advance(match_id: int) -> dict:
    """The match's advance (the server's on-commit hook does it too); the current round's seating."""
    from apps.matches import services
    from apps.matches.models import Match

    services.advance(match_id=match_id)
    match = Match.objects.get(pk=match_id)
    return seating(match_id, match.current_round)


def round_one_table_of(match_id: int, username: str) -> int:
    from apps.accounts.models import User
    from apps.matches.models import MatchTable

    user = User.objects.get(username=username)
    return next(mt.table_id for mt in MatchTable.objects.filter(match_id=match_id, round__number=1)
                if user.pk in mt.seats)


__all__ = ["PASSWORD", "PLAYERS", "advance", "choose_piao", "finish_table", "json", "play_hand", "ready_all",
           "round_one_table_of", "seed_running_match", "seating", "table_stage"]
