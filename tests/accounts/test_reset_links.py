"""One-time password links a club's owner makes for a member without a verified e-mail (issue
#41): made from the club's member list (apps.clubs.views_manage.member_reset_link), audit-logged,
shown once; the link sets that member's password once, expires, and lifts his sign-in lockouts."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from apps.accounts.models import PasswordResetLink, SignInLockout, token_hash
from apps.clubs.audit import _Names, sentence
from apps.clubs.models import AuditLog

PASSWORD = "Xk7-paohuzi-pass"
NEW_PASSWORD = "Fresh-paohuzi-77"



@pytest.fixture
def club(make_club, make_user):
    boss = make_user("boss", password=PASSWORD)
    deputy = make_user("deputy", password=PASSWORD)
    member = make_user("member", password=PASSWORD, display_name="小李")
    other = make_user("other", password=PASSWORD)
    return make_club("牌友会", owner=boss, admins=[deputy], members=[member, other])


def _user(club, username):
    return club.memberships.get(user__username=username).user


def _make_link(client, club, actor, target):
    client.force_login(_user(club, actor) if isinstance(actor, str) else actor)
    return client.post(reverse("clubs:member_reset_link", args=[club.pk, _user(club, target).pk]))


def _link_of(response) -> str:
    found = re.search(r'data-copy="https?://[^/"]+(/accounts/password/link/[^"]+/)"', response.content.decode())
    assert found, response.content.decode()
    return found.group(1)


def _set(client, link, password=NEW_PASSWORD, ip="10.4.0.1"):
    client.logout()
    opened = client.get(link, REMOTE_ADDR=ip)
    if opened.status_code != 302:
        return opened
    return client.post(opened["Location"], {"new_password1": password, "new_password2": password}, REMOTE_ADDR=ip)


def test_owner_makes_a_link_that_sets_the_members_password_once(client, club):
    member = _user(club, "member")
    # the member had locked himself out from his phone
    for _ in range(5):
        client.post(reverse("accounts:login"), {"username": "member", "password": "typo"}, REMOTE_ADDR="10.4.0.9")
    assert SignInLockout.objects.filter(ended_at=None).exists()

    page = _make_link(client, club, "boss", "member")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    html = page.content.decode()
    assert "复制链接" in html and "小李" in html
    link = _link_of(page)
    token = link.rstrip("/").rsplit("/", 1)[1]
    row = PasswordResetLink.objects.get()
    assert row.user == member and row.token_hash == token_hash(token) and token not in row.token_hash
    assert abs((row.expires_at - row.created_at) - timedelta(hours=24)) < timedelta(seconds=1)
    entry = AuditLog.objects.get(club=club, action="member.reset_link")
    assert entry.target_user == member and entry.actor.username == "boss"
    words = str(sentence(entry, _Names(club.pk, [entry])))
    assert "小李" in words and "boss" in words

    done = _set(client, link, ip="10.4.0.9")
    assert done.status_code == 302
    assert client.session["_auth_user_id"] == str(member.pk)  # signed in as that member
    member.refresh_from_db()
    assert member.check_password(NEW_PASSWORD)
    assert not SignInLockout.objects.filter(ended_at=None).exists()  # his lockouts are lifted
    client.logout()
    assert client.post(reverse("accounts:login"), {"username": "member", "password": NEW_PASSWORD},
                       REMOTE_ADDR="10.4.0.9").status_code == 302

    # the second use is refused
    again = _set(client, link, password="Again-paohuzi-88")
    assert again.status_code == 410 and "已失效" in again.content.decode()
    member.refresh_from_db()
    assert member.check_password(NEW_PASSWORD)


def test_the_link_is_for_that_member_only(client, club):
    link = _link_of(_make_link(client, club, "boss", "member"))
    _set(client, link)
    for name in ("boss", "deputy", "other"):
        assert _user(club, name).check_password(PASSWORD)


def test_the_link_expires(client, club, later):
    link = _link_of(_make_link(client, club, "boss", "member"))
    later(24 * 3600 + 1)
    assert _set(client, link).status_code == 410
    assert _user(club, "member").check_password(PASSWORD)


def test_a_new_link_ends_the_one_before(client, club):
    first = _link_of(_make_link(client, club, "boss", "member"))
    second = _link_of(_make_link(client, club, "boss", "member"))
    assert _set(client, first).status_code == 410
    assert _set(client, second).status_code == 302


def test_a_forged_token_is_refused(client, club):
    assert client.get(reverse("accounts:reset_link", args=["x" * 43])).status_code == 410
    assert client.get(reverse("accounts:reset_link_set")).status_code == 410


@pytest.mark.parametrize(("actor", "target"), [
    ("member", "other"),  # a plain member
    ("deputy", "boss"),  # an admin, for the owner
    ("deputy", "deputy"),  # himself
    ("boss", "boss"),
])
def test_who_may_not_make_one(client, club, actor, target):
    assert _make_link(client, club, actor, target).status_code == 403
    assert not PasswordResetLink.objects.exists() and not AuditLog.objects.filter(action="member.reset_link").exists()


def test_an_admin_may_for_a_plain_member_not_for_another_admin(client, club, make_user):
    from apps.clubs.models import Membership, Role

    second_admin = make_user("second_admin", password=PASSWORD)
    Membership.objects.create(club=club, user=second_admin, role=Role.ADMIN)
    assert _make_link(client, club, "deputy", "member").status_code == 200
    assert _make_link(client, club, "deputy", "second_admin").status_code == 403
    assert _make_link(client, club, "boss", "second_admin").status_code == 200  # the owner may


def test_never_for_a_staff_account(client, club, make_user):
    from apps.clubs.models import Membership, Role

    admin_account = make_user("site_admin", password=PASSWORD, is_staff=True, is_superuser=True)
    Membership.objects.create(club=club, user=admin_account, role=Role.MEMBER)
    assert _make_link(client, club, "boss", "site_admin").status_code == 403


def test_another_clubs_owner_cannot(client, club, make_club, make_user):
    stranger = make_user("stranger", password=PASSWORD)
    make_club("别的会", owner=stranger)
    client.force_login(stranger)
    answer = client.post(reverse("clubs:member_reset_link", args=[club.pk, _user(club, "member").pk]))
    assert answer.status_code == 404
    assert not PasswordResetLink.objects.exists()


def test_staff_may_for_a_member_and_the_owner(client, club, make_user):
    staff = make_user("helpdesk", password=PASSWORD, is_staff=True)
    assert _make_link(client, club, staff, "member").status_code == 200
    assert _make_link(client, club, staff, "boss").status_code == 200  # an owner without e-mail
    other_staff = make_user("helpdesk2", password=PASSWORD, is_staff=True)
    from apps.clubs.models import Membership, Role

    Membership.objects.create(club=club, user=other_staff, role=Role.MEMBER)
    assert _make_link(client, club, staff, "helpdesk2").status_code == 403  # a staff account: superuser only


def test_get_is_not_allowed_and_the_button_shows_for_the_owner_only(client, club):
    client.force_login(_user(club, "boss"))
    url = reverse("clubs:member_reset_link", args=[club.pk, _user(club, "member").pk])
    assert client.get(url).status_code == 405
    assert url in client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    client.force_login(_user(club, "other"))
    assert url not in client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
