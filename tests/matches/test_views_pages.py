"""What the match pages show and what their buttons do, end to end through the real services."""

from __future__ import annotations

import re
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from apps.clubs.models import AuditLog
from apps.ledgers.models import Account
from apps.matches import services
from apps.matches.models import Entrant, EntrantStatus, Match, MatchState
from tests.matches.world import fund, match_fields


def balance(club, user) -> int:
    return Account.objects.filter(club=club, kind="member", user=user).values_list("balance", flat=True).first() or 0


def page(client, user, match, **headers):
    client.force_login(user)
    return client.get(reverse("matches:detail", args=[match.pk]), **headers).content.decode()


def shown(html: str, verb: str) -> bool:
    """The entry box's form of this verb (register, check-in, withdraw) is on the page and not
    hidden (the live page keeps every form and shows those that apply: static/js/matches/standings.js)."""
    tag = re.search(rf'<form [^>]*id="form-{verb}"[^>]*>', html)
    return bool(tag) and " hidden" not in tag.group(0)


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"]) if response.context else ""


# --- lists and links ---------------------------------------------------------------------------------


def test_club_list_groups_matches_by_state_and_shows_create_only_to_managers(client, world):
    client.force_login(world.member)
    html = client.get(reverse("matches:list", args=[world.club.pk])).content.decode()
    registering = html[html.index('id="matches-registering"'):html.index('id="matches-upcoming"')]
    upcoming = html[html.index('id="matches-upcoming"'):html.index('id="matches-running"')]
    assert "周末积分赛" in registering and "下周淘汰赛" in upcoming
    assert "报名中" in html and "进行中" in html and "已结束" in html and "已取消" in html
    assert "别家比赛" not in html
    assert reverse("matches:create", args=[world.club.pk]) not in html
    client.force_login(world.admin)
    html = client.get(reverse("matches:list", args=[world.club.pk])).content.decode()
    assert reverse("matches:create", args=[world.club.pk]) in html


def test_club_page_and_site_nav_link_to_matches(client, world):
    client.force_login(world.member)
    html = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert reverse("matches:list", args=[world.club.pk]) in html
    assert reverse("matches:mine") in html and "我的比赛" in html


def test_my_matches_lists_my_entries_across_clubs(client, world, make_club):
    other = world.other_match
    from apps.clubs.models import Membership

    Membership.objects.create(club=world.other_club, user=world.member, role="member")
    services.register(match=world.match, user=world.member)
    services.register(match=other, user=world.member)
    client.force_login(world.member)
    html = client.get(reverse("matches:mine")).content.decode()
    assert "周末积分赛" in html and "别家比赛" in html and "已报名" in html
    assert "下周淘汰赛" not in html
    client.force_login(world.member2)
    html = client.get(reverse("matches:mine")).content.decode()
    assert "你还没有参加任何比赛" in html


# --- register / withdraw / check in ------------------------------------------------------------------


def test_register_pays_the_fee_once_and_twice_is_refused(client, world):
    client.force_login(world.member)
    url = reverse("matches:register", args=[world.match.pk])
    response = client.post(url, follow=True)
    assert "报名成功" in messages_of(response)
    assert balance(world.club, world.member) == 400
    response = client.post(url, follow=True)
    assert "你已经报名了本比赛" in messages_of(response)
    assert Entrant.objects.filter(match=world.match, user=world.member).count() == 1
    assert balance(world.club, world.member) == 400
    html = page(client, world.member, world.match)
    assert shown(html, "withdraw") and not shown(html, "register") and "已报名" in html


def test_register_without_the_points_says_so(client, world, make_user):
    from apps.clubs.models import Membership

    poor = make_user("poor", display_name="穷小子")
    Membership.objects.create(club=world.club, user=poor, role="member")
    fund(world.club, world.owner, poor, 30)
    html = page(client, poor, world.match)
    assert "积分不足：报名费 100 分，你只有 30 分" in html and not shown(html, "register")
    response = client.post(reverse("matches:register", args=[world.match.pk]), follow=True)
    assert "积分不足" in messages_of(response)
    assert not Entrant.objects.filter(match=world.match, user=poor).exists()
    assert balance(world.club, poor) == 30


