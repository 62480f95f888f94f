"""Issue #46: join approvals keep the asker's pages true without a reload: the one who asked to join
is told, once, when a manager approves (a notice with a link into the club) or refuses; a second
answer is refused and tells nobody again."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from apps.accounts import notices
from apps.accounts.models import Notice
from apps.clubs import services

pytestmark = pytest.mark.django_db


def _ask(club, owner, user):
    return services.join_request_create(invite=services.invite_create(club=club, by=owner), user=user)


def test_an_approval_tells_the_asker_once_with_the_way_in(make_user, make_club, monkeypatch,
                                                          django_capture_on_commit_callbacks):
    owner, asker = make_user("owner"), make_user("asker")
    club = make_club("湘乡牌友会", owner=owner)
    sent = []
    monkeypatch.setattr(notices, "send", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        request = _ask(club, owner, asker)
    assert not Notice.objects.filter(recipient=asker).exists()  # asking tells the asker nothing
    sent.clear()  # (it tells the owner: test_a_request_tells_each_manager_once_…)
    with django_capture_on_commit_callbacks(execute=True):
        services.join_request_approve(join_request=request, by=owner)
    with pytest.raises(ValidationError), django_capture_on_commit_callbacks(execute=True):
        services.join_request_approve(join_request=request, by=owner)
    notice = Notice.objects.get(recipient=asker)
    assert (notice.kind, notice.url) == ("join_approved", f"/clubs/{club.pk}/")
    assert sent == [notice]
    with translation.override("zh-hans"):
        shown = notices.render(notices.facts(notice))
    assert (shown["text"], shown["label"]) == ("你已加入 湘乡牌友会", "进入俱乐部")


def test_a_refusal_tells_the_asker_without_a_link(make_user, make_club, django_capture_on_commit_callbacks):
    owner, asker = make_user("owner"), make_user("asker")
    club = make_club("湘乡牌友会", owner=owner)
    request = _ask(club, owner, asker)
    with django_capture_on_commit_callbacks(execute=True):
        services.join_request_reject(join_request=request, by=owner)
    notice = Notice.objects.get(recipient=asker)
    assert (notice.kind, notice.url) == ("join_rejected", "")
    with translation.override("zh-hans"):
        assert notices.render(notices.facts(notice))["text"] == "你加入 湘乡牌友会 的申请未通过"


def test_a_request_tells_each_manager_once_with_the_requests_page(make_user, make_club, monkeypatch,
                                                                  django_capture_on_commit_callbacks):
    owner, admin, member, asker = make_user("owner"), make_user("admin"), make_user("member"), make_user("asker")
    club = make_club("湘乡牌友会", owner=owner, admins=[admin], members=[member])
    sent = []
    monkeypatch.setattr(notices, "send", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        _ask(club, owner, asker)
    with pytest.raises(ValidationError), django_capture_on_commit_callbacks(execute=True):
        _ask(club, owner, asker)  # asking again while waiting is refused and tells nobody
    told = Notice.objects.filter(kind="join_requested").order_by("recipient_id")
    assert [n.recipient for n in told] == [owner, admin]  # the managers, not the members
    assert {n.url for n in told} == {f"/clubs/{club.pk}/requests/"}
    assert sent == list(told)
    with translation.override("zh-hans"):
        shown = notices.render(notices.facts(told[0]))
    assert (shown["text"], shown["label"]) == ("asker 申请加入 湘乡牌友会", "查看")
