"""The match form: bad input gets a clear error in the user's language and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.clubs.models import AuditLog
from apps.matches.models import Match, MatchState
from tests.matches.world import form_data


def _post(client, world, **overrides):
    client.force_login(world.owner)
    data = form_data(world.template)
    data.update(overrides)
    return client.post(reverse("matches:create", args=[world.club.pk]), data)


def _local(dt):
    return timezone.localtime(dt).strftime("%Y-%m-%dT%H:%M")


BAD = [
    ("start_in_past", {"starts_at": "past"}, "开赛时间必须晚于现在"),
    ("max_below_min", {"min_entrants": "9", "max_entrants": "6"}, "最多人数不能小于最少人数"),
    ("percent_not_100", {"prize_values": "50,30,10"}, "奖励百分比合计必须为 100（现在合计 90）"),
    ("percent_empty", {"prize_values": ""}, "请至少填写一个百分比"),
    ("negative_fee", {"entry_fee": "-5"}, "报名费不能为负数"),
    ("prize_not_numbers", {"prize_values": "一百,50"}, "奖励必须是用逗号分隔的整数"),
    ("negative_fixed_prize", {"prize_kind": "fixed", "prize_values": "100,-20"}, "奖励不能为负数"),
    ("points_wrong_count", {"points_by_rank": "4,2"}, "每个座位一个数：共 3 个"),
    ("points_rising", {"points_by_rank": "0,2,4"}, "名次积分不能随名次上升"),
    ("closes_after_start", {"registration_closes_at": "after_start"}, "报名必须在开赛前截止"),
    ("opens_after_closes", {"registration_opens_at": "late", "registration_closes_at": "early"},
     "报名开始时间必须早于截止时间"),
    ("knockout_all_advance", {"format": "knockout", "knockout_top": "3"}, "每桌晋级人数必须少于座位数 3"),
    ("elimination_line_above_chips", {"format": "elimination", "elim_line": "1200"}, "淘汰线不能高于起始筹码"),
    ("min_below_table", {"min_entrants": "2"}, "至少需要 3 人才能坐满一桌"),
    ("no_template", {"template": ""}, "请选择规则模板"),
    ("forged_template", {"template": "999999"}, "请选择本俱乐部的规则模板"),
    ("no_name", {"name": ""}, "这个字段是必填项"),
]


@pytest.mark.parametrize(("case", "overrides", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_form_error_and_creates_nothing(client, world, case, overrides, message):
    now = timezone.now()
    times = {
        "past": _local(now - timedelta(minutes=5)),
        "after_start": _local(now + timedelta(hours=3)),
        "late": _local(now + timedelta(minutes=90)),
        "early": _local(now + timedelta(minutes=30)),
    }
    overrides = {k: times.get(v, v) for k, v in overrides.items()}
    before = Match.objects.count()
    audits = AuditLog.objects.count()
    response = _post(client, world, **overrides)
    assert response.status_code == 200
    html = response.content.decode()
    assert message in html, html[html.find("error"):][:500]
    assert 'class="error" role="alert"' in html or 'class="errors" role="alert"' in html
    assert Match.objects.count() == before
    assert AuditLog.objects.count() == audits


def test_errors_in_english(client, world):
    client.force_login(world.owner)
    data = form_data(world.template, prize_values="60,30", max_entrants="2", min_entrants="3")
    html = client.post(reverse("matches:create", args=[world.club.pk]), data,
                       HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Prize percentages must add up to 100 (these add up to 90)." in html
    assert "The maximum number of entrants cannot be below the minimum." in html


def test_valid_form_creates_the_match_with_its_settings(client, world):
    response = _post(client, world, prize_kind="fixed", prize_values="100, 50，20", points_by_rank="",
                     checkin_minutes="15")
    match = Match.objects.get(name="新比赛")
    assert response.status_code == 302 and response["Location"] == reverse("matches:detail", args=[match.pk])
    assert match.club == world.club and match.template == world.template and match.preset == "full"
    assert match.prize_scheme == {"kind": "fixed", "amounts": [100, 50, 20]}
    assert match.points_by_rank == [4, 2, 0]
    assert match.entry_fee == 50 and match.max_entrants == 30 and match.rounds == 3
    assert match.starts_at - match.checkin_opens_at == timedelta(minutes=15)
    assert match.registration_closes_at == match.checkin_opens_at
    assert match.state == MatchState.REGISTERING  # registration opens now by default
    assert AuditLog.objects.filter(club=world.club, action="match.create", actor=world.owner).exists()


def test_check_in_window_defaults_to_ten_minutes(client, world):
    client.force_login(world.owner)
    html = client.get(reverse("matches:create", args=[world.club.pk])).content.decode()
    assert 'name="checkin_minutes" value="10"' in html
    _post(client, world)
    match = Match.objects.get(name="新比赛")
    assert match.starts_at - match.checkin_opens_at == timedelta(minutes=10)


def test_draft_is_edited_through_the_form(client, world):
    client.force_login(world.owner)
    url = reverse("matches:edit", args=[world.draft.pk])
    html = client.get(url).content.decode()
    assert "下周淘汰赛" in html and 'value="knockout" selected' in html
    data = form_data(world.template, name="改名了", format="elimination", entry_fee="20",
                     starts_at=_local(world.draft.starts_at),
                     registration_opens_at=_local(world.draft.registration_opens_at))
    assert client.post(url, data).status_code == 302
    draft = Match.objects.get(pk=world.draft.pk)
    assert draft.name == "改名了" and draft.format == "elimination" and draft.entry_fee == 20
    assert draft.state == MatchState.DRAFT


def test_editing_after_registration_opened_changes_nothing(client, world):
    client.force_login(world.owner)
    url = reverse("matches:edit", args=[world.match.pk])
    response = client.get(url, follow=True)
    assert "报名开始后比赛不能再修改" in response.content.decode()
    client.post(url, form_data(world.template, name="偷偷改"))
    assert Match.objects.get(pk=world.match.pk).name == "周末积分赛"
    # the match page offers no edit button once registration is open
    html = client.get(reverse("matches:detail", args=[world.match.pk])).content.decode()
    assert reverse("matches:edit", args=[world.match.pk]) not in html
    html = client.get(reverse("matches:detail", args=[world.draft.pk])).content.decode()
    assert reverse("matches:edit", args=[world.draft.pk]) in html


def test_the_service_rejects_what_the_form_would(world):
    """A hand-made POST cannot get around the form: the service checks again."""
    from django.core.exceptions import ValidationError

    from apps.matches import services

    with pytest.raises(ValidationError):
        services.match_create(club=world.club, by=world.owner, name="x", template=world.template,
                              starts_at=timezone.now() + timedelta(hours=1), entry_fee=-1)