def test_withdraw_while_registration_is_open_refunds(client, world):
    services.register(match=world.match, user=world.member)
    client.force_login(world.member)
    response = client.post(reverse("matches:withdraw", args=[world.match.pk]), follow=True)
    assert "报名费已退还" in messages_of(response)
    assert balance(world.club, world.member) == 500
    html = page(client, world.member, world.match)
    assert "你已退出本比赛，不能再次报名" in html and not shown(html, "register")


def test_check_in_only_in_its_window(client, world):
    services.register(match=world.match, user=world.member)
    html = page(client, world.member, world.match)
    assert not shown(html, "check-in") and "签到于" in html
    response = client.post(reverse("matches:check_in", args=[world.match.pk]), follow=True)
    assert "签到于" in messages_of(response)  # the same refusal as the page: when it opens
    soon = services.match_create(club=world.club, by=world.owner,
                                 **match_fields(world.template, name="马上开", entry_fee=0,
                                                starts_at=timezone.now() + timedelta(minutes=5)))
    services.register(match=soon, user=world.member)
    assert shown(page(client, world.member, soon), "check-in")
    response = client.post(reverse("matches:check_in", args=[soon.pk]), follow=True)
    assert "签到成功" in messages_of(response)
    assert Entrant.objects.get(match=soon, user=world.member).status == EntrantStatus.CHECKED_IN


def test_waitlist_beyond_the_maximum(client, world):
    full = services.match_create(club=world.club, by=world.owner,
                                 **match_fields(world.template, name="小比赛", entry_fee=0, max_entrants=3))
    for user in (world.owner, world.admin, world.member):
        services.register(match=full, user=user)
    client.force_login(world.member2)
    response = client.post(reverse("matches:register", args=[full.pk]), follow=True)
    assert "你已进入候补" in messages_of(response)
    html = page(client, world.member2, full)
    assert "候补名单" in html and "你在候补名单中" in html


def test_staff_and_draft_explain_why_not(client, world):
    assert "只有俱乐部成员可以报名" in page(client, world.staff, world.match)
    assert "报名将于" in page(client, world.member, world.draft)


# --- the match page ------------------------------------------------------------------------------------


def test_match_page_prints_rules_format_tie_breaks_prizes(client, world):
    for user in (world.owner, world.admin, world.member):
        services.register(match=world.match, user=user)
    html = page(client, world.member2, world.match)
    assert "定局积分" in html and "共 3 轮，每轮 2 局" in html and "4/2/0" in html
    assert "比赛分 → 游戏分 → 单局最高分 → 报名先后" in html
    assert "全名堂，3人" in html and "15胡息起胡" in html and "吃碰胡选择15秒" in html
    assert 'data-countdown="' in html
    # 3 entrants x 100 = pool 300 → 50/30/20 %
    assert '<span class="amount">150</span>' in html and '<span class="amount">90</span>' in html
    assert '<span class="amount">60</span>' in html
    assert "按 3 人计，奖池 300" in html
    for name in ("东家", "管理员", "阿明"):
        assert name in html


def test_match_page_in_english(client, world):
    html = page(client, world.member, world.match, HTTP_ACCEPT_LANGUAGE="en")
    assert "Registration open" in html and "Fixed rounds" in html and "Earlier registration" in html


def _running(world, users):
    match = services.match_create(club=world.club, by=world.owner,
                                  **match_fields(world.template, name="进行中的比赛", entry_fee=0))
    for user in users:
        services.register(match=match, user=user)
    at = match.starts_at - timedelta(minutes=5)
    for user in users:
        services.check_in(match=match, user=user, now=at)
    services.start_due(now=match.starts_at + timedelta(seconds=1))
    match.refresh_from_db()
    assert match.state == MatchState.RUNNING
    return match


