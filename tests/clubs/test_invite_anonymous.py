"""Issue 24: an invite link opened while signed out names the club and who invites, offers sign-up
or sign-in, and both come back to the invite, where the request is one tap; the invite's checks
(expired, revoked, used up, banned, already a member) hold for every visitor."""

from __future__ import annotations

import re
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User
from apps.clubs import services
from apps.clubs.models import Invite, JoinRequest, JoinStatus, Membership

PASSWORD = "Xk7-invite-pass"


def _links(html: str) -> dict[str, str]:
    return {m.group(2): m.group(1).replace("&amp;", "&") for m in
            re.finditer(r'<a class="btn[^"]*" href="([^"]+)">([^<]+)</a>', html)}


def test_anonymous_sees_club_and_inviter_and_both_ways_in(client, world):
    world.owner.display_name = "老王"
    world.owner.save()
    url = reverse("clubs:join", args=[world.invite.code.lower()])  # codes are read in any case
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200
    assert world.club.name in html and "老王 邀请你加入这个俱乐部" in html
    links = _links(html)
    target = reverse("clubs:join", args=[world.invite.code])  # the canonical (upper-case) link
    assert links["注册并加入"] == reverse("clubs:join_signup", args=[world.invite.code])  # one step (#46)
    assert links["已有账号，登录"] == f"{reverse('accounts:login')}?next={target}"
    assert 'id="id_password"' not in html  # not the bare login form of before
    assert not JoinRequest.objects.filter(club=world.club).exclude(pk=world.join_request.pk).exists()


def test_sign_up_from_an_invite_sends_the_request_in_the_same_step(client, world):
    """Issue #46: 注册并加入 makes the account and the join request at once (no second tap)."""
    url = reverse("clubs:join", args=[world.invite.code])
    signup = _links(client.get(url).content.decode())["注册并加入"]
    assert world.club.name in client.get(signup).content.decode()
    response = client.post(signup, {
        "username": "newbie", "display_name": "新人", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("clubs:list")
    newbie = User.objects.get(username="newbie")
    assert JoinRequest.objects.get(club=world.club, user=newbie).status == JoinStatus.PENDING
    assert not Membership.objects.filter(club=world.club, user=newbie).exists()  # an admin approves
    assert "等待" in client.get(url).content.decode()  # the invite now says the request is waiting


def test_sign_in_from_an_invite_comes_back(client, world, make_user):
    make_user("returning", password=PASSWORD)
    url = reverse("clubs:join", args=[world.invite.code])
    login = _links(client.get(url).content.decode())["已有账号，登录"]
    assert f'name="next" value="{url}"' in client.get(login).content.decode()
    response = client.post(reverse("accounts:login"), {"username": "returning", "password": PASSWORD, "next": url})
    assert response.status_code == 302 and response["Location"] == url
    assert "申请加入" in client.get(url).content.decode()
    # a member who follows the link again lands on the club
    client.force_login(world.member)
    assert client.get(url)["Location"] == reverse("clubs:detail", args=[world.club.pk])


def test_unusable_and_forged_codes_get_a_clear_page_for_everyone(client, world, make_user):
    world.club.name = "湘江俱乐部"
    world.club.save()
    expired = Invite.objects.create(club=world.club, code="OLDCODE1", created_by=world.owner,
                                    expires_at=timezone.now() - timedelta(hours=1))
    revoked = services.invite_create(club=world.club, by=world.owner)
    revoked.revoked_at = timezone.now()
    revoked.save()
    used_up = services.invite_create(club=world.club, by=world.owner, max_uses=1)
    used_up.uses = 1
    used_up.save()
    newcomer = make_user("late")
    for who in (None, newcomer):
        if who:
            client.force_login(who)
        for invite, words in ((expired, "已过期"), (revoked, "已被撤销"), (used_up, "使用次数已满")):
            page = client.get(reverse("clubs:join", args=[invite.code]))
            html = page.content.decode()
            assert page.status_code == 410 and words in html and world.club.name in html
            assert "申请加入" not in html and "注册并加入" not in html
            client.post(reverse("clubs:join", args=[invite.code]))
        forged = client.get(reverse("clubs:join", args=["FORGED99"]))
        assert forged.status_code == 404 and "邀请不存在" in forged.content.decode()
        assert world.club.name not in forged.content.decode()
    assert not JoinRequest.objects.filter(user=newcomer).exists()


def test_a_banned_user_following_the_signin_link_still_cannot_join(client, world):
    client.force_login(world.banned)
    url = reverse("clubs:join", args=[world.invite.code])
    assert client.get(url).status_code == 403
    client.post(url)
    assert not JoinRequest.objects.filter(user=world.banned).exists()
