"""Every match view against every kind of visitor (as tests/clubs/test_authz.py does).

Expected: 200 page, 302 done (redirect), 403 role too low, 404 not visible, "login" = sign in.
"other_admin" is an admin of another club: this club's matches do not exist for him.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.clubs.models import AuditLog
from apps.matches.models import Entrant, Match, MatchState, NeverTogether
from tests.matches.world import ROLES, form_data
from tests.view_matrix import check_response, client_for, matrix_cases


def _expect(anonymous, outsider, member, admin, owner, staff, other_admin):
    return dict(zip(ROLES, [anonymous, outsider, member, admin, owner, staff, other_admin], strict=True))


PAGE = _expect("login", 404, 200, 200, 200, 200, 404)
MANAGE_PAGE = _expect("login", 404, 403, 200, 200, 403, 404)
MANAGE_POST = _expect("login", 404, 403, 302, 302, 403, 404)
PLAY_POST = _expect("login", 404, 302, 302, 302, 403, 404)

VIEWS = [
    ("list", "get", lambda w: reverse("matches:list", args=[w.club.pk]), None, PAGE),
    ("mine", "get", lambda w: reverse("matches:mine"), None, _expect("login", 200, 200, 200, 200, 200, 200)),
    ("detail", "get", lambda w: reverse("matches:detail", args=[w.match.pk]), None, PAGE),
    ("standings", "get", lambda w: reverse("matches:standings", args=[w.match.pk]), None, PAGE),
    ("create_form", "get", lambda w: reverse("matches:create", args=[w.club.pk]), None, MANAGE_PAGE),
    ("create", "post", lambda w: reverse("matches:create", args=[w.club.pk]), lambda w: form_data(w.template),
     MANAGE_POST),
    ("edit_form", "get", lambda w: reverse("matches:edit", args=[w.draft.pk]), None, MANAGE_PAGE),
    ("edit", "post", lambda w: reverse("matches:edit", args=[w.draft.pk]),
     lambda w: form_data(w.template, name="改过的名字", format="knockout",
                         starts_at=timezone.localtime(w.draft.starts_at).strftime("%Y-%m-%dT%H:%M"),
                         registration_opens_at=timezone.localtime(w.draft.registration_opens_at)
                         .strftime("%Y-%m-%dT%H:%M")),
     MANAGE_POST),
    ("register", "post", lambda w: reverse("matches:register", args=[w.match.pk]), None, PLAY_POST),
    ("withdraw", "post", lambda w: reverse("matches:withdraw", args=[w.match.pk]), None, PLAY_POST),
    ("check_in", "post", lambda w: reverse("matches:check_in", args=[w.match.pk]), None, PLAY_POST),
    ("console", "get", lambda w: reverse("matches:console", args=[w.match.pk]), None, MANAGE_PAGE),
    ("pause", "post", lambda w: reverse("matches:pause", args=[w.match.pk]), None, MANAGE_POST),
    ("resume", "post", lambda w: reverse("matches:resume", args=[w.match.pk]), None, MANAGE_POST),
    ("reseat", "post", lambda w: reverse("matches:reseat", args=[w.match.pk]),
     lambda w: {"user": w.member.pk, "table_number": 1}, MANAGE_POST),
    ("cancel", "post", lambda w: reverse("matches:cancel", args=[w.match.pk]), lambda w: {"reason": "下雨了"},
     MANAGE_POST),
    ("never_add", "post", lambda w: reverse("matches:never_add", args=[w.match.pk]),
     lambda w: {"user_a": w.member.pk, "user_b": w.member2.pk}, MANAGE_POST),
]


CASES = matrix_cases(VIEWS, ROLES)


@pytest.mark.parametrize(("name", "method", "url", "data", "role", "expected"), CASES)
def test_view_matrix(client, world, name, method, url, data, role, expected):
    client = client_for(client, world, role)
    response = getattr(client, method)(url(world), data(world) if data else {})
    check_response(response, expected)


STATE = {
    "create": lambda w: Match.objects.filter(club=w.club, name="新比赛").exists(),
    "edit": lambda w: Match.objects.get(pk=w.draft.pk).name == "改过的名字",
    "register": lambda w: Entrant.objects.filter(match=w.match).exists(),
    "cancel": lambda w: Match.objects.get(pk=w.match.pk).state == MatchState.CANCELLED,
    "never_add": lambda w: NeverTogether.objects.filter(club=w.club).exists(),
}


@pytest.mark.parametrize(
    ("name", "role"),
    [pytest.param(n, r, id=f"{n}-{r}") for n in STATE for r in ROLES],
)
def test_state_changes_only_when_allowed(client, world, name, role):
    view = next(v for v in VIEWS if v[0] == name)
    _n, _m, url, data, expected = view
    client = client_for(client, world, role)
    client.post(url(world), data(world) if data else {})
    assert STATE[name](world) is (expected[role] == 302)


@pytest.mark.parametrize("name", [v[0] for v in VIEWS if v[1] == "post" and v[0] not in ("create", "edit")])
def test_post_views_refuse_get(client, world, name):
    url = next(v[2] for v in VIEWS if v[0] == name)
    client.force_login(world.owner)
    assert client.get(url(world)).status_code == 405


def test_post_without_csrf_token_is_refused(world):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(world.owner)
    response = client.post(reverse("matches:cancel", args=[world.match.pk]), {"reason": "x"})
    assert response.status_code == 403
    assert Match.objects.get(pk=world.match.pk).state == MatchState.REGISTERING


# --- forged ids and other clubs' objects -------------------------------------------------------------


@pytest.mark.parametrize("name", [v[0] for v in VIEWS if "match_pk" not in v[0] and v[0] not in ("mine",)])
def test_unknown_ids_are_404(client, world, name):
    _n, method, url, data, _e = next(v for v in VIEWS if v[0] == name)
    client.force_login(world.owner)
    path = url(world)
    for real in (world.match.pk, world.draft.pk, world.club.pk):
        path = path.replace(f"/{real}/", "/999999/")
    response = getattr(client, method)(path, data(world) if data else {})
    assert response.status_code == 404


@pytest.mark.parametrize(
    "name", ["detail", "standings", "console", "register", "cancel", "pause", "never_add", "edit_form"]
)
def test_other_clubs_match_is_404_for_this_clubs_owner(client, world, name):
    _n, method, url, data, _e = next(v for v in VIEWS if v[0] == name)
    client.force_login(world.owner)
    path = url(world).replace(f"/{world.match.pk}/", f"/{world.other_match.pk}/").replace(
        f"/{world.draft.pk}/", f"/{world.other_match.pk}/")
    response = getattr(client, method)(path, data(world) if data else {})
    assert response.status_code == 404
    other = Match.objects.get(pk=world.other_match.pk)
    assert other.state == MatchState.REGISTERING
    assert not Entrant.objects.filter(match=other).exists()
    assert not NeverTogether.objects.exists()


def test_other_club_admin_cannot_see_or_cancel(client, world):
    client.force_login(world.other_admin)
    response = client.get(reverse("matches:detail", args=[world.match.pk]))
    assert response.status_code == 404
    assert world.match.name.encode() not in response.content
    client.post(reverse("matches:cancel", args=[world.match.pk]), {"reason": "hack"})
    assert Match.objects.get(pk=world.match.pk).state == MatchState.REGISTERING


def test_create_with_another_clubs_template_is_a_form_error(client, world):
    client.force_login(world.owner)
    response = client.post(reverse("matches:create", args=[world.club.pk]), form_data(world.other_template))
    assert response.status_code == 200
    assert "选择本俱乐部的规则模板" in response.content.decode()
    assert not Match.objects.filter(name="新比赛").exists()


def test_never_together_with_another_clubs_member_is_404(client, world):
    client.force_login(world.owner)
    url = reverse("matches:never_add", args=[world.match.pk])
    assert client.post(url, {"user_a": world.member.pk, "user_b": world.other_member.pk}).status_code == 404
    assert client.post(url, {"user_a": world.member.pk, "user_b": "abc"}).status_code == 404
    assert not NeverTogether.objects.exists()


def test_never_together_remove_of_another_club_is_404(client, world):
    from apps.matches import services

    pair = services.never_together_add(club=world.other_club, by=world.other_admin, user_a=world.other_admin,
                                       user_b=world.other_member)
    client.force_login(world.owner)
    url = reverse("matches:never_remove", args=[world.match.pk, pair.pk])
    assert client.post(url).status_code == 404
    assert NeverTogether.objects.filter(pk=pair.pk).exists()


def test_reseat_with_a_forged_user_is_404(client, world):
    client.force_login(world.owner)
    url = reverse("matches:reseat", args=[world.match.pk])
    assert client.post(url, {"user": world.other_member.pk, "table_number": 1}).status_code == 404
    assert client.post(url, {"user": 999999, "table_number": 1}).status_code == 404
    assert not AuditLog.objects.filter(club=world.club, action="match.reseat").exists()


def test_staff_sees_the_match_but_cannot_register(client, world):
    client.force_login(world.staff)
    assert client.get(reverse("matches:detail", args=[world.match.pk])).status_code == 200
    assert client.post(reverse("matches:register", args=[world.match.pk])).status_code == 403
    assert not Entrant.objects.filter(match=world.match, user=world.staff).exists()


# --- the standings endpoint: a constant number of queries --------------------------------------------


def _running_match(n, make_user, make_club):
    from apps.matches import services
    from tests.matches.world import match_fields, template_for

    owner = make_user(f"own{n}")
    players = [make_user(f"p{n}_{i}", display_name=f"选手{i}") for i in range(n)]
    club = make_club(f"Q{n}", owner=owner, members=players)
    match = services.match_create(club=club, by=owner, **match_fields(template_for(club), entry_fee=0,
                                                                       max_entrants=100))
    for p in players:
        services.register(match=match, user=p)
    at = match.starts_at - timedelta(minutes=5)
    for p in players:
        services.check_in(match=match, user=p, now=at)
    services.start_due(now=match.starts_at + timedelta(seconds=1))
    match.refresh_from_db()
    assert match.state == MatchState.RUNNING
    return match, players


def _count(client, match):
    url = reverse("matches:standings", args=[match.pk])
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries), response.json()


def test_standings_endpoint_queries_do_not_grow_with_entrants(client, make_user, make_club):
    small, small_players = _running_match(9, make_user, make_club)
    big, big_players = _running_match(30, make_user, make_club)
    client.force_login(small_players[0])
    n_small, data_small = _count(client, small)
    client.force_login(big_players[0])
    n_big, data_big = _count(client, big)
    assert len(data_small["rows"]) == 9 and len(data_big["rows"]) == 30
    print(f"standings.json queries: 9 entrants {n_small}, 30 entrants {n_big}")
    assert n_small == n_big, (n_small, n_big)
    assert n_big <= 12
    # the viewer is seated: the poll tells him where
    assert data_big["me"]["table_url"] == reverse("tables:detail", args=[data_big["me"]["table_id"]])
    assert data_big["state"] == "running" and data_big["round"] == 1


def test_match_page_queries_do_not_grow_with_entrants(client, make_user, make_club):
    small, small_players = _running_match(9, make_user, make_club)
    big, big_players = _running_match(30, make_user, make_club)
    counts = []
    for match, players in ((small, small_players), (big, big_players)):
        client.force_login(players[0])
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("matches:detail", args=[match.pk])).status_code == 200
        counts.append(len(ctx.captured_queries))
    print(f"match page queries: 9 entrants {counts[0]}, 30 entrants {counts[1]}")
    assert counts[0] == counts[1], counts