def test_running_match_shows_standings_seatings_seed_and_my_table(client, world):
    players = [world.owner, world.admin, world.member]
    match = _running(world, players)
    entry = Entrant.objects.get(match=match, user=world.member)
    table_url = reverse("tables:detail", args=[entry.current_table_id])
    html = page(client, world.member, match)
    assert 'id="my-table-prompt"' in html and table_url in html and "你被安排在第1桌" in html
    assert "实时排名" in html and 'id="standings-body"' in html and "第 1 / 3 轮" in html
    assert match.seed in html and match.seed_hash in html and "--recompute" in html
    assert 'id="seatings"' in html and "第1桌" in html
    # the poll: where I sit; other members see table numbers, not links to tables they may not watch
    client.force_login(world.member)
    data = client.get(reverse("matches:standings", args=[match.pk])).json()
    assert data["me"]["table_url"] == table_url and data["state"] == "running"
    assert {r["name"] for r in data["rows"]} == {"东家", "管理员", "阿明"}
    others = [r for r in data["rows"] if r["user_id"] != world.member.pk]
    assert all(r["table"]["number"] == 1 and r["table"]["url"] == table_url for r in others)  # same table
    client.force_login(world.member2)  # a member not in the match
    data = client.get(reverse("matches:standings", args=[match.pk])).json()
    assert data["me"] is None and all(r["table"]["url"] is None for r in data["rows"])
    client.force_login(world.admin)
    assert all(r["table"]["url"] for r in client.get(reverse("matches:standings", args=[match.pk])).json()["rows"])


def test_standings_endpoint_is_not_cached(client, world):
    client.force_login(world.member)
    response = client.get(reverse("matches:standings", args=[world.match.pk]))
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


# --- console -----------------------------------------------------------------------------------------


def test_console_lists_who_has_not_checked_in(client, world):
    services.register(match=world.match, user=world.member)
    services.register(match=world.match, user=world.member2)
    services.check_in(match=world.match, user=world.member2, now=world.match.starts_at - timedelta(minutes=5))
    client.force_login(world.admin)
    html = client.get(reverse("matches:console", args=[world.match.pk])).content.decode()
    section = html[html.index('id="console-checkin"'):html.index('id="console-never"')]
    assert "阿明" in section and "小芳" not in section


def test_cancel_refunds_every_fee_and_the_page_says_why(client, world):
    for user in (world.member, world.member2):
        services.register(match=world.match, user=user)
    client.force_login(world.admin)
    url = reverse("matches:cancel", args=[world.match.pk])
    response = client.post(url, {"reason": ""}, follow=True)
    assert "请说明取消比赛的原因" in messages_of(response)
    assert Match.objects.get(pk=world.match.pk).state == MatchState.REGISTERING
    response = client.post(url, {"reason": "场地停电"}, follow=True)
    assert "报名费已全部退还" in messages_of(response)
    assert Match.objects.get(pk=world.match.pk).state == MatchState.CANCELLED
    assert balance(world.club, world.member) == 500 and balance(world.club, world.member2) == 500
    assert AuditLog.objects.filter(club=world.club, action="match.cancel", actor=world.admin).exists()
    html = page(client, world.member, world.match)
    assert "本比赛已取消" in html and "场地停电" in html and not shown(html, "withdraw")
    client.force_login(world.member)
    assert client.get(reverse("matches:standings", args=[world.match.pk])).json()["state"] == "cancelled"


def test_too_few_entrants_cancel_says_why(client, world):
    services.register(match=world.match, user=world.member)
    services.check_in(match=world.match, user=world.member, now=world.match.starts_at - timedelta(minutes=5))
    services.start_due(now=world.match.starts_at + timedelta(seconds=1))
    html = page(client, world.member, world.match)
    assert "本比赛已取消" in html and "人数不足" in html
    assert balance(world.club, world.member) == 500


def test_pause_resume_and_reseat_need_a_running_match(client, world):
    match = _running(world, [world.owner, world.admin, world.member])
    client.force_login(world.admin)
    response = client.post(reverse("matches:reseat", args=[match.pk]),
                           {"user": world.member.pk, "table_number": 1}, follow=True)
    assert "请先暂停比赛" in messages_of(response)
    assert not AuditLog.objects.filter(club=world.club, action="match.reseat").exists()
    response = client.post(reverse("matches:pause", args=[match.pk]), follow=True)
    assert "已暂停" in messages_of(response)
    assert Match.objects.get(pk=match.pk).paused
    assert "比赛已被主办方暂停" in page(client, world.member, match)
    client.force_login(world.admin)
    assert 'id="btn-resume"' in client.get(reverse("matches:console", args=[match.pk])).content.decode()
    client.post(reverse("matches:resume", args=[match.pk]))
    assert not Match.objects.get(pk=match.pk).paused
    actions = set(AuditLog.objects.filter(club=world.club).values_list("action", flat=True))
    assert {"match.pause", "match.resume"} <= actions
    # pausing a match that does not run is refused, and changes nothing
    response = client.post(reverse("matches:pause", args=[world.match.pk]), follow=True)
    assert "只有进行中的比赛可以暂停" in messages_of(response)
    assert not Match.objects.get(pk=world.match.pk).paused


