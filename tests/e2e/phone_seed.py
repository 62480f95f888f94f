"""A club with data on every page, for the phone layout walk (tests/e2e/test_phone_layout.py).

Run inside ``manage.py shell`` by the browser test's server (tests/e2e/e2e_server.py): ``build()``
makes an owner, an admin and three members of one club, a live table with a played and settled
hand (ledger, leaderboard, replay, the table page), a history of hands written for the collusion
report, 上分, a dispute under review, a finished 2-round match with fees and prizes, a 回放码, and
returns the ids the test needs as one JSON line.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta

from django.utils import timezone

PASSWORD = "Xk7-phone-layout"
USERS = [("p_owner", "老王"), ("p_admin", "小李"), ("p_a", "阿明"), ("p_b", "阿芳"), ("p_c", "阿强")]


def _drive_match(match) -> None:
    """Play a running match to its end with every seat on 托管 (as tests/matches/conftest.py does)."""
    from apps.matches import services
    from apps.tables.models import Seat
    from apps.tables.transaction import unit
    from apps.tables.verbs import play
    from apps.tables.verbs.services import seat_set_tuoguan

    for _ in range(400):
        match.refresh_from_db()
        if match.state != "running":
            return
        for table_id in services.open_table_ids(match_id=match.pk):
            for seat in Seat.objects.filter(table_id=table_id).select_related("user"):
                if seat.user_id and not seat.tuoguan:
                    seat_set_tuoguan(user=seat.user, table_id=table_id, on=True)
            unit.autoplay(table_id=table_id)
            play.deadline_fire(table_id=table_id, at=timezone.now() + timedelta(hours=1))
        services.advance(match_id=match.pk)
    raise AssertionError(f"match {match.pk} did not finish")


def build() -> str:
    from apps.accounts.models import User
    from apps.accounts.services import address_seen
    from apps.clubs import services as club_services
    from apps.clubs.models import Membership, Role
    from apps.ledgers.services import adjustment_create, settle_hand
    from apps.matches import services as match_services
    from apps.replays import services as replay_services
    from apps.replays.audit import services as audit_services
    from apps.replays.audit.tasks import record_hand
    from tests.replays.audit.helpers import TableWriter, days_ago, feeder, honest, play_real_hand, taker

    users = {}
    for username, name in USERS:
        users[username] = User.objects.create_user(username=username, password=PASSWORD, display_name=name)
    owner, admin, a, b, c = (users[u] for u, _ in USERS)
    club = club_services.club_create(name="湘江跑胡子俱乐部", owner=owner)
    Membership.objects.create(club=club, user=admin, role=Role.ADMIN)
    for user in (a, b, c):
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    for user in (a, b, c):
        member = Membership.objects.get(club=club, user=user)
        adjustment_create(club=club, member=member, amount=500, reason="开局上分", by=owner)
    invite = club_services.invite_create(club=club, by=owner)

    # A live table: one hand played through the services and settled; the session goes on.
    hand = play_real_hand(club, [a, b, c], seed=7)
    settle_hand(hand_id=hand.pk)
    record_hand.delay(hand.pk)

    # A history for the collusion report (a and b share an address and feed each other).
    for user in (a, b):
        address_seen(user=user, ip="10.0.0.7")
    rng = random.Random(5)
    for t in range(3):
        writer = TableWriter(club, [a, b, c], start=days_ago(t + 1), join_gaps=[0, 3, 400], name=f"夜场{t + 1}")
        for n in range(6):
            old = writer.play([feeder(1), taker(0), honest], f"phone-{t}-{n}", rng)
            settle_hand(hand_id=old.pk)
            record_hand.delay(old.pk)

    dispute = audit_services.dispute_create(user=a, hand=hand, reason="这局的胡息算错了，请管理员核对")
    audit_services.dispute_review(dispute=dispute, by=admin)
    share = replay_services.share_create(user=a, hand=hand)

    # A finished 2-round match with an entry fee and prizes.
    from apps.clubs.models import RuleTemplate

    template = RuleTemplate.objects.filter(club=club).first()
    match = match_services.match_create(
        club=club, by=owner, name="周四晚快赛", template=template, format="fixed",
        starts_at=timezone.now() + timedelta(hours=1), min_entrants=3, max_entrants=30, entry_fee=10,
        prize_scheme={"kind": "percent", "percents": [60, 40]}, hands_per_round=1, rounds=2)
    for user in (a, b, c):
        match_services.register(match=match, user=user)
    for user in (a, b, c):
        match_services.check_in(match=match, user=user, now=match.starts_at - timedelta(minutes=5))
    match_services.start_due(now=match.starts_at + timedelta(seconds=1))
    _drive_match(match)

    return json.dumps({
        "club": club.pk, "hand": hand.pk, "table": hand.table_id, "dispute": dispute.pk, "match": match.pk,
        "pair": sorted([a.pk, b.pk]), "member_a": a.pk, "share": share.code,
        "invite": invite.code,
    })
