"""Page flows: list/create, invite links for anonymous and signed-in users, template form errors."""

from __future__ import annotations

from django.urls import reverse

from apps.clubs.models import Club, JoinRequest, JoinStatus, Membership, RuleTemplate


def test_anonymous_list_and_create_redirect_to_login(client):
    for name in ("clubs:list", "clubs:create"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and response["Location"].startswith(reverse("accounts:login"))


def test_create_club_page(client, make_user):
    user = make_user()
    client.force_login(user)
    response = client.post(reverse("clubs:create"), {"name": "周末牌局"})
    club = Club.objects.get()
    assert response["Location"] == reverse("clubs:detail", args=[club.pk])
    assert Membership.objects.get(club=club).user == user
    html = client.get(reverse("clubs:list")).content.decode()
    assert "周末牌局" in html


def test_join_link_for_anonymous_shows_the_club_and_a_post_goes_to_login(client, world):
    url = reverse("clubs:join", args=[world.invite.code])
    page = client.get(url)
    assert page.status_code == 200 and world.club.name in page.content.decode()
    response = client.post(url)  # a stale form: nothing is requested, sign in first
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('accounts:login')}?next={url}"
    assert not JoinRequest.objects.filter(invite=world.invite).exclude(user=world.applicant).exists()


def test_join_link_request_and_outcome_on_my_page(client, world, make_user):
    newcomer = make_user("newcomer")
    client.force_login(newcomer)
    url = reverse("clubs:join", args=[world.invite.code])
    page = client.get(url)
    assert page.status_code == 200 and world.club.name in page.content.decode()
    assert client.post(url)["Location"] == reverse("clubs:list")
    assert JoinRequest.objects.filter(club=world.club, user=newcomer, status=JoinStatus.PENDING).exists()
    assert "待审核" in client.get(reverse("clubs:list")).content.decode()
    assert client.get(url).status_code == 200  # pending page, no second request
    client.post(url)
    assert JoinRequest.objects.filter(club=world.club, user=newcomer).count() == 1

    request = JoinRequest.objects.get(club=world.club, user=newcomer)
    client.force_login(world.admin)
    client.post(reverse("clubs:request_reject", args=[world.club.pk, request.pk]))
    client.force_login(newcomer)
    assert "已拒绝" in client.get(reverse("clubs:list")).content.decode()


def test_join_link_states(client, world, expired_invite):
    client.force_login(world.banned)
    assert client.get(reverse("clubs:join", args=[world.invite.code])).status_code == 403
    client.post(reverse("clubs:join", args=[world.invite.code]))
    assert not JoinRequest.objects.filter(user=world.banned).exists()
    client.force_login(world.outsider)
    assert client.get(reverse("clubs:join", args=[expired_invite.code])).status_code == 410
    assert client.get(reverse("clubs:join", args=["NOPE1234"])).status_code == 404
    client.force_login(world.member)
    assert client.get(reverse("clubs:join", args=[world.invite.code]))["Location"] == reverse(
        "clubs:detail", args=[world.club.pk]
    )


def test_template_form_shows_presets_and_engine_errors(client, world):
    client.force_login(world.owner)
    url = reverse("clubs:template_create", args=[world.club.pk])
    html = client.get(url).content.decode()
    for preset in ("basic", "full", "chenzhou", "luzhou"):
        assert f'value="{preset}"' in html
    data = {**TEMPLATE_FORM, "preset": "basic", "opt_basic_min_huxi": "abc"}
    response = client.post(url, data)
    assert response.status_code == 200 and "opt_basic_min_huxi" in response.context["form"].errors
    response = client.post(url, {**data, "opt_basic_min_huxi": "40"})
    assert response.status_code == 200 and "opt_basic_min_huxi" in response.context["form"].errors
    response = client.post(url, {**data, "opt_basic_min_huxi": "10", "piao_choices": ""})
    assert response.status_code == 302
    assert RuleTemplate.objects.get(club=world.club, name="x").options == {"min_huxi": 10}


def test_template_edit_prefills_and_saves(client, world):
    client.force_login(world.admin)
    url = reverse("clubs:template_edit", args=[world.club.pk, world.template.pk])
    assert world.template.name in client.get(url).content.decode()
    data = {
        "name": "改",
        "preset": "chenzhou",
        "players": "4",
        "base_score": "2",
        "hands_per_session": "6",
        "turn_seconds": "20",
        "piao_choices": "1，2",
        "options": "",
    }
    assert client.post(url, data).status_code == 302
    world.template.refresh_from_db()
    assert (world.template.players, world.template.piao_choices) == (4, [1, 2])


# The template form's fields, all valid.
TEMPLATE_FORM = {
    "name": "x",
    "preset": "full",
    "players": "3",
    "base_score": "1",
    "hands_per_session": "8",
    "turn_seconds": "15",
    "piao_choices": "",
    "options": "",
}
FEE_FORM = {**TEMPLATE_FORM, "name": "收桌费"}


def test_template_form_refuses_a_negative_fee_with_a_clear_message(client, world):
    client.force_login(world.owner)
    before = list(RuleTemplate.objects.values_list("pk", "fee"))
    url = reverse("clubs:template_create", args=[world.club.pk])
    response = client.post(url, {**FEE_FORM, "fee": "-2", "fee_payer": "each"})
    assert response.status_code == 200
    assert "桌费不能为负数" in response.content.decode()
    edit = reverse("clubs:template_edit", args=[world.club.pk, world.template.pk])
    response = client.post(edit, {**FEE_FORM, "name": world.template.name, "fee": "-1", "fee_payer": "winner"})
    assert response.status_code == 200 and "桌费不能为负数" in response.content.decode()
    assert list(RuleTemplate.objects.values_list("pk", "fee")) == before  # nothing created or changed
    world.template.refresh_from_db()
    assert world.template.fee_payer == "each"


def test_template_form_saves_the_fee_and_the_club_page_shows_it(client, world):
    client.force_login(world.admin)
    url = reverse("clubs:template_create", args=[world.club.pk])
    html = client.get(url).content.decode()
    assert "每局桌费" in html and "赢家付" in html and "每人每局" in html
    assert client.post(url, {**FEE_FORM, "fee": "2", "fee_payer": "winner"}).status_code == 302
    template = RuleTemplate.objects.get(club=world.club, name="收桌费")
    assert (template.fee, template.fee_payer) == (2, "winner")
    edit = client.get(reverse("clubs:template_edit", args=[world.club.pk, template.pk])).content.decode()
    assert 'name="fee" value="2"' in edit
    page = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert "桌费 2（赢家付）" in page
    assert "无桌费" in page  # world.template charges nothing


def test_template_form_without_fee_fields_means_no_fee(client, world):
    """Older forms and API callers that do not send the fee keep working: no fee."""
    client.force_login(world.owner)
    url = reverse("clubs:template_create", args=[world.club.pk])
    assert client.post(url, FEE_FORM).status_code == 302
    template = RuleTemplate.objects.get(club=world.club, name="收桌费")
    assert (template.fee, template.fee_payer) == (0, "each")
