"""The match journey on the server side: a match table's page names the match, round and table,
leads back to the match and offers no 再来一局; ``my-table.json`` tells a player (only him) where he
plays next; the live match page's payload follows registration → check-in → running → finished
with the buttons that apply; one status vocabulary (an absent player is shown as absent, with
the reason, in the standings, the entrant list and his own page); the fair-seating texts."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.matches import live, services
from apps.matches.models import Entrant, EntrantStatus, MatchState, MatchTable

pytestmark = pytest.mark.django_db


def config_of(html: str, script_id: str) -> dict:
    found = re.search(rf'<script id="{script_id}" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def get(client, user, url, **kw):
    client.force_login(user)
    return client.get(url, **kw)


@pytest.fixture
def running(match_club, make_match, mh):
    """A 2-round fixed match of three players at one table, round 1 running."""
    club, owner, admin, players = match_club(n=4)
    match = make_match(club, owner, name="周四晚快赛", rounds=2, hands_per_round=1, entry_fee=10,
                       prize_scheme={"kind": "percent", "percents": [60, 40]})
    mh.register_all(match, players[:3])
    mh.start(match)
    assert match.state == MatchState.RUNNING
    return match, owner, admin, players


def test_match_table_page_names_match_round_table_and_leads_back_to_the_match(client, running):
    match, owner, admin, players = running
    table_id = Entrant.objects.get(match=match, user=players[0]).current_table_id
    html = get(client, players[0], reverse("tables:detail", args=[table_id])).content.decode()
    assert "周四晚快赛 · 第1轮 · 第1桌" in html
    assert "· 1<" not in html
    match_url = reverse("matches:detail", args=[match.pk])
    assert re.search(rf'<a class="back" id="back-link" href="{match_url}">‹ 返回比赛</a>', html)
    cfg = config_of(html, "table-config")
    assert cfg["back"] == {"url": match_url, "label": "返回比赛"}
    assert "rematch" not in cfg["urls"]  # no 再来一局 button at a match table
    assert cfg["follow"]["url"] == reverse("matches:my_table", args=[match.pk])
    assert cfg["follow"]["strings"]["standings"] == "查看最终成绩"
    assert "js/table/match.js" in html
    # the stored table name labels the number too
    assert MatchTable.objects.get(table_id=table_id).table.name == "周四晚快赛 · 第1轮 · 第1桌"


def test_match_table_page_in_english(client, running):
    match, owner, admin, players = running
    table_id = Entrant.objects.get(match=match, user=players[0]).current_table_id
    html = get(client, players[0], reverse("tables:detail", args=[table_id]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "周四晚快赛 · R1 · Table 1" in html and "‹ Back to the match" in html
    assert config_of(html, "table-config")["follow"]["strings"]["standings"] == "See the final standings"


def test_club_table_page_keeps_the_club_back_link_and_rematch(client, match_club, make_template):
    from apps.tables.verbs.services import table_open

    club, owner, admin, players = match_club(n=3)
    table = table_open(user=owner, template=make_template(club), practice=True)
    html = get(client, owner, reverse("tables:detail", args=[table.pk])).content.decode()
    cfg = config_of(html, "table-config")
    assert cfg["back"]["url"] == f"/clubs/{club.pk}/" and cfg["back"]["label"] == "返回俱乐部"
    assert "rematch" in cfg["urls"] and "follow" not in cfg and "js/table/match.js" not in html


def test_the_server_refuses_a_rematch_at_a_match_table(client, running, mh):
    match, owner, admin, players = running
    table_id = Entrant.objects.get(match=match, user=players[0]).current_table_id
    mh.drive(match)  # the tables end
    client.force_login(players[0])
    response = client.post(reverse("tables:rematch", args=[table_id]), HTTP_ACCEPT="application/json")
    assert response.status_code == 409 and response.json()["code"] == "match_table"


def test_my_table_tells_each_player_only_his_own_table_and_follows_him_to_the_next_round(
        client, match_club, make_match, mh):
    club, owner, admin, players = match_club(n=6)
    match = make_match(club, owner, rounds=2, hands_per_round=1, entry_fee=0)
    mh.register_all(match, players)
    mh.start(match)
    url = reverse("matches:my_table", args=[match.pk])
    tables = {}
    for p in players:
        data = get(client, p, url).json()
        entrant = Entrant.objects.get(match=match, user=p)
        assert data["table"]["id"] == entrant.current_table_id
        assert data["table"]["url"] == reverse("tables:detail", args=[entrant.current_table_id])
        assert data["state"] == "running" and data["round"] == 1 and data["status"]["label"] == "比赛中"
        others = set(MatchTable.objects.filter(match=match).values_list("table_id", flat=True)) - {
            entrant.current_table_id}
        assert not any(f'"id": {t},' in json.dumps(data) for t in others)  # no other table leaks
        tables[p.pk] = entrant.current_table_id
    assert len(set(tables.values())) == 2
    before = _queries(client, players[0], reverse("matches:standings", args=[match.pk]))
    # an admin who does not play, and a member not in the match: no table
    assert get(client, admin, url).json()["table"] is None
    assert get(client, admin, url).json()["status"] is None
    # play round 1 only: each player's endpoint now names a round-2 table
    from apps.tables.models import Seat
    from apps.tables.transaction import unit
    from apps.tables.verbs import play
    from apps.tables.verbs.services import seat_set_tuoguan

    for table_id in set(tables.values()):
        for seat in Seat.objects.filter(table_id=table_id).select_related("user"):
            seat_set_tuoguan(user=seat.user, table_id=table_id, on=True)
        for _ in range(50):
            unit.autoplay(table_id=table_id)
            play.deadline_fire(table_id=table_id, at=match.starts_at + timedelta(hours=3))
        services.advance(match_id=match.pk)
    match.refresh_from_db()
    assert match.current_round == 2
    for p in players:
        data = get(client, p, url).json()
        assert data["round"] == 2 and data["table"]["id"] != tables[p.pk]
    # the live page's poll costs the same in round 2 as in round 1 (results of more tables, no more queries)
    assert _queries(client, players[0], reverse("matches:standings", args=[match.pk])) == before
    # the query count does not depend on the field
    client.force_login(players[0])
    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    assert len(ctx.captured_queries) <= 8, [q["sql"] for q in ctx.captured_queries]


def _queries(client, user, url) -> int:
    client.force_login(user)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_my_table_after_the_last_round_leads_to_the_final_standings(client, running, mh):
    match, owner, admin, players = running
    mh.drive(match)
    data = get(client, players[0], reverse("matches:my_table", args=[match.pk])).json()
    assert data["state"] == "finished" and data["table"] is None
    assert data["url"] == reverse("matches:detail", args=[match.pk])


def test_my_table_of_another_club_is_not_found(client, running, make_user, make_club):
    match, *_ = running
    stranger = make_user("stranger_j")
    make_club("别的俱乐部", owner=stranger)
    assert get(client, stranger, reverse("matches:my_table", args=[match.pk])).status_code == 404


def _payload(client, user, match):
    return get(client, user, reverse("matches:standings", args=[match.pk])).json()


def test_live_payload_follows_registration_check_in_start_and_the_buttons_that_apply(
        client, match_club, make_match, mh):
    club, owner, admin, players = match_club(n=3)
    match = make_match(club, owner, entry_fee=0, rounds=1)
    data = _payload(client, players[0], match)
    assert data["state"] == "registering" and data["state_label"] == "报名中"
    assert data["options"]["register"] and not data["options"]["check_in"] and data["entry"] is None
    assert not data["standings"]
    services.register(match=match, user=players[0])
    data = _payload(client, players[0], match)
    assert not data["options"]["register"] and data["options"]["withdraw"] and not data["options"]["check_in"]
    assert data["entry"]["status"]["label"] == "已报名" and data["entrants"] == 1
    # check-in opens (the clock, not a reload): 签到 appears in the same payload shape
    now = match.starts_at - timedelta(minutes=5)
    data = live.page_payload(match=match, user=players[0], membership=True, can_watch=False, now=now)
    assert data["options"]["check_in"] and data["options"]["withdraw"]
    for p in players:
        if p != players[0]:
            services.register(match=match, user=p)
        services.check_in(match=match, user=p, now=now)
    data = _payload(client, players[0], match)
    assert data["entry"]["status"]["label"] == "已签到" and not data["options"]["check_in"]
    mh.start(match)
    data = _payload(client, players[0], match)
    assert data["state"] == "running" and data["state_label"] == "进行中" and data["standings"]
    assert data["me"]["table_url"] and data["entry"]["status"]["label"] == "比赛中"
    assert not data["options"]["register"] and not data["options"]["check_in"]
    mh.drive(match)
    data = _payload(client, players[0], match)
    assert data["state"] == "finished" and data["state_label"] == "已结束"
    assert data["options"] == {"register": False, "withdraw": False, "check_in": False, "why_not": "",
                               "withdraw_note": ""}
    assert data["entry"]["status"]["label"] == "已完赛" and "第" in data["entry"]["status"]["reason"]


def test_the_page_carries_every_entry_form_and_shows_only_those_that_apply(client, match_club, make_match):
    club, owner, admin, players = match_club(n=3)
    match = make_match(club, owner, entry_fee=0)
    services.register(match=match, user=players[0])
    html = get(client, players[0], reverse("matches:detail", args=[match.pk])).content.decode()
    for verb, on in (("register", False), ("check-in", False), ("withdraw", True)):
        tag = re.search(rf'<form [^>]*id="form-{verb}"[^>]*>', html).group(0)
        assert (" hidden" not in tag) == on, verb
    # no "refresh the page" banner any more: the page follows the match itself
    assert "match-changed" not in html and "刷新页面" not in html
    assert 'id="standings"' in html  # present (hidden) before the start, shown by the poll
    assert '<section class="section" id="seatings" hidden>' in html  # filled in when round 1 is seated


def test_an_absent_player_is_shown_as_absent_with_the_reason_everywhere(client, running, mh):
    match, owner, admin, players = running
    mh.drive(match, absent=[players[2]])
    assert match.state == MatchState.FINISHED
    absent = Entrant.objects.get(match=match, user=players[2])
    assert absent.status == EntrantStatus.WITHDRAWN and absent.rank is not None
    # standings (payload and page)
    data = _payload(client, players[0], match)
    row = next(r for r in data["rows"] if r["user_id"] == players[2].pk)
    assert row["status"]["key"] == "absent" and row["status"]["label"] == "缺席" and "托管" in row["status"]["reason"]
    html = get(client, players[0], reverse("matches:detail", args=[match.pk])).content.decode()
    entrants = html[html.index('id="entrants"'):]
    entrants = entrants[:entrants.index("</section>")]
    assert '<span id="entrant-count">3</span>' in entrants  # he took part: he is counted
    assert players[2].display_name in entrants and "缺席" in entrants and "托管" in entrants
    # his own page says why
    html = get(client, players[2], reverse("matches:detail", args=[match.pk])).content.decode()
    box = html[html.index('id="register-box"'):]
    box = box[:box.index("</section>")]
    assert "缺席" in box and "连续2轮没有到桌" in box
    # the others finished, in place N
    mine = get(client, players[0], reverse("matches:mine")).content.decode()
    assert "已完赛" in mine and "比赛中" not in mine and "进行中" not in mine
    assert "entry-done" in mine


def test_the_club_list_counts_everyone_who_took_part(client, running, mh):
    match, owner, admin, players = running
    mh.drive(match, absent=[players[2]])
    html = get(client, owner, reverse("matches:list", args=[match.club_id])).content.decode()
    assert "3/60" in html


def test_fair_seating_is_explained_in_chinese_with_the_technical_detail_folded(client, running):
    match, owner, admin, players = running
    html = get(client, players[0], reverse("matches:detail", args=[match.pk])).content.decode()
    section = html[html.index('id="fairness"'):]
    section = section[:section.index("</section>")]
    assert '<details class="tech">' in section and "<summary>技术细节</summary>" in section
    outside = re.sub(r'<details class="tech">.*?</details>', "", section, flags=re.S)
    assert "抽签" in outside and "种子" in outside
    for word in ("RULES", "python", "sha256", match.seed, match.seed_hash):
        assert word not in outside, word
    assert match.seed in section and "python -m" in section  # inside the disclosure


def test_pairs_kept_together_are_named_with_why(client, match_club, make_match, mh):
    from apps.accounts.services import address_seen

    club, owner, admin, players = match_club(n=3)
    for p in players[:2]:
        address_seen(user=p, ip="203.0.113.7")
    match = make_match(club, owner, entry_fee=0, rounds=1)
    mh.register_all(match, players)
    mh.start(match)
    assert match.match_rounds.get(number=1).avoid_broken == 1
    html = get(client, owner, reverse("matches:detail", args=[match.pk])).content.decode()
    a, b = players[0].display_name, players[1].display_name
    names = re.compile(f"({a} 和 {b}|{b} 和 {a})（第1桌）")  # in seat order
    assert "有 1 对本应分开的选手只能同桌" in html and names.search(html) and "同一网络地址" in html
    console = get(client, owner, reverse("matches:console", args=[match.pk])).content.decode()
    assert names.search(console) and "同一网络地址" in console
    # a player reads why, not who shared an address
    html = get(client, players[2], reverse("matches:detail", args=[match.pk])).content.decode()
    assert "有 1 对本应分开的选手只能同桌" in html and "同一网络地址" in html and not names.search(html)


def test_status_words_one_vocabulary(running, mh):
    """Each stored status reads as one word, and a match's end changes 比赛中 to 已完赛."""
    from apps.clubs.models import Membership
    from apps.matches.status import entrant_status, entrant_statuses

    match, owner, admin, players = running
    e = Entrant.objects.get(match=match, user=players[0])
    assert entrant_status(e, match).label == "比赛中"
    e.absent_rounds = 1
    shown = entrant_status(e, match)
    assert shown.key == "absent" and shown.label == "缺席" and "托管" in shown.reason
    e.absent_rounds, e.status, e.out_round = 0, EntrantStatus.WITHDRAWN, 1
    assert entrant_status(e, match).label == "已退赛" and "第1轮退赛" in entrant_status(e, match).reason
    # a player who left the club during the match is disqualified, and says so
    e.save()
    Membership.objects.filter(club=match.club, user=players[0]).delete()
    shown = entrant_statuses([e], match)[players[0].pk]
    assert shown.key == "disqualified" and shown.label == "取消资格" and "离开了俱乐部" in shown.reason
    e.status, e.out_round = EntrantStatus.OUT, 1
    assert entrant_status(e, match).label == "已出局"
    e.status, e.out_round = EntrantStatus.DROPPED, None
    assert entrant_status(e, match).label == "未签到" and "退还" in entrant_status(e, match).reason


