"""The replay pages: the viewer's data (every seat's hand, claim windows, declined wins, times), the
server-rendered checklist (red when tampered), a query count that does not grow with the events, the
table's 大局 list with its totals, and the links from the table and club pages."""

from __future__ import annotations

import json
import random

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.replays.selectors import annotate_frames
from apps.tables.models import Hand, TableEvent
from tests.tables.helpers import play_hand_via_services, ready_all


def page_data(response) -> dict:
    html = response.content.decode()
    return json.loads(html.split('id="replay-data" type="application/json">')[1].split("</script>")[0])


def second_hand(world) -> Hand:
    ready_all(world.table.pk, world.players)
    return play_hand_via_services(world.table.pk, world.players, rng=random.Random(7))


def test_the_viewer_gets_every_frame_with_every_hand(world, client):
    client.force_login(world.players[2])
    response = client.get(reverse("replays:hand", args=[world.hand.pk]))
    data = page_data(response)
    actions = TableEvent.objects.filter(hand=world.hand, type="action").count()
    assert len(data["frames"]) == actions + 1
    assert data["me"] == 2 and data["hand"]["seed"] == world.hand.seed
    assert [s["name"] for s in data["seats"]] == [p.name for p in world.players]
    for frame in data["frames"]:
        assert all(cards is not None for cards in frame["view"]["hands"].values())
        assert frame["time"] is not None
    assert data["frames"][-1]["view"]["finished"] is True
    assert data["frames"][-1]["view"]["result"] == world.hand.result
    assert [f["time"] for f in data["frames"]] == sorted(f["time"] for f in data["frames"])
    html = response.content.decode()
    assert world.hand.seed_hash in html and world.hand.seed in html  # the commitment and the seed
    assert reverse("replays:export", args=[world.hand.pk]) in html
    assert reverse("audit:dispute_create", args=[world.hand.pk]) in html  # players may file a dispute
    client.force_login(world.admin)
    assert reverse("audit:dispute_create", args=[world.hand.pk]) not in client.get(
        reverse("replays:hand", args=[world.hand.pk])).content.decode()


def test_declined_wins_are_marked():
    frames = [
        {"index": 0, "actor": None, "action": None, "view": {"claim": {"options": {1: ["hu", "pass"], 2: ["peng", "pass"]}}}},
        {"index": 1, "actor": 1, "action": {"type": "pass"}, "view": {"claim": {"options": {1: ["hu", "pass"], 2: ["peng", "pass"]}}}},
        {"index": 2, "actor": 2, "action": {"type": "pass"}, "view": {"claim": {"options": {"0": ["hu", "pass"]}}}},
        {"index": 3, "actor": 0, "action": {"type": "hu"}, "view": {"claim": None}},
        {"index": 4, "actor": 0, "action": {"type": "discard", "card": "s1"}, "view": {"claim": None}},
    ]
    annotate_frames(frames)
    assert [f["declined_hu"] for f in frames] == [False, True, False, False, False]


def test_the_checklist_is_rendered_and_turns_red_when_tampered(world, client):
    client.force_login(world.owner)
    html = client.get(reverse("replays:hand", args=[world.hand.pk])).content.decode()
    assert 'data-key="commitment"' in html and 'class="check ok" data-key="commitment"' in html
    assert 'class="check ok" data-key="replay"' in html and 'class="check ok" data-key="chain"' in html
    # Change one discard's card in the stored log: the page says the replay and the chain fail.
    ev = next(e for e in TableEvent.objects.filter(hand=world.hand, type="engine").order_by("seq")
              if e.payload.get("type") == "discard")
    payload = dict(ev.payload, card="b10" if ev.payload["card"] != "b10" else "s1")
    TableEvent.objects.filter(pk=ev.pk).update(payload=payload)
    response = client.get(reverse("replays:hand", args=[world.hand.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="verdict bad"' in html
    assert 'class="check bad" data-key="chain"' in html
    assert html.count('class="check bad"') >= 1


def test_the_page_query_count_does_not_grow_with_the_events(world, client, django_assert_max_num_queries):
    longer = second_hand(world)
    short, long_ = sorted([world.hand, longer], key=lambda h: TableEvent.objects.filter(hand=h).count())
    n_short = TableEvent.objects.filter(hand=short).count()
    n_long = TableEvent.objects.filter(hand=long_).count()
    assert n_long > n_short, "the two hands should differ in length"
    client.force_login(world.admin)  # an audited view: the audit log insert is counted too
    counts = []
    for hand in (short, long_):
        url = reverse("replays:hand", args=[hand.pk])
        client.get(url)  # warm the session/user caches alike for both
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        counts.append(len(ctx.captured_queries))
        with django_assert_max_num_queries(30):
            client.get(url)
    assert counts[0] == counts[1], (counts, n_short, n_long)


def test_the_table_hands_page_lists_winners_scores_and_totals(world, client):
    second = second_hand(world)
    client.force_login(world.players[0])
    response = client.get(reverse("replays:table_hands", args=[world.table.pk]))
    html = response.content.decode()
    for hand in (world.hand, second):
        assert reverse("replays:hand", args=[hand.pk]) in html
    totals = {s: 0 for s in range(3)}
    for hand in Hand.objects.filter(table=world.table):
        for seat, value in hand.totals["total"].items():
            totals[int(seat)] += value
    foot = html[html.index("<tfoot>"):html.index("</tfoot>")]
    for seat in range(3):
        value = totals[seat]
        assert (f"+{value}" if value > 0 else str(value)) in foot
    assert reverse("replays:table_export", args=[world.table.pk]) in html
    doc = json.loads(client.get(reverse("replays:table_export", args=[world.table.pk])).content)
    assert doc["scope"] == "session" and len(doc["hands"]) == 2


def test_the_table_page_links_its_replays(world, client):
    client.force_login(world.players[0])
    html = client.get(reverse("tables:detail", args=[world.table.pk])).content.decode()
    config = json.loads(html.split('id="table-config" type="application/json">')[1].split("</script>")[0])
    hands_url = reverse("replays:table_hands", args=[world.table.pk])
    assert config["handsUrl"] == hands_url
    replay = config["replayUrl"] % {"number": world.hand.number}
    assert client.get(replay)["Location"] == reverse("replays:hand", args=[world.hand.pk])


def test_the_club_page_links_a_closed_tables_hands(world, client):
    second_hand(world)  # the session (2 hands) ends
    client.force_login(world.players[1])
    html = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert reverse("replays:table_hands", args=[world.table.pk]) in html
    client.force_login(world.member)  # a member who did not play sees no link to it
    html = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert reverse("replays:table_hands", args=[world.table.pk]) not in html


def test_the_page_is_in_chinese_and_in_english(world, client):
    client.force_login(world.players[0])
    html = client.get(reverse("replays:hand", args=[world.hand.pk])).content.decode()
    assert "公平性证明" in html and "出牌记录" in html and "分享回放" in html
    client.cookies["django_language"] = "en"
    html = client.get(reverse("replays:hand", args=[world.hand.pk])).content.decode()
    assert "Fairness proof" in html and "Share this replay" in html
