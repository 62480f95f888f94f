"""The dispute queue costs its page size: keyset pages newest first, by status too, and the same
number of queries for a short and a long history."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.replays.audit import views
from apps.replays.audit.models import Dispute
from apps.tables.models import Hand, Table


def test_dispute_queue_pages(client, make_user, make_club, monkeypatch):
    monkeypatch.setattr(views, "DISPUTE_PAGE", 4)
    owner, a, b = make_user("owner"), make_user("a"), make_user("b")
    club = make_club("A", owner=owner, members=[a, b])
    table = Table.objects.create(club=club, name="t", preset="full", players=3, ruleset={}, created_by=owner)
    hands = [Hand.objects.create(table=table, number=n, dealer=0, seed_hash="0" * 64, ruleset={},
                                 players={"0": a.pk, "1": b.pk, "2": owner.pk}) for n in range(1, 15)]
    path = reverse("audit:disputes", args=[club.pk])
    client.force_login(owner)

    def walk(query=""):
        url, seen, queries = path + query, [], []
        while url:
            with CaptureQueriesContext(connection) as ctx:
                response = client.get(url)
            assert response.status_code == 200
            queries.append(len(ctx.captured_queries))
            seen += [item["d"].pk for item in response.context["items"]]
            older = response.context["page"].older_url
            url = path + older if older else None
        return seen, queries

    Dispute.objects.create(club=club, hand=hands[0], filed_by=a, reason="r")
    _, (small,) = walk()
    for i, hand in enumerate(hands[1:]):
        resolved = {"status": "resolved", "resolved_at": timezone.now(), "outcome": "ok"} if i % 3 else {}
        Dispute.objects.create(club=club, hand=hand, filed_by=b if i % 2 else a, reason=f"r{i}", **resolved)
    seen, queries = walk()
    assert seen == list(Dispute.objects.filter(club=club).order_by("-id").values_list("pk", flat=True))
    assert set(queries) == {small}
    seen, _ = walk("?status=open")
    assert seen == list(Dispute.objects.filter(club=club, status="open").order_by("-id").values_list("pk", flat=True))
