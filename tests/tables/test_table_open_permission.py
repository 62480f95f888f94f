"""Who may open a table (issue 24, the README's matrix "Who may do what in a club"): any member,
from one of the club's rule templates, a real or a practice table; the rules and fees are the
managers' (the templates). Staff who are not members only look (403); outsiders get 404."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.clubs.models import AuditAction, AuditLog, Membership, Role, RuleTemplate
from apps.tables.models import Table

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("practice", [False, True])
def test_a_plain_member_opens_a_table_from_a_template(client, club, players, template, practice):
    member = players[1]
    assert Membership.objects.get(club=club, user=member).role == Role.MEMBER
    client.force_login(member)
    data = {"template": template.pk, **({"practice": "1"} if practice else {})}
    response = client.post(reverse("tables:open", args=[club.pk]), data)
    table = Table.objects.get(club=club)
    assert response.status_code == 302 and response["Location"] == reverse("tables:detail", args=[table.pk])
    assert table.practice is practice and table.created_by == member and table.fee == template.fee
    assert table.seats.get(index=0).user == member
    assert AuditLog.objects.filter(club=club, action=AuditAction.TABLE_OPEN, actor=member).exists()


def test_staff_who_are_not_members_and_outsiders_open_nothing(client, club, template, make_user, make_club):
    staff = make_user(username="staff1", is_staff=True)
    client.force_login(staff)
    assert client.post(reverse("tables:open", args=[club.pk]), {"template": template.pk}).status_code == 403
    outsider = make_user(username="outsider")
    client.force_login(outsider)
    assert client.post(reverse("tables:open", args=[club.pk]), {"template": template.pk}).status_code == 404
    # A member of another club cannot use this club's template through his own club either.
    other = make_club(name="别的俱乐部", owner=outsider)
    assert client.post(reverse("tables:open", args=[other.pk]), {"template": template.pk}).status_code == 404
    assert not Table.objects.exists()
    assert RuleTemplate.objects.filter(club=club).count() == 1
