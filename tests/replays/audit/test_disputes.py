"""Disputes: filing, the admins' queue (open → reviewing → resolved), the correcting adjustment
posted once through the ledger, the player seeing the outcome; and authz on every audit page."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from django.urls import reverse

from apps.clubs.models import AuditLog, Membership, Role
from apps.ledgers import services as ledger_services
from apps.ledgers.models import Entry, Transaction
from apps.replays.audit.models import Dispute, DisputeStatus
from apps.replays.audit.tasks import record_hand
from apps.tables.models import Hand
from tests.replays.audit.helpers import TableWriter, days_ago, honest

pytestmark = pytest.mark.django_db


@dataclass
class World:
    club: object
    other_club: object
    owner: object
    admin: object
    member: object  # a member who did not play the hand
    player: object  # played the hand
    player2: object
    staff: object
    outsider: object
    other_admin: object
    hand: Hand
    playing: Hand  # a hand still in play
    other_hand: Hand  # a hand of the other club
    other_dispute: Dispute

    def user(self, role):
        return None if role == "anonymous" else getattr(self, role)


@pytest.fixture
def world(make_user, make_club):
    owner, admin, member, player, player2 = (make_user(n) for n in ("owner", "admin", "member", "player", "player2"))
    staff, outsider = make_user("staff", is_staff=True), make_user("outsider")
    other_owner, other_admin, other_player = make_user("o2"), make_user("a2"), make_user("p2")
    club = make_club("A", owner=owner, admins=[admin], members=[member, player, player2])
    other = make_club("B", owner=other_owner, admins=[other_admin], members=[other_player])
    rng = random.Random(3)
    writer = TableWriter(club, [player, player2, owner], start=days_ago(1))
    hand = writer.play([honest] * 3, "dispute-hand", rng)
    assert ledger_services.settle_hand(hand_id=hand.pk).status == "posted"
    record_hand.delay(hand.pk)
    playing = Hand.objects.create(table=writer.table, number=99, dealer=0, seed_hash="0" * 64, ruleset={},
                                  players={"0": player.pk, "1": player2.pk, "2": owner.pk})
    other_writer = TableWriter(other, [other_player, other_owner, other_admin], start=days_ago(1))
    other_hand = other_writer.play([honest] * 3, "other-hand", rng)
    other_dispute = Dispute.objects.create(club=other, hand=other_hand, filed_by=other_player, reason="other")
    return World(club, other, owner, admin, member, player, player2, staff, outsider, other_admin, hand,
                 playing, other_hand, other_dispute)


def _login(client, user):
    if user is not None:
        client.force_login(user)


# --- authz -------------------------------------------------------------------------------------

ROLES = ("anonymous", "outsider", "member", "player", "admin", "owner", "staff", "other_admin")
REPORT = {"anonymous": 302, "outsider": 404, "member": 403, "player": 403, "admin": 200, "owner": 200,
          "staff": 200, "other_admin": 404}
# Reviewing and resolving: the owner played the hand, so he is refused (the page says why: another
# admin or staff judges it); staff judge but an adjustment is a manager's (his resolve with one is
# refused as a bad form).
REVIEW = {"anonymous": 302, "outsider": 404, "member": 403, "player": 403, "admin": 302, "owner": 302,
          "staff": 302, "other_admin": 404}
RESOLVE = {"anonymous": 302, "outsider": 404, "member": 403, "player": 403, "admin": 302, "owner": 400,
           "staff": 400, "other_admin": 404}
REVIEWED = {"admin", "staff"}
RESOLVED = {"admin"}


@pytest.mark.parametrize("role", ROLES)
def test_dispute_actions_authz(world, client, role):
    dispute = Dispute.objects.create(club=world.club, hand=world.hand, filed_by=world.player, reason="r")
    _login(client, world.user(role))
    detail = client.get(reverse("audit:dispute", args=[world.club.pk, dispute.pk]))
    assert detail.status_code == REPORT[role]
    review = client.post(reverse("audit:dispute_review", args=[world.club.pk, dispute.pk]))
    assert review.status_code == REVIEW[role]
    dispute.refresh_from_db()
    assert dispute.status == ("reviewing" if role in REVIEWED else "open")
    resolve = client.post(reverse("audit:dispute_resolve", args=[world.club.pk, dispute.pk]),
                          {"outcome": "ok", "member": world.player.pk, "amount": "3"})
    assert resolve.status_code == RESOLVE[role]
    dispute.refresh_from_db()
    allowed = role in RESOLVED
    assert dispute.status == ("resolved" if allowed else "reviewing" if role in REVIEWED else "open")
    assert Transaction.objects.filter(idempotency_key=f"dispute:{dispute.pk}").exists() == allowed


def test_forged_ids_are_unknown(world, client):
    client.force_login(world.admin)
    club = world.club.pk
    # Another club's dispute under our club's URL, a club that does not exist, a dispute that does not.
    assert client.get(reverse("audit:dispute", args=[club, world.other_dispute.pk])).status_code == 404
    assert client.post(reverse("audit:dispute_resolve", args=[club, world.other_dispute.pk]),
                       {"outcome": "x"}).status_code == 404
    assert client.post(reverse("audit:dispute_review", args=[club, world.other_dispute.pk])).status_code == 404
    assert client.get(reverse("audit:collusion", args=[999999])).status_code == 404
    assert client.get(reverse("audit:dispute", args=[club, 999999])).status_code == 404
    assert client.get(reverse("audit:collusion_pair", args=[club, 999998, 999999])).status_code == 404
    # The other club's queue and report: its admin only.
    assert client.get(reverse("audit:disputes", args=[world.other_club.pk])).status_code == 404
    world.other_dispute.refresh_from_db()
    assert world.other_dispute.status == "open"
    bad_period = client.get(reverse("audit:collusion", args=[club]) + "?since=not-a-date")
    assert bad_period.status_code == 200 and 'class="error"' in bad_period.content.decode()


@pytest.mark.parametrize("who", ["outsider", "member", "admin", "staff", "other_admin"])  # owner played
def test_only_players_of_an_ended_hand_may_file(world, client, who):
    client.force_login(getattr(world, who))
    assert client.get(reverse("audit:dispute_create", args=[world.hand.pk])).status_code == 404
    assert client.post(reverse("audit:dispute_create", args=[world.hand.pk]), {"reason": "x"}).status_code == 404
    assert not Dispute.objects.filter(club=world.club).exists()


def test_player_cannot_file_on_a_hand_in_play_or_unknown(world, client):
    client.force_login(world.player)
    for hand_id in (world.playing.pk, world.other_hand.pk, 999999):
        assert client.post(reverse("audit:dispute_create", args=[hand_id]), {"reason": "x"}).status_code == 404
    assert not Dispute.objects.filter(club=world.club).exists()
    assert client.get(reverse("audit:dispute_create", args=[world.hand.pk])).status_code == 200


def test_anonymous_is_sent_to_sign_in(world, client):
    for url in (reverse("audit:dispute_create", args=[world.hand.pk]), reverse("audit:my_disputes")):
        response = client.get(url)
        assert response.status_code == 302 and reverse("accounts:login") in response["Location"]


# --- lifecycle --------------------------------------------------------------------------------


def _balance(world, user):
    return sum(Entry.objects.filter(account__club=world.club, account__user=user).values_list("amount", flat=True))


def test_dispute_lifecycle_with_one_adjustment(world, client):
    client.force_login(world.player)
    create = reverse("audit:dispute_create", args=[world.hand.pk])
    empty = client.post(create, {"reason": "   "})
    assert empty.status_code == 400 and 'class="error"' in empty.content.decode()
    assert not Dispute.objects.filter(club=world.club).exists()
    response = client.post(create, {"reason": "The 胡 was not counted right", "kind": "score"})
    assert response.status_code == 302 and response["Location"] == reverse("audit:my_disputes")
    dispute = Dispute.objects.get(club=world.club)
    assert dispute.status == "open" and dispute.filed_by == world.player
    again = client.post(create, {"reason": "again", "kind": "score"})
    assert again.status_code == 400 and 'class="error"' in again.content.decode()
    assert Dispute.objects.filter(club=world.club).count() == 1
    mine = client.get(reverse("audit:my_disputes")).content.decode()
    assert f'data-dispute="{dispute.pk}"' in mine and "The 胡 was not counted right" in mine

    client.force_login(world.admin)
    queue = client.get(reverse("audit:disputes", args=[world.club.pk])).content.decode()
    assert f'data-dispute="{dispute.pk}"' in queue
    assert f'data-dispute="{world.other_dispute.pk}"' not in queue
    assert "ledger-lines" in queue  # the hand's settlement lines are attached
    try:
        assert f'href="{reverse("replays:hand", args=[world.hand.pk])}"' in queue
    except Exception as exc:  # noqa: BLE001 - R-APP's viewer not merged yet: the link text only
        if exc.__class__.__name__ != "NoReverseMatch":
            raise
        assert "replay-link" in queue
    client.post(reverse("audit:dispute_review", args=[world.club.pk, dispute.pk]))
    dispute.refresh_from_db()
    assert dispute.status == "reviewing" and dispute.reviewer == world.admin
    client.post(reverse("audit:dispute_review", args=[world.club.pk, dispute.pk]))  # twice: refused
    dispute.refresh_from_db()
    assert dispute.status == "reviewing"

    resolve = reverse("audit:dispute_resolve", args=[world.club.pk, dispute.pk])
    before = _balance(world, world.player)
    bad_inputs = [
        {"outcome": "fixed", "member": world.player.pk, "amount": "abc"},  # not an integer
        {"outcome": "fixed", "member": world.player.pk, "amount": "2.5"},
        {"outcome": "fixed", "member": world.player.pk, "amount": "0"},
        {"outcome": "fixed", "amount": "5"},  # an amount without a player
        {"outcome": "fixed", "member": world.member.pk, "amount": "5"},  # not a player of the hand
        {"outcome": "   ", "member": world.player.pk, "amount": "5"},  # no outcome
    ]
    for data in bad_inputs:
        response = client.post(resolve, data)
        assert response.status_code == 400, data
        assert 'class="error"' in response.content.decode(), data
        dispute.refresh_from_db()
        assert dispute.status == "reviewing" and not Transaction.objects.filter(
            idempotency_key=f"dispute:{dispute.pk}").exists()
    assert _balance(world, world.player) == before

    response = client.post(resolve, {"outcome": "Score corrected: +5", "member": world.player.pk, "amount": "5"})
    assert response.status_code == 302
    dispute.refresh_from_db()
    assert dispute.status == "resolved" and dispute.outcome == "Score corrected: +5"
    txn = Transaction.objects.get(idempotency_key=f"dispute:{dispute.pk}")
    assert dispute.adjustment == txn and txn.kind == "adjustment"
    assert sorted(txn.entries.values_list("amount", flat=True)) == [-5, 5]
    assert _balance(world, world.player) == before + 5
    again = client.post(resolve, {"outcome": "twice", "member": world.player.pk, "amount": "5"})
    assert again.status_code == 400 and 'class="error"' in again.content.decode()
    assert Transaction.objects.filter(idempotency_key__startswith="dispute:").count() == 1
    assert _balance(world, world.player) == before + 5
    dispute.refresh_from_db()
    assert dispute.outcome == "Score corrected: +5"
    actions = list(AuditLog.objects.filter(club=world.club).values_list("action", flat=True))
    for action in ("dispute.file", "dispute.review", "dispute.resolve", "ledger.adjust"):
        assert actions.count(action) == 1, action

    client.force_login(world.player)
    mine = client.get(reverse("audit:my_disputes")).content.decode()
    assert "Score corrected: +5" in mine
    # A new dispute on the same hand is possible once the first is resolved.
    assert client.post(create, {"reason": "one more thing", "kind": "other"}).status_code == 302


def test_resolve_without_adjustment_and_demoted_admin(world):
    from django.core.exceptions import PermissionDenied, ValidationError

    from apps.replays.audit import services

    dispute = services.dispute_create(user=world.player2, hand=world.hand, reason="slow play")
    with pytest.raises(PermissionDenied):
        services.dispute_resolve(dispute=dispute, by=world.member, outcome="no")
    with pytest.raises(PermissionDenied):
        services.dispute_resolve(dispute=dispute, by=world.other_admin, outcome="no")
    with pytest.raises(ValidationError):
        services.dispute_resolve(dispute=dispute, by=world.admin, outcome="x", member_id=world.player2.pk,
                                 amount="5")  # a string is not an amount
    done = services.dispute_resolve(dispute=dispute, by=world.admin, outcome="Nothing wrong: the replay shows it")
    assert done.status == DisputeStatus.RESOLVED and done.adjustment is None
    with pytest.raises(ValidationError):
        services.dispute_resolve(dispute=dispute, by=world.admin, outcome="again", member_id=world.player2.pk,
                                 amount=5)
    assert not Transaction.objects.filter(idempotency_key__startswith="dispute:").exists()
    Membership.objects.filter(club=world.club, user=world.admin).update(role=Role.MEMBER)
    other = services.dispute_create(user=world.player, hand=world.hand, reason="x")
    with pytest.raises(PermissionDenied):
        services.dispute_review(dispute=other, by=world.admin)


def test_pages_are_chinese_first_and_english_on_request(world, client, settings):
    client.force_login(world.owner)
    url = reverse("audit:collusion", args=[world.club.pk])
    html = client.get(url).content.decode()
    assert "合谋报告" in html and "得分如何计算" in html and "Collusion report" not in html
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(url).content.decode()
    assert "Collusion report" in html and "How the score is computed" in html
    queue = client.get(reverse("audit:disputes", args=[world.club.pk])).content.decode()
    assert "Disputes" in queue
