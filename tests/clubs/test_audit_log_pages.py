"""The club audit log pages cost their page size: keyset pages newest first, every entry once,
filters kept in the links, the same number of queries for a short and a long history."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.clubs import services, views
from apps.clubs.models import AuditLog


def test_audit_log_pages_walk_every_entry_and_cost_the_same(client, make_user, make_club, monkeypatch):
    monkeypatch.setattr(views, "AUDIT_PAGE", 5)
    owner, member = make_user("owner"), make_user("member")
    club = make_club("A", owner=owner, members=[member])
    client.force_login(owner)
    path = f"/clubs/{club.pk}/audit/"

    def pages(query=""):
        url, seen, queries = path + query, [], []
        while url:
            with CaptureQueriesContext(connection) as ctx:
                response = client.get(url)
            assert response.status_code == 200
            queries.append(len(ctx.captured_queries))
            seen += [row.entry.pk for row in response.context["rows"]]
            older = response.context["page"].older_url
            url = path + older if older else None
        return seen, queries

    services.audit_log(club=club, actor=owner, action="member.remove", target_user=member)
    _, (small,) = pages()
    for i in range(23):
        services.audit_log(club=club, actor=owner, action="member.ban" if i % 2 else "member.remove",
                           target_user=member, detail={"n": i})
    seen, queries = pages()
    assert seen == list(AuditLog.objects.filter(club=club).order_by("-id").values_list("pk", flat=True))
    assert set(queries) == {small}
    seen, _ = pages("?action=member.ban")
    assert seen == list(AuditLog.objects.filter(club=club, action="member.ban").order_by("-id")
                        .values_list("pk", flat=True))
    assert client.get(path, {"older": "nope"}).status_code == 400
    from apps.clubs import audit

    assert {a for a, _label in audit.action_choices(club)} == set(
        AuditLog.objects.filter(club=club).values_list("action", flat=True))
