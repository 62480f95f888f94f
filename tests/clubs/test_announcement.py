"""Issue #47: the club's 公告. The owner or an admin writes it (plain text, at most 200 characters,
escaped); members see it on the club page, and once as a toast on their next visit after a change."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from apps.clubs import services
from apps.clubs.models import AuditAction, AuditLog, Club, Membership

pytestmark = pytest.mark.django_db

TOAST = 'id="announcement-toast"'


def _page(client, user, club) -> str:
    client.force_login(user)
    response = client.get(reverse("clubs:detail", args=[club.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_owner_writes_it_members_see_it_once_as_a_toast(client, world):
    club = world.club
    client.force_login(world.owner)
    response = client.post(reverse("clubs:announcement", args=[club.pk]), {"announcement": " 今晚八点开赛，准时到！ "})
    assert response.status_code == 302
    club.refresh_from_db()
    assert club.announcement == "今晚八点开赛，准时到！" and club.announcement_rev == 1
    assert AuditLog.objects.filter(club=club, action=AuditAction.ANNOUNCEMENT_SET).count() == 1

    assert TOAST not in _page(client, world.owner, club)  # the writer has seen his own words
    first = _page(client, world.member, club)
    assert TOAST in first and "今晚八点开赛，准时到！" in first
    again = _page(client, world.member, club)
    assert TOAST not in again and "今晚八点开赛，准时到！" in again  # still on the page, no toast
    assert TOAST in _page(client, world.admin, club)  # each member once

    services.announcement_set(club=club, by=world.admin, text="改到九点")  # a change: once more
    assert TOAST in _page(client, world.member, club)
    assert TOAST not in _page(client, world.member, club)
    services.announcement_set(club=club, by=world.admin, text="改到九点")  # the same words: no new toast
    assert Club.objects.get(pk=club.pk).announcement_rev == 2


def test_it_is_escaped_plain_text(client, world):
    services.announcement_set(club=world.club, by=world.owner, text='<script>alert(1)</script>\n第二行')
    html = _page(client, world.member, world.club)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;<br>第二行" in html


def test_too_long_is_refused_and_nothing_changes(client, world):
    services.announcement_set(club=world.club, by=world.owner, text="旧公告")
    with pytest.raises(ValidationError):
        services.announcement_set(club=world.club, by=world.owner, text="长" * 201)
    client.force_login(world.owner)
    response = client.post(reverse("clubs:announcement", args=[world.club.pk]), {"announcement": "长" * 201},
                           follow=True)
    assert "公告最多 200 个字。" in response.content.decode()
    club = Club.objects.get(pk=world.club.pk)
    assert club.announcement == "旧公告" and club.announcement_rev == 1
    services.announcement_set(club=world.club, by=world.owner, text="长" * 200)  # the limit itself is fine


@pytest.mark.parametrize("who, status", [("member", 403), ("outsider", 404), ("other_owner", 404),
                                         ("staff", 403)])
def test_only_the_owner_and_admins_may_write_it(client, world, who, status):
    client.force_login(getattr(world, who))
    response = client.post(reverse("clubs:announcement", args=[world.club.pk]), {"announcement": "我说了算"})
    assert response.status_code == status
    assert Club.objects.get(pk=world.club.pk).announcement == ""
    with pytest.raises(PermissionDenied):
        services.announcement_set(club=world.club, by=getattr(world, who), text="我说了算")


def test_another_club_owner_cannot_write_through_a_forged_id(client, world):
    client.force_login(world.other_owner)
    assert client.post(reverse("clubs:announcement", args=[world.club.pk]),
                       {"announcement": "x"}).status_code == 404
    assert client.get(reverse("clubs:announcement", args=[world.other_club.pk])).status_code == 405
    assert Club.objects.get(pk=world.club.pk).announcement_rev == 0


def test_the_audit_log_says_it_in_words(client, world):
    services.announcement_set(club=world.club, by=world.owner, text="欢迎新朋友")
    services.announcement_set(club=world.club, by=world.owner, text="")
    client.force_login(world.owner)
    html = client.get(reverse("clubs:audit", args=[world.club.pk])).content.decode()
    assert "把公告改为" in html and "欢迎新朋友" in html and "删除了公告" in html
    assert Membership.objects.get(club=world.club, user=world.owner).announcement_seen == 2
