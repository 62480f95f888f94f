"""Issue #47, the table life: 快捷语 and reactions (apps/tables/verbs/phrases.py).

- A seated player's phrase is stored (its id, seat, sender, time; no free text) and announced to
  the table's group; it never touches the hand, its hash-chained log or the table row, and takes
  no lock (one SELECT, one INSERT).
- Refusals change nothing: an unknown or malformed id, a spectator, an ended table, the
  rule-template option 关闭快捷语, the seat's rate limit (one per 3 s, 10 a minute).
- The daily retention job purges rows older than 30 days; the club's managers read the last 30
  days, nobody else.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.clubs import services as club_services
from apps.clubs.models import RuleTemplate
from apps.replays.tasks import compact_old_events
from apps.tables import phrasebook
from apps.tables.live.limits import SeatPhrases
from apps.tables.models import Table, TableEvent, TablePhrase
from apps.tables.transaction.context import TableError
from apps.tables.verbs import phrases, services
from tests.tables.helpers import ready_all

pytestmark = pytest.mark.django_db


def table_row(table_id):
    t = Table.objects.get(pk=table_id)
    return (t.seq, t.rev, t.last_hash, t.view_seqs, TableEvent.objects.filter(table_id=table_id).count())


def test_every_id_fits_its_column_and_has_words_in_both_languages():
    from django.utils.translation import override

    assert len(phrasebook.PHRASES) == 12 and len(phrasebook.REACTIONS) == 6
    assert all(len(i) <= phrasebook.MAX_ID_LENGTH for i in phrasebook.PHRASE_IDS)
    with override("zh-hans"):
        zh = phrasebook.page_list()
    with override("en"):
        en = phrasebook.page_list()
    assert zh["phrases"][0]["text"] == "快点吧，等得花儿都谢了"
    assert en["phrases"][0]["text"] == "Hurry up, the flowers have wilted waiting for you"
    assert all(a["text"] != b["text"] for a, b in zip(zh["phrases"] + zh["reactions"], en["phrases"] + en["reactions"], strict=True))
    with override("zh-hans"):
        zh_words = phrasebook.page_strings()
    with override("en"):
        en_words = phrasebook.page_strings()
    assert [k for k in zh_words if zh_words[k] == en_words[k]] == []  # every word of the sheet translated


def test_seated_phrase_is_stored_and_announced_without_touching_the_hand(full_table, players):
    ready_all(full_table.pk, players)  # a hand in play
    before = table_row(full_table.pk)
    with CaptureQueriesContext(connection) as queries:
        sends = phrases.phrase_send(user=players[1], table_id=full_table.pk, phrase="hurry")
    assert sends == [(f"table.{full_table.pk}", {"type": "table.phrase", "table": full_table.pk, "seat": 1,
                                                  "phrase": "hurry", "id": TablePhrase.objects.get().pk})]
    assert table_row(full_table.pk) == before  # no event, no seq, no rev: not game state
    sql = [q["sql"].upper() for q in queries.captured_queries]
    assert len(sql) == 2 and sql[0].startswith("SELECT") and sql[1].startswith("INSERT")  # no lock, no unit of work
    assert not any("FOR UPDATE" in q or "UPDATE " in q.split("(")[0] for q in sql)
    row = TablePhrase.objects.get()
    assert (row.table_id, row.club_id, row.user_id, row.seat, row.phrase) == (
        full_table.pk, full_table.club_id, players[1].pk, 1, "hurry")


@pytest.mark.parametrize("bad", ["shout", "", None, 3, ["hurry"], {"id": "hurry"}, "HURRY", "hurry "])
def test_unknown_or_malformed_phrase_refused(full_table, players, bad):
    with pytest.raises(TableError) as err:
        phrases.phrase_send(user=players[0], table_id=full_table.pk, phrase=bad)
    assert err.value.code == "bad_phrase"
    assert not TablePhrase.objects.exists()


def test_spectator_and_strangers_cannot_send(full_table, club, make_user):
    for user in (club.admin_user, make_user()):  # a manager watching; someone with no seat at all
        with pytest.raises(TableError) as err:
            phrases.phrase_send(user=user, table_id=full_table.pk, phrase="like")
        assert err.value.code == "not_seated"
    with pytest.raises(TableError) as err:
        phrases.phrase_send(user=club.admin_user, table_id=999999, phrase="like")
    assert err.value.code == "no_table"
    assert not TablePhrase.objects.exists()


def test_ended_table_refuses(full_table, players):
    Table.objects.filter(pk=full_table.pk).update(status="dissolved")
    with pytest.raises(TableError) as err:
        phrases.phrase_send(user=players[0], table_id=full_table.pk, phrase="bye")
    assert err.value.code == "table_closed"
    assert not TablePhrase.objects.exists()


def test_template_option_turns_them_off_for_its_tables(players, club, make_template):
    quiet = make_template(name="安静桌")
    club_services.template_update(template=quiet, by=players[0], no_phrases=True)
    table = services.table_open(user=players[0], template=RuleTemplate.objects.get(pk=quiet.pk))
    assert table.no_phrases
    with pytest.raises(TableError) as err:
        phrases.phrase_send(user=players[0], table_id=table.pk, phrase="hello")
    assert err.value.code == "phrases_off"
    assert not TablePhrase.objects.exists()
    # another template's table (the option off by default) allows them
    loud = services.table_open(user=players[1], template=make_template(name="热闹桌"))
    assert not loud.no_phrases
    phrases.phrase_send(user=players[1], table_id=loud.pk, phrase="hello")
    assert TablePhrase.objects.count() == 1


def test_table_page_offers_them_only_where_allowed(client, players, club, make_template):
    import json
    import re

    def config(table):
        page = client.get(reverse("tables:detail", args=[table.pk])).content.decode()
        return json.loads(re.search(r'<script id="table-config" type="application/json">(.*?)</script>', page, re.S)[1])

    client.force_login(players[0])
    loud = services.table_open(user=players[0], template=make_template(name="热闹桌"))
    lists = config(loud)["phrases"]
    assert [p["id"] for p in lists["phrases"]] == [p.id for p in phrasebook.PHRASES]
    assert lists["phrases"][0]["text"] == "快点吧，等得花儿都谢了" and lists["reactions"][0]["emoji"] == "👍"
    quiet = make_template(name="安静桌")
    club_services.template_update(template=quiet, by=players[0], no_phrases=True)
    table = services.table_open(user=players[1], template=RuleTemplate.objects.get(pk=quiet.pk))
    assert config(table)["phrases"] is None
    page = client.get(reverse("tables:detail", args=[table.pk])).content.decode()
    assert "已关闭快捷语和表情。" in page  # in the table's 玩法 lines


def test_template_form_saves_the_option(client, club, players):
    client.force_login(players[0])
    data = {"name": "不聊天", "preset": "full", "players": "3", "base_score": "1", "hands_per_session": "8",
            "turn_seconds": "15", "claim_seconds": "15", "piao_choices": "", "fee": "0", "fee_payer": "each",
            "no_phrases": "on"}
    response = client.post(reverse("clubs:template_create", args=[club.pk]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert RuleTemplate.objects.get(name="不聊天").no_phrases is True
    data.update(name="聊天", no_phrases="")
    client.post(reverse("clubs:template_create", args=[club.pk]), {k: v for k, v in data.items() if v != ""})
    assert RuleTemplate.objects.get(name="聊天").no_phrases is False


def test_rate_limit_per_seat_one_per_3s_and_10_a_minute(full_table, players):
    clock = [1000.0]
    limiter = SeatPhrases()

    def send(user, phrase="like"):
        return phrases.phrase_send(user=user, table_id=full_table.pk, phrase=phrase,
                                   limit=lambda key: limiter.take(key, now=clock[0]))

    send(players[0])
    with pytest.raises(phrases.PhraseTooFast) as err:
        send(players[0], "hurry")
    assert err.value.code == "phrase_too_fast" and err.value.extra == {"retry_after": 3.0}
    send(players[1])  # another seat: its own limit
    assert TablePhrase.objects.filter(user=players[0]).count() == 1
    sent = 1
    for _ in range(20):  # one every 3 s for a minute: the minute's 10 run out first
        clock[0] += 3.0
        try:
            send(players[0])
            sent += 1
        except phrases.PhraseTooFast:
            pass
    assert sent == 10 + 1  # ten in the first minute (t=0..27 s), then the one at t=60 s
    assert TablePhrase.objects.filter(user=players[0]).count() == sent
    clock[0] += 60.0
    send(players[0])  # a quiet minute later: allowed again


def test_refused_phrase_takes_no_token(full_table, players, club):
    limiter = SeatPhrases()
    with pytest.raises(TableError):
        phrases.phrase_send(user=players[0], table_id=full_table.pk, phrase="nope", limit=limiter.take)
    phrases.phrase_send(user=players[0], table_id=full_table.pk, phrase="like", limit=limiter.take)


def test_daily_job_purges_older_than_30_days(full_table, players):
    now = timezone.now()
    for days in (31, 30.5, 29, 0):
        TablePhrase.objects.create(table=full_table, club_id=full_table.club_id, user=players[0], seat=0,
                                   phrase="like", sent_at=now - timedelta(days=days))
    compact_old_events()
    left = sorted(round((now - r.sent_at).total_seconds() / 86400) for r in TablePhrase.objects.all())
    assert left == [0, 29]


def test_managers_read_the_club_log_of_30_days(client, full_table, players, club, make_club, make_user):
    now = timezone.now()
    TablePhrase.objects.create(table=full_table, club_id=full_table.club_id, user=players[1], seat=1,
                               phrase="hurry", sent_at=now - timedelta(minutes=5))
    TablePhrase.objects.create(table=full_table, club_id=full_table.club_id, user=players[2], seat=2,
                               phrase="bomb", sent_at=now - timedelta(days=31))  # not purged yet: not shown
    other = make_club(name="别的俱乐部", owner=make_user())
    url = reverse("tables:phrase_log", args=[club.pk])
    client.force_login(club.admin_user)
    page = client.get(url).content.decode()
    assert "玩家1" in page and "快点吧，等得花儿都谢了" in page and full_table.name in page
    assert "💣" not in page and 'data-phrase="bomb"' not in page
    assert client.get(reverse("tables:phrase_log", args=[other.pk])).status_code == 404
    club_page = client.get(reverse("clubs:audit", args=[club.pk])).content.decode()
    assert url in club_page  # linked from the club's manage tabs
    client.force_login(players[1])  # a plain member
    assert client.get(url).status_code == 403
    assert url not in client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
