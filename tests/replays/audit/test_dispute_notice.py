"""Issue #47: the one who filed a dispute is told, once, when it is answered (a notice with a link
to his disputes); a refused answer tells nobody."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import ValidationError

from apps.accounts import notices
from apps.accounts.models import Notice
from apps.ledgers import services as ledger_services
from apps.replays.audit import services
from tests.replays.audit.helpers import TableWriter, days_ago, honest

pytestmark = pytest.mark.django_db


def test_the_filer_hears_the_answer_once(make_user, make_club, monkeypatch, django_capture_on_commit_callbacks):
    owner, admin, a, b = (make_user(n) for n in ("owner", "admin", "pa", "pb"))
    club = make_club("A", owner=owner, admins=[admin], members=[a, b])
    hand = TableWriter(club, [a, b, owner], start=days_ago(1)).play([honest] * 3, "notice", random.Random(5))
    assert ledger_services.settle_hand(hand_id=hand.pk).status == "posted"
    sent = []
    monkeypatch.setattr(notices, "send", sent.append)
    dispute = services.dispute_create(user=a, hand=hand, reason="胡息算错了", kind="score")
    with django_capture_on_commit_callbacks(execute=True):
        services.dispute_review(dispute=dispute, by=admin)
    assert not sent and not Notice.objects.filter(kind="dispute_answered").exists()  # in review: not answered yet
    with django_capture_on_commit_callbacks(execute=True):
        services.dispute_resolve(dispute=dispute, by=admin, outcome="看了回放，没有问题")
    with pytest.raises(ValidationError), django_capture_on_commit_callbacks(execute=True):
        services.dispute_resolve(dispute=dispute, by=admin, outcome="再答一次")
    notice = Notice.objects.get(kind="dispute_answered")
    assert (notice.recipient, notice.kind, notice.url) == (a, "dispute_answered", "/audit/disputes/")
    assert sent == [notice]
    text = notices.render(notices.facts(notice))["text"]
    assert text == f"你对牌桌{hand.table.name}第 {hand.number} 局的申诉有了答复"


def test_the_judges_hear_of_a_new_dispute_once_and_a_manager_who_played_does_not(
        make_user, make_club, monkeypatch, django_capture_on_commit_callbacks):
    owner, admin, a, b = (make_user(n) for n in ("owner", "admin", "pa", "pb"))
    club = make_club("A", owner=owner, admins=[admin], members=[a, b])
    hand = TableWriter(club, [a, b, owner], start=days_ago(1)).play([honest] * 3, "filed", random.Random(6))
    sent = []
    monkeypatch.setattr(notices, "send", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        dispute = services.dispute_create(user=a, hand=hand, reason="他超时了还能胡", kind="score")
    # The owner played in the hand (he may not judge it): only the admin is told, with the dispute's page.
    notice = Notice.objects.get(kind="dispute_filed")
    assert (notice.recipient, notice.url) == (admin, f"/audit/clubs/{club.pk}/disputes/{dispute.pk}/")
    assert sent == [notice]
    assert notices.render(notices.facts(notice))["text"] == f"pa 对牌桌{hand.table.name}第 {hand.number} 局提出了申诉"
    # A refused second dispute on the same hand tells nobody again.
    with pytest.raises(ValidationError), django_capture_on_commit_callbacks(execute=True):
        services.dispute_create(user=a, hand=hand, reason="再来一次", kind="score")
    assert Notice.objects.filter(kind="dispute_filed").count() == 1 and len(sent) == 1


def test_the_other_judges_hear_who_took_up_and_resolved_a_dispute(
        make_user, make_club, monkeypatch, django_capture_on_commit_callbacks):
    owner, admin, admin2, a, b, c = (make_user(n) for n in ("owner", "admin", "admin2", "pa", "pb", "pc"))
    club = make_club("A", owner=owner, admins=[admin, admin2], members=[a, b, c])
    hand = TableWriter(club, [a, b, c], start=days_ago(1)).play([honest] * 3, "judged", random.Random(7))
    dispute = services.dispute_create(user=a, hand=hand, reason="胡息算错了", kind="score")
    sent = []
    monkeypatch.setattr(notices, "send", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        services.dispute_review(dispute=dispute, by=admin)
    reviewing = Notice.objects.filter(kind="dispute_reviewing").order_by("recipient_id")
    assert [n.recipient for n in reviewing] == [owner, admin2]  # the other judges, not the reviewer
    assert {n.url for n in reviewing} == {f"/audit/clubs/{club.pk}/disputes/{dispute.pk}/"}
    assert notices.render(notices.facts(reviewing[0]))["text"] == f"admin 正在处理牌桌{hand.table.name}第 {hand.number} 局的申诉"
    with django_capture_on_commit_callbacks(execute=True):
        services.dispute_resolve(dispute=dispute, by=admin2, outcome="看了回放，没有问题")
    resolved = Notice.objects.filter(kind="dispute_resolved").order_by("recipient_id")
    assert [n.recipient for n in resolved] == [owner, admin]
    assert notices.render(notices.facts(resolved[0]))["text"] == f"admin2 已处理完牌桌{hand.table.name}第 {hand.number} 局的申诉"
    assert sorted(n.kind for n in sent) == sorted(["dispute_reviewing"] * 2 + ["dispute_resolved"] * 2 + ["dispute_answered"])
