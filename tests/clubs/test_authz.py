"""Every club view against every kind of visitor (permission matrix in apps/clubs/selectors.py).

Expected codes: 200 page, 302 done (redirect), 403 role too low, 404 club/object not visible,
"login" = redirect to the sign-in page.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.clubs.models import Ban, Invite, JoinRequest, JoinStatus, Membership, Role, RuleTemplate
from tests.view_matrix import check_response, client_for, matrix_cases

ROLES = ["anonymous", "outsider", "member", "admin", "owner", "staff"]


def _expect(anonymous, outsider, member, admin, owner, staff):
    return dict(zip(ROLES, [anonymous, outsider, member, admin, owner, staff], strict=True))


# (name, method, url builder, post data, expectations by role)
VIEWS = [
    (
        "detail",
        "get",
        lambda w: reverse("clubs:detail", args=[w.club.pk]),
        None,
        _expect("login", 404, 200, 200, 200, 200),
    ),
    (
        "audit",
        "get",
        lambda w: reverse("clubs:audit", args=[w.club.pk]),
        None,
        _expect("login", 404, 403, 200, 200, 200),
    ),
    (
        "invites",
        "get",
        lambda w: reverse("clubs:invites", args=[w.club.pk]),
        None,
        _expect("login", 404, 403, 200, 200, 403),
    ),
    (
        "invite_create",
        "post",
        lambda w: reverse("clubs:invites", args=[w.club.pk]),
        {"valid_hours": "24"},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "invite_revoke",
        "post",
        lambda w: reverse("clubs:invite_revoke", args=[w.club.pk, w.invite.pk]),
        {},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "requests",
        "get",
        lambda w: reverse("clubs:requests", args=[w.club.pk]),
        None,
        _expect("login", 404, 403, 200, 200, 403),
    ),
    (
        "request_approve",
        "post",
        lambda w: reverse("clubs:request_approve", args=[w.club.pk, w.join_request.pk]),
        {},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "request_reject",
        "post",
        lambda w: reverse("clubs:request_reject", args=[w.club.pk, w.join_request.pk]),
        {},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "remove_member",
        "post",
        lambda w: reverse("clubs:member_remove", args=[w.club.pk, w.target.pk]),
        {},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "ban_member",
        "post",
        lambda w: reverse("clubs:member_ban", args=[w.club.pk, w.target.pk]),
        {},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "remove_admin",
        "post",
        lambda w: reverse("clubs:member_remove", args=[w.club.pk, w.admin.pk]),
        {},
        _expect("login", 404, 403, 403, 302, 403),
    ),
    (
        "ban_admin",
        "post",
        lambda w: reverse("clubs:member_ban", args=[w.club.pk, w.admin.pk]),
        {},
        _expect("login", 404, 403, 403, 302, 403),
    ),
    (
        "remove_owner",
        "post",
        lambda w: reverse("clubs:member_remove", args=[w.club.pk, w.owner.pk]),
        {},
        _expect("login", 404, 403, 403, 403, 403),
    ),
    (
        "promote",
        "post",
        lambda w: reverse("clubs:member_role", args=[w.club.pk, w.target.pk]),
        {"role": "admin"},
        _expect("login", 404, 403, 403, 302, 403),
    ),
    (
        "demote",
        "post",
        lambda w: reverse("clubs:member_role", args=[w.club.pk, w.admin.pk]),
        {"role": "member"},
        _expect("login", 404, 403, 403, 302, 403),
    ),
    (
        "transfer",
        "post",
        lambda w: reverse("clubs:member_transfer", args=[w.club.pk, w.target.pk]),
        {},
        _expect("login", 404, 403, 403, 302, 403),
    ),
    (
        "unban",
        "post",
        lambda w: reverse("clubs:member_unban", args=[w.club.pk, w.banned.pk]),
        {},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "template_new",
        "get",
        lambda w: reverse("clubs:template_create", args=[w.club.pk]),
        None,
        _expect("login", 404, 403, 200, 200, 403),
    ),
    (
        "template_create",
        "post",
        lambda w: reverse("clubs:template_create", args=[w.club.pk]),
        {
            "name": "new",
            "preset": "basic",
            "players": "3",
            "base_score": "1",
            "hands_per_session": "4",
            "turn_seconds": "10",
            "piao_choices": "",
            "options": "",
        },
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "template_edit",
        "get",
        lambda w: reverse("clubs:template_edit", args=[w.club.pk, w.template.pk]),
        None,
        _expect("login", 404, 403, 200, 200, 403),
    ),
    (
        "template_delete",
        "post",
        lambda w: reverse("clubs:template_delete", args=[w.club.pk, w.template.pk]),
        {},
        _expect("login", 404, 403, 302, 302, 403),
    ),
    (
        "leave",
        "post",
        lambda w: reverse("clubs:leave", args=[w.club.pk]),
        {},
        _expect("login", 404, 302, 302, 302, 403),
    ),
]


CASES = matrix_cases(VIEWS, ROLES)


@pytest.mark.parametrize(("name", "method", "url", "data", "role", "expected"), CASES)
def test_view_matrix(client, world, name, method, url, data, role, expected):
    client = client_for(client, world, role)
    response = getattr(client, method)(url(world), data or {})
    check_response(response, expected)


STATE = {
    "invite_create": lambda w: Invite.objects.filter(club=w.club).count() == 2,
    "invite_revoke": lambda w: Invite.objects.get(pk=w.invite.pk).revoked_at is not None,
    "request_approve": lambda w: Membership.objects.filter(club=w.club, user=w.applicant).exists(),
    "request_reject": lambda w: JoinRequest.objects.get(pk=w.join_request.pk).status == JoinStatus.REJECTED,
    "remove_member": lambda w: not Membership.objects.filter(club=w.club, user=w.target).exists(),
    "ban_member": lambda w: Ban.objects.filter(club=w.club, user=w.target).exists(),
    "remove_admin": lambda w: not Membership.objects.filter(club=w.club, user=w.admin).exists(),
    "ban_admin": lambda w: Ban.objects.filter(club=w.club, user=w.admin).exists(),
    "remove_owner": lambda w: not Membership.objects.filter(club=w.club, user=w.owner).exists(),
    "promote": lambda w: Membership.objects.get(club=w.club, user=w.target).role == Role.ADMIN,
    "demote": lambda w: Membership.objects.get(club=w.club, user=w.admin).role == Role.MEMBER,
    "transfer": lambda w: Membership.objects.get(club=w.club, user=w.target).role == Role.OWNER,
    "unban": lambda w: not Ban.objects.filter(club=w.club, user=w.banned).exists(),
    "template_create": lambda w: RuleTemplate.objects.filter(club=w.club, name="new").exists(),
    "template_delete": lambda w: not RuleTemplate.objects.filter(pk=w.template.pk).exists(),
}

STATE_CASES = [
    pytest.param(name, url, data, role, expected[role] == 302, id=f"{name}-{role}")
    for name, method, url, data, expected in VIEWS
    if method == "post" and name in STATE
    for role in ROLES
]


@pytest.mark.parametrize(("name", "url", "data", "role", "allowed"), STATE_CASES)
def test_state_changes_only_when_allowed(client, world, name, url, data, role, allowed):
    client = client_for(client, world, role)
    client.post(url(world), data or {})
    assert STATE[name](world) is allowed


# Form pages (invites, template_create) show their form on GET; every other POST view refuses GET.
@pytest.mark.parametrize(
    "name", [v[0] for v in VIEWS if v[1] == "post" and v[0] not in ("invite_create", "template_create")]
)
def test_state_changing_views_refuse_get(client, world, name):
    url = next(v[2] for v in VIEWS if v[0] == name)
    client.force_login(world.owner)
    assert client.get(url(world)).status_code == 405


def test_post_without_csrf_token_is_refused(world):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(world.owner)
    response = client.post(reverse("clubs:member_remove", args=[world.club.pk, world.target.pk]))
    assert response.status_code == 403
    assert Membership.objects.filter(club=world.club, user=world.target).exists()


def test_leave_refused_for_owner(client, world):
    client.force_login(world.owner)
    client.post(reverse("clubs:leave", args=[world.club.pk]))
    assert Membership.objects.filter(club=world.club, user=world.owner, role=Role.OWNER).exists()


# --- forged ids and other clubs' objects ----------------------------------------------------

FORGED = [
    ("invite_revoke", lambda w: reverse("clubs:invite_revoke", args=[w.club.pk, w.other_invite.pk])),
    ("request_approve", lambda w: reverse("clubs:request_approve", args=[w.club.pk, w.other_request.pk])),
    ("request_reject", lambda w: reverse("clubs:request_reject", args=[w.club.pk, w.other_request.pk])),
    ("member_remove", lambda w: reverse("clubs:member_remove", args=[w.club.pk, w.other_member.pk])),
    ("member_ban", lambda w: reverse("clubs:member_ban", args=[w.club.pk, w.other_member.pk])),
    ("member_role", lambda w: reverse("clubs:member_role", args=[w.club.pk, w.other_member.pk])),
    ("member_transfer", lambda w: reverse("clubs:member_transfer", args=[w.club.pk, w.other_member.pk])),
    ("member_unban", lambda w: reverse("clubs:member_unban", args=[w.club.pk, w.other_member.pk])),
    ("template_delete", lambda w: reverse("clubs:template_delete", args=[w.club.pk, w.other_template.pk])),
    ("request_missing", lambda w: reverse("clubs:request_approve", args=[w.club.pk, 999999])),
    ("member_missing", lambda w: reverse("clubs:member_remove", args=[w.club.pk, 999999])),
]


@pytest.mark.parametrize(("name", "url"), FORGED, ids=[f[0] for f in FORGED])
def test_objects_of_another_club_are_not_found(client, world, name, url):
    client.force_login(world.owner)
    assert client.post(url(world), {"role": "admin"}).status_code == 404
    assert Invite.objects.get(pk=world.other_invite.pk).revoked_at is None
    assert JoinRequest.objects.get(pk=world.other_request.pk).status == JoinStatus.PENDING
    assert Membership.objects.get(club=world.other_club, user=world.other_member).role == Role.MEMBER
    assert RuleTemplate.objects.filter(pk=world.other_template.pk).exists()


def test_template_edit_of_another_club_is_not_found(client, world):
    client.force_login(world.owner)
    url = reverse("clubs:template_edit", args=[world.club.pk, world.other_template.pk])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("view", ["detail", "audit", "invites", "requests", "template_create"])
def test_unknown_club_is_404(client, world, view):
    client.force_login(world.owner)
    assert client.get(reverse(f"clubs:{view}", args=[999999])).status_code == 404


def test_other_club_page_is_404_for_owner_of_this_club(client, world):
    client.force_login(world.owner)
    response = client.get(reverse("clubs:detail", args=[world.other_club.pk]))
    assert response.status_code == 404
    assert world.other_club.name.encode() not in response.content


def test_admin_cannot_act_on_other_club_via_its_own_url(client, world):
    client.force_login(world.admin)
    url = reverse("clubs:request_approve", args=[world.other_club.pk, world.other_request.pk])
    assert client.post(url).status_code == 404
    assert JoinRequest.objects.get(pk=world.other_request.pk).status == JoinStatus.PENDING


# --- what the pages show ----------------------------------------------------------------------


def test_member_sees_no_management_controls(client, world):
    client.force_login(world.member)
    html = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert world.target.name in html
    assert reverse("clubs:member_ban", args=[world.club.pk, world.target.pk]) not in html
    assert reverse("clubs:audit", args=[world.club.pk]) not in html
    assert reverse("clubs:template_create", args=[world.club.pk]) not in html
    assert 'id="tables"' in html


def test_admin_sees_member_controls_but_not_admin_controls(client, world):
    client.force_login(world.admin)
    html = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert reverse("clubs:member_ban", args=[world.club.pk, world.target.pk]) in html
    assert reverse("clubs:member_ban", args=[world.club.pk, world.owner.pk]) not in html
    assert reverse("clubs:member_role", args=[world.club.pk, world.target.pk]) not in html
    assert reverse("clubs:audit", args=[world.club.pk]) in html


def test_owner_sees_role_and_transfer_controls(client, world):
    client.force_login(world.owner)
    html = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert reverse("clubs:member_role", args=[world.club.pk, world.admin.pk]) in html
    assert reverse("clubs:member_transfer", args=[world.club.pk, world.target.pk]) in html
    assert reverse("clubs:member_ban", args=[world.club.pk, world.admin.pk]) in html


def test_audit_log_lists_actions_in_chinese_and_english(client, world):
    client.force_login(world.admin)
    client.post(reverse("clubs:request_approve", args=[world.club.pk, world.join_request.pk]))
    html = client.get(reverse("clubs:audit", args=[world.club.pk])).content.decode()
    assert "通过了入群申请" in html and world.applicant.name in html
    html = client.get(
        reverse("clubs:audit", args=[world.club.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "approved a join request" in html
