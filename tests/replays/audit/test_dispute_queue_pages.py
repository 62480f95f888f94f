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


def test_a_dispute_page_and_its_refresh_cost_the_same_open_or_resolved(client, make_user, make_club):
    """The dispute page (its facts and actions refetch themselves on a review or an answer by another
    judge, data-live-refresh): a fixed number of queries, whatever state the dispute is in."""
    owner, admin, a, b = make_user("owner"), make_user("admin"), make_user("a"), make_user("b")
    club = make_club("A", owner=owner, admins=[admin], members=[a, b])
    table = Table.objects.create(club=club, name="t", preset="full", players=3, ruleset={}, created_by=owner)
    hand = Hand.objects.create(table=table, number=1, dealer=0, seed_hash="0" * 64, ruleset={},
                               players={"0": a.pk, "1": b.pk, "2": None})
    dispute = Dispute.objects.create(club=club, hand=hand, filed_by=a, reason="r")
    url = reverse("audit:dispute", args=[club.pk, dispute.pk])
    client.force_login(owner)
    counts = []
    for change in ({}, {"status": "reviewing", "reviewer": admin, "reviewing_at": timezone.now()},
                   {"status": "resolved", "resolved_by": admin, "resolved_at": timezone.now(), "outcome": "没问题"}):
        Dispute.objects.filter(pk=dispute.pk).update(**change)
        with CaptureQueriesContext(connection) as ctx:
            page = client.get(url).content.decode()
        counts.append(len(ctx.captured_queries))
        assert 'id="dispute-facts"' in page and 'id="dispute-actions"' in page
        assert 'id="nav-disputes" data-live-refresh="dispute_filed dispute_reviewing dispute_resolved"' in page
    assert "没问题" in page
    assert len(set(counts)) == 1, counts