def test_never_together_add_and_remove(client, world):
    from apps.matches.models import NeverTogether

    client.force_login(world.admin)
    client.post(reverse("matches:never_add", args=[world.match.pk]),
                {"user_a": world.member.pk, "user_b": world.member2.pk})
    pair = NeverTogether.objects.get(club=world.club)
    html = client.get(reverse("matches:console", args=[world.match.pk])).content.decode()
    assert "阿明 ↔ 小芳" in html or "小芳 ↔ 阿明" in html
    response = client.post(reverse("matches:never_add", args=[world.match.pk]),
                           {"user_a": world.member.pk, "user_b": world.member.pk}, follow=True)
    assert "请选择两位不同的选手" in messages_of(response)
    client.post(reverse("matches:never_remove", args=[world.match.pk, pair.pk]))
    assert not NeverTogether.objects.filter(club=world.club).exists()
    actions = set(AuditLog.objects.filter(club=world.club).values_list("action", flat=True))
    assert {"match.never_together_add", "match.never_together_remove"} <= actions


def test_manual_reseat_from_the_console_moves_a_player_and_is_audited(client, make_user, make_club):
    """Pause during round 1; round 2 is seated but held; the admin moves a player to the other
    table from the console (a swap with its last seat), and the audit log records it."""
    from apps.matches.models import MatchTable
    from apps.tables.models import Seat, Table
    from apps.tables.transaction import unit
    from apps.tables.verbs import play
    from apps.tables.verbs.services import seat_set_tuoguan
    from tests.matches.world import template_for

    owner = make_user("r_owner")
    players = [make_user(f"r_p{i}", display_name=f"选手{i}") for i in range(6)]
    club = make_club("R", owner=owner, members=players)
    match = services.match_create(club=club, by=owner, **match_fields(template_for(club), entry_fee=0, rounds=2,
                                                                      hands_per_round=1))
    for p in players:
        services.register(match=match, user=p)
    for p in players:
        services.check_in(match=match, user=p, now=match.starts_at - timedelta(minutes=5))
    services.start_due(now=match.starts_at + timedelta(seconds=1))
    services.pause(match=match, by=owner)
    for _ in range(200):  # round 1 plays out by 托管; round 2 is then seated and held
        match.refresh_from_db()
        if match.current_round == 2:
            break
        for table_id in services.open_table_ids(match_id=match.pk):
            for seat in Seat.objects.filter(table_id=table_id).select_related("user"):
                if seat.user_id and not seat.tuoguan:
                    seat_set_tuoguan(user=seat.user, table_id=table_id, on=True)
            unit.autoplay(table_id=table_id)
            play.deadline_fire(table_id=table_id, at=timezone.now() + timedelta(hours=1))
        services.advance(match_id=match.pk)
    assert match.current_round == 2 and match.paused
    tables = list(MatchTable.objects.filter(match=match, round__number=2).order_by("number"))
    assert all(Table.objects.get(pk=t.table_id).status == "waiting" for t in tables)
    mover, last = tables[0].seats[0], tables[1].seats[-1]
    client.force_login(owner)
    html = client.get(reverse("matches:console", args=[match.pk])).content.decode()
    assert 'id="btn-reseat"' in html and 'id="btn-resume"' in html
    response = client.post(reverse("matches:reseat", args=[match.pk]), {"user": mover, "table_number": 2},
                           follow=True)
    assert "已调到第2桌" in messages_of(response)
    tables = list(MatchTable.objects.filter(match=match, round__number=2).order_by("number"))
    assert mover in tables[1].seats and last in tables[0].seats
    assert Entrant.objects.get(match=match, user_id=mover).current_table_id == tables[1].table_id
    log = AuditLog.objects.get(club=club, action="match.reseat")
    assert log.actor == owner and log.target_user_id == mover
    # the match page marks the round as re-seated
    assert "管理员调过座" in page(client, owner, match)
