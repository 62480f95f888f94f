"""Who may see a replay, over every route (apps/replays/access.py): players of the hand, the club's
owner/admins and staff; 404 for everyone else and for forged ids; never while the hand is in play;
audited views of managers and staff in the club audit log."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apps.clubs.models import AuditLog
from apps.replays.access import VIEW_ACTION
from apps.replays.models import ShareCode
from apps.tables.models import Hand
from tests.replays.helpers import deal_next
from tests.replays.roles import user_of

ROUTES = ("replays:hand", "replays:frames", "replays:export")
ALLOWED = ("p0", "p1", "p2", "owner", "admin", "staff")
DENIED = ("member", "outsider", "other_admin", "other_member")


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("role", ALLOWED + DENIED)
def test_every_role_on_every_route(world, client, role, route):
    client.force_login(user_of(world, role))
    response = client.get(reverse(route, args=[world.hand.pk]))
    assert response.status_code == (200 if role in ALLOWED else 404), (role, route)
    if role in ALLOWED and route == "replays:export":
        assert response["Content-Disposition"].startswith("attachment;")
        assert json.loads(response.content)["format"] == "paohuzi-hand/1"
    if role in ALLOWED and route == "replays:frames":
        data = response.json()
        assert len(data["frames"]) >= 2 and data["hand"]["seed"] == world.hand.seed


@pytest.mark.parametrize("route", ROUTES)
def test_anonymous_is_sent_to_sign_in(world, client, route):
    url = reverse(route, args=[world.hand.pk])
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith(reverse("accounts:login"))
    assert url in response["Location"]


@pytest.mark.parametrize("route", ROUTES + ("replays:share_create",))
def test_forged_ids_are_404(world, client, route):
    client.force_login(world.owner)
    method = client.post if route == "replays:share_create" else client.get
    assert method(reverse(route, args=[world.hand.pk + 1000])).status_code == 404
    assert method(f"/replays/hands/{world.hand.pk}x/").status_code == 404


def test_an_admin_of_another_club_sees_none_of_its_hands(world, client, make_user, monkeypatch):
    """A second club with its own ended hand: each admin sees his own club's replay only."""
    client.force_login(world.other_admin)
    assert client.get(reverse("replays:hand", args=[world.hand.pk])).status_code == 404
    assert client.get(reverse("replays:table_hands", args=[world.table.pk])).status_code == 404
    client.force_login(world.admin)
    assert client.get(reverse("replays:hand", args=[world.hand.pk])).status_code == 200


def test_a_hand_in_play_is_never_replayable(world, client):
    playing = deal_next(world)
    assert playing.status == "playing" and playing.seed == ""
    for role in ALLOWED:
        client.force_login(user_of(world, role))
        for route in ROUTES:
            assert client.get(reverse(route, args=[playing.pk])).status_code == 404, (role, route)
        # Share codes cannot be made for it...
        assert client.post(reverse("replays:share_create", args=[playing.pk]), {"expiry": "7d"}).status_code == 404
        # ...nor reached by its number from the table page...
        assert client.get(reverse("replays:table_hand", args=[world.table.pk, playing.number])).status_code == 404
        # ...nor listed on the table's hands page (only the ended one is).
        page = client.get(reverse("replays:table_hands", args=[world.table.pk]))
        assert page.status_code == 200
        assert reverse("replays:hand", args=[playing.pk]) not in page.content.decode()
        assert reverse("replays:hand", args=[world.hand.pk]) in page.content.decode()
    assert not ShareCode.objects.filter(hand=playing).exists()
    # A code row planted in the database for it does not open it either.
    planted = ShareCode.objects.create(hand=playing, code="ABCDEFGHJK", created_by=world.players[0])
    client.force_login(world.outsider)
    response = client.get(reverse("replays:share_open", args=[planted.code]))
    assert response.status_code == 404
    assert playing.seed_hash not in response.content.decode()
    # The session export holds only the ended hand.
    client.force_login(world.owner)
    doc = json.loads(client.get(reverse("replays:table_export", args=[world.table.pk])).content)
    assert [h["number"] for h in doc["hands"]] == [world.hand.number]


def test_the_table_hands_page_for_every_role(world, client):
    url = reverse("replays:table_hands", args=[world.table.pk])
    for role in ALLOWED:
        client.force_login(user_of(world, role))
        assert client.get(url).status_code == 200, role
    for role in DENIED:
        client.force_login(user_of(world, role))
        assert client.get(url).status_code == 404, role
    client.logout()
    assert client.get(url).status_code == 302
    client.force_login(world.owner)
    assert client.get(reverse("replays:table_hands", args=[world.table.pk + 1000])).status_code == 404


def test_the_table_page_number_route_redirects_to_the_replay(world, client):
    client.force_login(world.players[1])
    response = client.get(reverse("replays:table_hand", args=[world.table.pk, world.hand.number]))
    assert response.status_code == 302 and response["Location"] == reverse("replays:hand", args=[world.hand.pk])
    client.force_login(world.member)
    assert client.get(reverse("replays:table_hand", args=[world.table.pk, world.hand.number])).status_code == 404


@pytest.mark.parametrize("role,logged", [("admin", True), ("owner", True), ("staff", True), ("p0", False),
                                         ("p2", False)])
def test_views_by_managers_and_staff_are_in_the_club_audit_log(world, client, role, logged):
    user = user_of(world, role)
    client.force_login(user)
    assert client.get(reverse("replays:hand", args=[world.hand.pk])).status_code == 200
    assert client.get(reverse("replays:export", args=[world.hand.pk])).status_code == 200
    entries = AuditLog.objects.filter(club=world.club, action=VIEW_ACTION, actor=user)
    if not logged:
        assert not entries.exists()
        return
    assert [e.detail["route"] for e in entries.order_by("id")] == ["page", "export"]
    assert all(e.detail["hand"] == world.hand.pk for e in entries)
    # The audit log page names the action in Chinese.
    client.force_login(world.owner)
    page = client.get(reverse("clubs:audit", args=[world.club.pk])).content.decode()
    assert "查看了回放" in page


def test_a_session_export_by_an_admin_is_audited_and_a_players_is_not(world, client):
    url = reverse("replays:table_export", args=[world.table.pk])
    client.force_login(world.players[0])
    assert client.get(url).status_code == 200
    assert not AuditLog.objects.filter(action=VIEW_ACTION).exists()
    client.force_login(world.admin)
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Disposition"].startswith("attachment;")
    (entry,) = AuditLog.objects.filter(action=VIEW_ACTION, actor=world.admin)
    assert entry.detail == {"table": world.table.pk, "table_name": world.table.name, "route": "session_export",
                            "as": "manager"}


def test_a_player_who_is_also_an_admin_is_not_audited(world, client):
    from apps.clubs.models import Membership, Role

    Membership.objects.filter(club=world.club, user=world.players[1]).update(role=Role.ADMIN)
    client.force_login(world.players[1])
    assert client.get(reverse("replays:hand", args=[world.hand.pk])).status_code == 200
    assert not AuditLog.objects.filter(action=VIEW_ACTION).exists()


def test_a_dissolved_hand_is_replayable(world, client):
    from apps.tables.verbs import dissolve

    playing = deal_next(world)
    dissolve.table_force_dissolve(user=world.owner, table_id=world.table.pk)
    playing.refresh_from_db()
    assert playing.status == "dissolved" and playing.seed
    client.force_login(world.players[0])
    page = client.get(reverse("replays:hand", args=[playing.pk]))
    assert page.status_code == 200
    assert Hand.objects.get(pk=playing.pk).seed in page.content.decode()