def test_rounds_and_tables_read_in_progress_then_finished(client, running, mh):
    match, owner, admin, players = running
    html = get(client, players[0], reverse("matches:detail", args=[match.pk])).content.decode()
    seatings = html[html.index('id="seatings"'):]
    seatings = seatings[:seatings.index("</section>")]
    assert "进行中" in seatings and "已结束" not in seatings and "完成" not in seatings
    mh.drive(match)
    html = get(client, players[0], reverse("matches:detail", args=[match.pk])).content.decode()
    seatings = html[html.index('id="seatings"'):]
    seatings = seatings[:seatings.index("</section>")]
    assert "已结束" in seatings and "进行中" not in seatings and "完成" not in seatings


def test_a_finished_table_in_the_seatings_links_its_hands_for_its_players_and_the_admins(client, running, mh):
    """After a round a player finds the replays of his own table from the match page (the round
    seatings); other members see no link (the hands list is for the table's players), admins see all."""
    match, owner, admin, players = running
    url = reverse("matches:detail", args=[match.pk])
    html = get(client, players[0], url).content.decode()
    assert "hands-link" not in html  # round 1 is still being played
    mh.drive(match)
    tables = list(MatchTable.objects.filter(match=match).values_list("table_id", flat=True))
    assert tables
    links = [reverse("replays:table_hands", args=[t]) for t in tables]
    html = get(client, players[0], url).content.decode()
    mine = re.findall(r'<div class="seating mine">.*?</div>', html, re.S)
    assert mine and all(links_in in "".join(mine) for links_in in links)
    assert all("对局回放" in block for block in mine)
    outsider = get(client, players[3], url).content.decode()
    assert "hands-link" not in outsider
    for manager in (owner, admin):
        html = get(client, manager, url).content.decode()
        assert all(link in html for link in links)
