"""Helpers of the replays tests: run_command; for the replay app (R-APP), a club with every role around one table whose first
hand has ended (the second one can be dealt to have a hand in play)."""

from __future__ import annotations

import hashlib
import io
import itertools
import random
from dataclasses import dataclass, field

from apps.clubs.models import Membership, Role, RuleTemplate
from apps.clubs.services import club_create
from apps.tables.models import Hand, Table
from apps.tables.transaction import session
from apps.tables.verbs import services as table_services
from tests.tables.helpers import play_hand_via_services, ready_all


@dataclass
class World:
    club: object
    owner: object
    admin: object
    member: object  # a member who did not play
    players: list
    staff: object
    outsider: object  # signed in, in no club
    other_admin: object  # admin of another club
    other_member: object  # member of another club only
    table: Table
    hand: Hand
    extra: dict = field(default_factory=dict)


def deterministic_seeds(monkeypatch, salt: str) -> None:
    counter = itertools.count()
    monkeypatch.setattr(session, "new_seed", lambda: hashlib.sha256(f"{salt}:{next(counter)}".encode()).digest())


def build_world(make_user, *, hands: int = 2, seed: int = 1, preset: str = "full") -> World:
    users = {name: make_user(username=name, password="pw-secret-123", display_name=f"名{name}")
             for name in ("owner", "admin", "member", "p0", "p1", "p2", "outsider", "oadmin", "omember")}
    staff = make_user(username="staff", password="pw-secret-123", is_staff=True)
    club = club_create(name="牌友会", owner=users["owner"])
    Membership.objects.create(club=club, user=users["admin"], role=Role.ADMIN)
    for name in ("member", "p0", "p1", "p2"):
        Membership.objects.create(club=club, user=users[name], role=Role.MEMBER)
    other = club_create(name="别的俱乐部", owner=make_user(username="oowner"))
    Membership.objects.create(club=other, user=users["oadmin"], role=Role.ADMIN)
    Membership.objects.create(club=other, user=users["omember"], role=Role.MEMBER)
    template = RuleTemplate.objects.create(club=club, name="三人", preset=preset, players=3, base_score=1,
                                           hands_per_session=hands, turn_seconds=15)
    players = [users["p0"], users["p1"], users["p2"]]
    table = table_services.table_open(user=players[0], template=template)
    for user in players[1:]:
        table_services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    hand = play_hand_via_services(table.pk, players, rng=random.Random(seed))
    return World(club=club, owner=users["owner"], admin=users["admin"], member=users["member"], players=players,
                 staff=staff, outsider=users["outsider"], other_admin=users["oadmin"],
                 other_member=users["omember"], table=Table.objects.get(pk=table.pk), hand=hand)


def deal_next(world: World) -> Hand:
    """Everyone readies: the next hand is dealt and stays in play."""
    ready_all(world.table.pk, world.players)
    hand = Hand.objects.filter(table=world.table).order_by("-number").first()
    assert hand.status == "playing"
    return hand


def run_command(*args) -> tuple[int, str]:
    """A management command's exit code and output (a CommandError's message included)."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = io.StringIO()
    try:
        call_command(*args, stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()
