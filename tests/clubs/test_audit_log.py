"""The audit log: every logged kind carries its details; filters by kind, member and date (issue 11)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.clubs.models import AuditLog, Membership, RuleTemplate

pytestmark = pytest.mark.django_db


@pytest.fixture
def club_world(make_club, make_user):
    owner, admin, member = make_user("laowang", display_name="老王"), make_user("xiaoli"), make_user("aming", display_name="阿明")
    club = make_club("牌友会", owner=owner, admins=[admin], members=[member])
    template = RuleTemplate.objects.create(club=club, name="三人全名堂", preset="full", options={}, players=3,
                                           base_score=1, hands_per_session=2, turn_seconds=15)
    return club, owner, admin, member, template


def _page(client, club, **params):
    return client.get(reverse("clubs:audit", args=[club.pk]), params).content.decode()


def test_adjustment_shows_amount_and_reason(client, club_world):
    from apps.ledgers.services import adjustment_create

    club, owner, admin, member, _ = club_world
    adjustment_create(club=club, member=Membership.objects.get(club=club, user=member), amount=-30,
                      reason="退还多充", by=owner)
    client.force_login(admin)
    html = _page(client, club)
    assert "<strong>老王</strong> 给 <strong>阿明</strong> 下分 <span class=\"minus\">30</span>。原因：退还多充" in html


def test_table_open_dissolve_and_force_dissolve_are_logged(client, club_world):
    from apps.tables.verbs import dissolve, services

    club, owner, admin, member, template = club_world
    first = services.table_open(user=member, template=template, name="晚场")
    dissolve.dissolve_vote(user=member, table_id=first.pk, vote=True)  # the creator, before the start
    second = services.table_open(user=member, template=template, name="夜场")
    dissolve.table_force_dissolve(user=admin, table_id=second.pk)
    kinds = list(AuditLog.objects.filter(club=club).values_list("action", "actor__username", "detail__table"))
    assert ("table.open", "aming", first.pk) in kinds and ("table.open", "aming", second.pk) in kinds
    assert ("table.dissolve", "aming", first.pk) in kinds
    assert ("table.force_dissolve", "xiaoli", second.pk) in kinds
    client.force_login(owner)
    html = _page(client, club)
    assert "开了一桌" in html and "强制解散了一桌" in html and "晚场" in html and "夜场" in html
    english = client.get(reverse("clubs:audit", args=[club.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "force-dissolved a table" in english and "opened a table" in english


def test_filters_by_kind_member_and_date(client, club_world):
    from apps.clubs import services as club_services

    club, owner, admin, member, _ = club_world
    club_services.audit_log(club=club, actor=admin, action="member.ban", target_user=member)
    old = club_services.audit_log(club=club, actor=owner, action="template.delete", detail={"template": "旧规则"})
    AuditLog.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=10))
    client.force_login(owner)
    by_kind = _page(client, club, action="template.delete")
    assert "旧规则" in by_kind and 'data-action="member.ban"' not in by_kind
    by_member = _page(client, club, member=member.pk)
    assert 'data-action="member.ban"' in by_member and "旧规则" not in by_member
    recent = _page(client, club, since=(timezone.localdate() - timedelta(days=2)).isoformat())
    assert 'data-action="member.ban"' in recent and "旧规则" not in recent
    older = _page(client, club, until=(timezone.localdate() - timedelta(days=5)).isoformat())
    assert "旧规则" in older and 'data-action="member.ban"' not in older


def test_bad_filter_values_say_so_and_show_everything(client, club_world):
    club, owner, *_ = club_world
    client.force_login(owner)
    html = _page(client, club, since="yesterday", member="x")
    assert "YYYY-MM-DD" in html or "年-月-日" in html
    assert 'data-action="club.create"' in html


def test_sentences_escape_what_users_wrote_and_never_show_raw_keys(client, club_world):
    from apps.clubs import services as club_services

    club, owner, admin, member, _ = club_world
    club_services.audit_log(club=club, actor=owner, action="match.cancel",
                            detail={"match": 99, "reason": "<script>alert(1)</script>"})
    club_services.audit_log(club=club, actor=owner, action="some.future_kind", detail={"x": [1, 2]})
    client.force_login(owner)
    html = _page(client, club)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "老王</strong> 取消了比赛（名称不详）。原因：&lt;script&gt;" in html
    assert "some.future_kind" not in html.replace('data-action="some.future_kind"', "")
    assert "老王</strong> 进行了一项操作。" in html and "[1, 2]" not in html


def test_old_rows_find_names_in_the_rows_that_named_them_with_one_query(client, club_world, django_assert_max_num_queries):
    """A row that names a match or a table only by id reads its name from the log's own
    match.create / table.open row (one query for the page, not one per row)."""
    from apps.clubs import services as club_services

    club, owner, admin, member, _ = club_world
    club_services.audit_log(club=club, actor=owner, action="match.create", detail={"match": 41, "name": "周四晚快赛"})
    club_services.audit_log(club=club, actor=owner, action="table.open", detail={"table": 7, "table_name": "夜场"})
    for _i in range(5):
        club_services.audit_log(club=club, actor=admin, action="match.pause", detail={"match": 41})
        club_services.audit_log(club=club, actor=admin, action="replay.view",
                                detail={"hand": 3, "table": 7, "number": 2, "route": "page", "as": "manager"})
    client.force_login(owner)
    html = _page(client, club)
    assert html.count("暂停了比赛「周四晚快赛」。") == 5
    assert html.count("查看了牌桌「夜场」第 2 局的回放。") == 5
    with django_assert_max_num_queries(10):  # ten rows: the names cost two queries, not ten (+1: the open disputes badge)
        _page(client, club)
