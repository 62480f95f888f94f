"""Disputes that can be judged fairly (issue #46): a kind and a step to point at, never judged by a
manager who played the hand (another manager or staff is), a badge for open ones, and automatic
actions marked in the replay the judge reads."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from apps.ledgers import services as ledger_services
from apps.replays.access import access_for
from apps.replays.audit import services
from apps.replays.audit.models import Dispute, DisputeKind
from apps.replays.selectors import replay_data
from apps.tables.storage.eventlog import hand_events
from tests.replays.audit.helpers import TableWriter, days_ago, honest

pytestmark = pytest.mark.django_db


@pytest.fixture
def club_hand(make_user, make_club):
    """A club whose owner played a settled hand with two members; an admin and staff who did not."""
    owner, admin, a, b = (make_user(n) for n in ("owner", "admin", "pa", "pb"))
    staff = make_user("staff", is_staff=True)
    club = make_club("A", owner=owner, admins=[admin], members=[a, b])
    hand = TableWriter(club, [a, b, owner], start=days_ago(1)).play([honest] * 3, "judging", random.Random(5))
    assert ledger_services.settle_hand(hand_id=hand.pk).status == "posted"
    return club, hand, owner, admin, a, b, staff


def test_the_form_asks_the_kind_and_takes_the_step_from_the_replay(club_hand, client):
    club, hand, _owner, _admin, a, _b, _staff = club_hand
    client.force_login(a)
    create = reverse("audit:dispute_create", args=[hand.pk])
    page = client.get(create + "?step=3").content.decode()
    assert "申诉什么？" in page and "算分错误" in page and "掉线" in page and "合谋" in page
    assert 'name="step" value="3"' in page
    steps = len(hand_events(hand, ("action",)))
    for bad in ({"reason": "x"}, {"reason": "x", "kind": "money"}, {"reason": "x", "kind": "score", "step": "-1"},
                {"reason": "x", "kind": "score", "step": "abc"},
                {"reason": "x", "kind": "score", "step": str(steps + 1)}):
        response = client.post(create, bad)
        assert response.status_code == 400, bad
        assert 'class="error"' in response.content.decode(), bad
    assert not Dispute.objects.exists()
    assert client.post(create, {"reason": "胡息算错了", "kind": "score", "step": str(steps)}).status_code == 302
    dispute = Dispute.objects.get()
    assert (dispute.kind, dispute.step) == (DisputeKind.SCORE, steps)
    mine = client.get(reverse("audit:my_disputes")).content.decode()
    assert "算分错误" in mine and f"第 {steps} 步" in mine
    assert f'{reverse("replays:hand", args=[hand.pk])}#{steps}' in mine  # the step opens in the replay


def test_the_service_refuses_a_bad_kind_or_step(club_hand):
    _club, hand, _owner, _admin, a, _b, _staff = club_hand
    for kind, step in (("money", None), ("score", -1), ("score", 10_000), ("score", True), ("score", "2")):
        with pytest.raises(ValidationError):
            services.dispute_create(user=a, hand=hand, reason="x", kind=kind, step=step)
    assert not Dispute.objects.exists()


def test_a_manager_who_played_never_judges_another_manager_or_staff_does(club_hand, client):
    club, hand, owner, admin, a, _b, staff = club_hand
    dispute = services.dispute_create(user=a, hand=hand, reason="庄家和他配合", kind="collusion")
    with pytest.raises(PermissionDenied):
        services.dispute_review(dispute=dispute, by=owner)
    with pytest.raises(PermissionDenied):
        services.dispute_resolve(dispute=dispute, by=owner, outcome="没问题")
    dispute.refresh_from_db()
    assert dispute.status == "open"

    # The owner's page says why he cannot act, and offers no button.
    client.force_login(owner)
    url = reverse("audit:dispute", args=[club.pk, dispute.pk])
    page = client.get(url).content.decode()
    assert "你参与了这一局" in page and "开始审核" not in page
    response = client.post(reverse("audit:dispute_review", args=[club.pk, dispute.pk]), follow=True)
    assert "你参与了这一局" in response.content.decode()
    dispute.refresh_from_db()
    assert dispute.status == "open"

    # Staff (no member of the club) review it and resolve in words; no points move by them.
    client.force_login(staff)
    assert "开始审核" in client.get(url).content.decode()
    client.post(reverse("audit:dispute_review", args=[club.pk, dispute.pk]))
    dispute.refresh_from_db()
    assert dispute.status == "reviewing" and dispute.reviewer == staff
    page = client.get(url).content.decode()
    assert 'name="amount"' not in page and "由俱乐部的群主或管理员操作" in page
    assert client.post(reverse("audit:dispute_resolve", args=[club.pk, dispute.pk]),
                       {"outcome": "看了回放，没有问题"}).status_code == 302
    dispute.refresh_from_db()
    assert dispute.status == "resolved" and dispute.resolved_by == staff and dispute.adjustment is None

    # The admin, who did not play, may judge the next one, with an adjustment.
    second = services.dispute_create(user=a, hand=hand, reason="少算了", kind="score")
    assert services.judge_refusal(dispute=second, user=admin) is None
    assert services.dispute_resolve(dispute=second, by=admin, outcome="补 2 分", member_id=a.pk,
                                    amount=2).adjustment is not None


def test_the_club_tab_bar_counts_open_disputes_for_those_who_judge(club_hand, client, django_assert_max_num_queries):
    club, hand, owner, admin, a, b, _staff = club_hand
    client.force_login(admin)
    club_page = reverse("clubs:detail", args=[club.pk])
    assert 'data-testid="open-disputes"' not in client.get(club_page).content.decode()
    services.dispute_create(user=a, hand=hand, reason="x", kind="timeout")
    services.dispute_create(user=b, hand=hand, reason="y", kind="disconnect")
    html = client.get(club_page).content.decode()
    assert 'data-testid="open-disputes" title="待处理的申诉">2<' in html
    client.force_login(a)  # a member sees no badge (and no tab)
    assert 'data-testid="open-disputes"' not in client.get(club_page).content.decode()
    # Taken into review, a dispute is no longer new.
    services.dispute_review(dispute=Dispute.objects.get(filed_by=a), by=admin)
    client.force_login(admin)
    assert 'data-testid="open-disputes" title="待处理的申诉">1<' in client.get(club_page).content.decode()


def test_the_replay_marks_the_steps_a_time_out_or_tuoguan_decided(club_hand):
    _club, hand, _owner, _admin, a, _b, _staff = club_hand
    events = [e for e in hand_events(hand) if e.type == "action"]
    # Mark two of the hand's logged actions as decided for the player (the table writes "by").
    from apps.tables.models import TableEvent

    TableEvent.objects.filter(table=hand.table, seq=events[0].seq).update(
        payload={**events[0].payload, "by": "timeout"})
    TableEvent.objects.filter(table=hand.table, seq=events[1].seq).update(
        payload={**events[1].payload, "by": "tuoguan"})
    frames = replay_data(access_for(user=a, hand=hand))["frames"]
    assert [f["auto"] for f in frames] == [None, "timeout", "tuoguan"] + [None] * (len(frames) - 3)
