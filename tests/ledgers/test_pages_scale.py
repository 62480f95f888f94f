"""Ledger pages cost their page size: keyset pages (no OFFSET, no COUNT of the history) walk every
entry exactly once both ways, a fixed number of queries whatever the history; fee income comes
from the buckets and equals the sum of the fee lines for any range."""

from __future__ import annotations

from datetime import date, timedelta
from types import SimpleNamespace

import pytest
from django.db import connection
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.clubs.models import Membership
from apps.ledgers import selectors, services, views
from apps.ledgers.models import Entry


def adjust(people, n, key="member"):
    member = Membership.objects.get(club=people["club"], user=people[key])
    for i in range(n):
        services.adjustment_create(club=people["club"], member=member, amount=i + 1, reason=f"r{i}", by=people["owner"])


def walk(client, path):
    """Every row id over the older links, then back over the newer links; the queries per page."""
    ids, pages, queries = [], [], []
    url = path
    while url:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url)
        assert response.status_code == 200
        queries.append(len(ctx.captured_queries))
        page = response.context["page"]
        pages.append([r["e"].pk for r in response.context["rows"]])
        ids += pages[-1]
        url = path.split("?")[0] + page.older_url if page.older_url else None
    back = []
    page = response.context["page"]
    while page.newer_url:
        response = client.get(path.split("?")[0] + page.newer_url)
        page = response.context["page"]
        back.append([r["e"].pk for r in response.context["rows"]])
    assert back == pages[:-1][::-1]
    return ids, queries


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 7)


def test_club_ledger_pages_walk_every_entry_once(client, people, make_finished_hand, small_pages):
    services.settle_hand(hand_id=make_finished_hand(fee=1).pk)
    adjust(people, 12)
    client.force_login(people["owner"])
    ids, queries = walk(client, f"/ledgers/{people['club'].pk}/")
    expected = list(Entry.objects.filter(transaction__club=people["club"]).order_by("-transaction_id", "id")
                    .values_list("pk", flat=True))
    assert ids == expected and len(queries) == -(-len(expected) // 7)
    assert len(set(queries)) == 1  # the first page and the deepest cost the same


def test_my_ledger_pages_and_a_filter_kept_in_the_links(client, people, make_finished_hand, small_pages):
    adjust(people, 16)
    client.force_login(people["member"])
    ids, queries = walk(client, f"/ledgers/{people['club'].pk}/me/")
    account = selectors.member_account(club=people["club"], user=people["member"])
    assert ids == list(Entry.objects.filter(account=account).order_by("-transaction_id").values_list("pk", flat=True))
    assert len(set(queries)) == 1
    client.force_login(people["owner"])
    response = client.get(f"/ledgers/{people['club'].pk}/", {"kind": "adjustment"})
    assert "kind=adjustment" in response.context["page"].older_url


def test_a_deep_page_bounds_the_transaction_side_of_the_join(client, people, make_finished_hand, small_pages):
    """The cursor bounds ledgers_transaction.id as well as the entry's transaction_id: PostgreSQL
    does not carry the inequality across the join, and at 10^6 hands the club ledger's deep page
    walked every newer transaction (560 ms) without it."""
    services.settle_hand(hand_id=make_finished_hand(fee=1).pk)
    adjust(people, 12)
    client.force_login(people["owner"])
    path = f"/ledgers/{people['club'].pk}/"
    page = client.get(path).context["page"]
    for link, op in ((page.older_url, "<="), (None, ">=")):
        if link is None:  # back from the second page
            link = client.get(path + page.older_url).context["page"].newer_url
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(path + link)
        assert response.status_code == 200 and response.context["rows"]
        entry_sql = [q["sql"] for q in ctx.captured_queries if 'FROM "ledgers_entry"' in q["sql"]
                     and "ORDER BY" in q["sql"]]
        assert entry_sql and all(f'"ledgers_transaction"."id") {op}' in q for q in entry_sql), entry_sql


def test_a_malformed_cursor_is_a_bad_request(client, people):
    adjust(people, 1)
    client.force_login(people["member"])
    for bad in ("x", "1", "1.2.3", "-1.2", "99999999999999999999.1"):
        assert client.get(f"/ledgers/{people['club'].pk}/me/", {"older": bad}).status_code == 400


def test_ledger_page_queries_do_not_grow_with_history(client, people, make_finished_hand):
    def queries(path, user):
        client.force_login(people[user])
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(path).status_code == 200
        return len(ctx.captured_queries)

    club = people["club"]
    pages = [(f"/ledgers/{club.pk}/", "owner"), (f"/ledgers/{club.pk}/me/", "member"),
             (f"/ledgers/{club.pk}/", "owner")]
    hand = make_finished_hand(fee=1)
    services.settle_hand(hand_id=hand.pk)
    adjust(people, 1)
    small = [queries(p, u) for p, u in pages]
    for _ in range(5):
        services.settle_hand(hand_id=make_finished_hand(table=hand.table, fee=1).pk)
    adjust(people, 60)
    assert [queries(p, u) for p, u in pages] == small


def fee_lines(club, user=None, since=None, until=None):
    qs = Entry.objects.filter(transaction__club=club, kind="fee", account__kind="club" if user is None else "member")
    if user is not None:
        qs = qs.filter(account__user=user)
    if since:
        qs = qs.filter(transaction__created_at__gte=selectors.day_bounds(since))
    if until:
        qs = qs.filter(transaction__created_at__lt=selectors.day_bounds(until + timedelta(days=1)))
    total = qs.aggregate(t=Sum("amount"))["t"] or 0
    return total if user is None else -total


def test_fee_income_from_buckets_equals_the_fee_lines(people, make_finished_hand, monkeypatch):
    now = timezone.now()
    table = None
    for days in (0, 1, 20, 40, 41, 75, 200):
        hand = make_finished_hand(table=table, fee=2, fee_payer="each")
        table = hand.table
        monkeypatch.setattr(services, "timezone", SimpleNamespace(now=lambda d=days: now - timedelta(days=d)))
        services.settle_hand(hand_id=hand.pk)
    monkeypatch.setattr(services, "timezone", timezone)
    club, today = people["club"], timezone.localdate()
    ranges = [(None, None), (today, today), (today - timedelta(days=45), None), (None, today - timedelta(days=30)),
              (today - timedelta(days=250), today - timedelta(days=10)), (date(1990, 1, 1), date(2999, 1, 1)),
              (today + timedelta(days=1), None), (date(1990, 1, 1), date(1990, 2, 1))]
    for since, until in ranges:
        for user in (None, people["member"]):
            got = selectors.fee_income(club=club, user_id=user and user.pk, date_from=since, date_to=until)
            assert got == fee_lines(club, user, since, until), (since, until, user)
    assert selectors.fee_income(club=club) == 7 * 2 * 3
