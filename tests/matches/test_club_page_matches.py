"""The club page announces the club's running and coming matches at the top (issue #46: "the
match is not announced on the club page"): each with its state in words as the clock has made it
due (报名中, 签到中, 进行中 ...), its start (or its round once running), the viewer's own entry and a
link to it; finished and cancelled matches, and other clubs', are not there. The query count is
checked with the whole page in tests/clubs/test_owner_member_list.py."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.matches import services
from apps.matches.models import Match, MatchRound
from tests.language import VisibleText, problems

pytestmark = pytest.mark.django_db


def _cards(html: str) -> list[tuple[int, str, str]]:
    """(match id, state, visible text) of each announced match, in page order."""
    out = []
    for m in re.finditer(r'<li class="card match-card match-now" data-match="(\d+)" data-state="(\w+)">(.*?)</li>',
                         html, re.S):
        page = VisibleText()
        page.feed(m.group(3))
        out.append((int(m.group(1)), m.group(2), page.text))
    return out


def test_running_and_coming_matches_are_announced_with_state_time_and_link(client, match_club, make_match, mh):
    club, owner, _admin, players = match_club(4)
    now = timezone.now()
    running = make_match(club, owner, name="正在打的赛", entry_fee=0)
    mh.register_all(running, players[:4])
    mh.start(running)  # one table of three and a bye
    viewer = next(u for u in players if u.pk in MatchRound.objects.get(match=running, number=1).byes)
    soon = make_match(club, owner, name="今晚积分赛", starts_at=now + timedelta(hours=3), entry_fee=0)
    services.register(match=soon, user=viewer)
    later = make_match(club, owner, name="下周淘汰赛", starts_at=now + timedelta(days=7),
                       registration_opens_at=now + timedelta(days=6), entry_fee=0)
    done = make_match(club, owner, name="上周的赛", entry_fee=0)
    Match.objects.filter(pk=done.pk).update(state="finished")
    gone = make_match(club, owner, name="取消的赛", entry_fee=0)
    Match.objects.filter(pk=gone.pk).update(state="cancelled", cancel_reason="人数不足")

    client.force_login(viewer)
    html = client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    cards = _cards(html)
    assert [(pk, state) for pk, state, _text in cards] == [
        (running.pk, "running"), (soon.pk, "registering"), (later.pk, "draft")]
    assert html.index('id="club-matches"') < html.index('id="tables"')  # at the top of the page
    texts = {pk: text for pk, _state, text in cards}
    assert "进行中" in texts[running.pk] and "第 1 轮" in texts[running.pk] and "轮空" in texts[running.pk]
    start = timezone.localtime(soon.starts_at).strftime("%m-%d %H:%M")
    assert "报名中" in texts[soon.pk] and start in texts[soon.pk] and "已报名" in texts[soon.pk]
    assert "未开放报名" in texts[later.pk] and "开放报名" in texts[later.pk]
    for m in (running, soon, later):
        assert f'href="{reverse("matches:detail", args=[m.pk])}"' in html
    assert "上周的赛" not in html and "取消的赛" not in html
    for _pk, _state, text in cards:
        assert not problems(text, chinese=True), text

    # the clock decides the state shown: registration closed, check-in open → 签到中
    Match.objects.filter(pk=soon.pk).update(registration_opens_at=now - timedelta(hours=1),
                                            registration_closes_at=now - timedelta(minutes=1),
                                            checkin_opens_at=now - timedelta(minutes=1))
    html = client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    state = {pk: (st, text) for pk, st, text in _cards(html)}[soon.pk]
    assert state[0] == "checking_in" and "签到中" in state[1]


def test_a_club_without_coming_matches_shows_no_empty_section(client, match_club):
    club, _owner, _admin, players = match_club(3)
    client.force_login(players[0])
    html = client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    assert 'id="club-matches"' not in html
