"""Permissions of the ledger pages and adjustments: anonymous, outsider, member, admin, owner."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from apps.clubs.models import AuditLog, Membership
from apps.ledgers import services
from apps.ledgers.models import Account, Transaction

ROLES = ["outsider", "member", "admin", "owner"]


def url(name, club, **kw):
    return reverse(f"ledgers:{name}", kwargs={"club_id": club.pk, **kw})


@pytest.mark.parametrize("name", ["club", "mine", "adjust", "leaderboard"])
def test_anonymous_is_sent_to_login(client, people, name):
    response = client.get(url(name, people["club"]))
    assert response.status_code == 302 and "/login" in response["Location"]


@pytest.mark.parametrize(
    "name,expected",
    [
        ("club", {"outsider": 404, "member": 403, "admin": 200, "owner": 200}),
        ("mine", {"outsider": 404, "member": 200, "admin": 200, "owner": 200}),
        ("leaderboard", {"outsider": 404, "member": 200, "admin": 200, "owner": 200}),
        ("adjust", {"outsider": 404, "member": 403, "admin": 200, "owner": 200}),
    ],
)
def test_page_permissions(client, people, name, expected):
    for role in ROLES:
        client.force_login(people[role])
        assert client.get(url(name, people["club"])).status_code == expected[role], role


def test_other_members_history_is_for_managers(client, people):
    target = url("member", people["club"], user_id=people["other"].pk)
    for role, status in {"outsider": 404, "member": 403, "admin": 200, "owner": 200}.items():
        client.force_login(people[role])
        assert client.get(target).status_code == status, role
    client.force_login(people["member"])
    assert client.get(url("member", people["club"], user_id=people["member"].pk)).status_code == 200


def _post_adjust(client, people, **data):
    member = Membership.objects.get(club=people["club"], user=people["member"])
    payload = {"member": member.pk, "direction": "up", "amount": 30, "reason": "top-up", "token": "ab" * 12}
    payload.update(data)
    return client.post(url("adjust", people["club"]), payload)


@pytest.mark.parametrize("role,status,posted", [("outsider", 404, 0), ("member", 403, 0), ("admin", 302, 1),
                                                ("owner", 302, 1)])
def test_adjustment_permissions(client, people, role, status, posted):
    client.force_login(people[role])
    assert _post_adjust(client, people).status_code == status
    assert Transaction.objects.filter(kind="adjustment").count() == posted


def test_adjustment_moves_points_and_is_audited_once(client, people):
    client.force_login(people["admin"])
    _post_adjust(client, people)
    _post_adjust(client, people)  # the same form submitted twice: one posting
    _post_adjust(client, people, direction="down", amount=10, token="cd" * 12)
    member = Account.objects.get(club=people["club"], user=people["member"])
    house = Account.objects.get(club=people["club"], kind="club")
    assert (member.balance, house.balance) == (20, -20)
    logs = AuditLog.objects.filter(club=people["club"], action=services.ADJUSTMENT_AUDIT_ACTION)
    assert logs.count() == 2
    assert sorted(log.detail["amount"] for log in logs) == [-10, 30]
    assert all(log.actor == people["admin"] and log.target_user == people["member"] for log in logs)


def test_adjustment_needs_a_reason(client, people):
    client.force_login(people["owner"])
    assert _post_adjust(client, people, reason="").status_code == 200
    assert not Transaction.objects.exists()


def test_adjustment_service_refuses_members_and_outsiders(people):
    member = Membership.objects.get(club=people["club"], user=people["other"])
    for role in ("member", "outsider"):
        with pytest.raises(PermissionDenied):
            services.adjustment_create(club=people["club"], member=member, amount=5, reason="x", by=people[role])


def test_member_page_shows_history_with_links(client, people, make_finished_hand):
    hand = make_finished_hand()
    services.settle_hand(hand_id=hand.pk)
    client.force_login(people["member"])
    body = client.get(url("mine", people["club"])).content.decode()
    assert hand.table.name in body
    assert 'data-testid="balance"' in body


def test_club_ledger_filters_and_csv(client, people, make_finished_hand):
    services.settle_hand(hand_id=make_finished_hand().pk)
    member = Membership.objects.get(club=people["club"], user=people["member"])
    services.adjustment_create(club=people["club"], member=member, amount=7, reason="=gift", by=people["owner"])
    client.force_login(people["owner"])
    page = client.get(url("club", people["club"]), {"member": member.pk, "date_from": "2000-01-01"})
    assert page.status_code == 200
    assert len(page.context["rows"]) == 2  # the hand's score line (no "飘 0" line), the adjustment
    response = client.get(url("club", people["club"]), {"member": member.pk, "format": "csv"})
    assert response["Content-Type"].startswith("text/csv")
    rows = b"".join(response.streaming_content).decode().strip().splitlines()
    assert rows[0].startswith("time,transaction") and len(rows) == 3
    assert any(",'=gift" in r for r in rows)  # no formula injection into spreadsheets


def test_leaderboard_page_has_ranking_and_chart(client, people, make_finished_hand):
    table = None
    for _ in range(3):
        hand = make_finished_hand(table=table)
        table = hand.table
        services.settle_hand(hand_id=hand.pk)
    client.force_login(people["member"])
    response = client.get(url("leaderboard", people["club"]), {"period": "all"})
    body = response.content.decode()
    assert len(response.context["rows"]) == 3
    chart = response.context["chart"]
    assert len(chart["series"]) == 3 and len(chart["x"]) == 3 and 'id="points-chart"' in body
    assert all(len(s["values"]) == 3 for s in chart["series"])
    assert "uPlot.min.css" in body and "js/ledgers/chart.js" in body
