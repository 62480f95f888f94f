"""A table snapshots its template's fee (桌费) when it opens; the lobby shows it; the database
refuses a negative fee or an unknown payer."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from apps.clubs import services as club_services
from apps.tables.models import Table, TableEvent
from apps.tables.verbs import services


def test_table_snapshots_the_fee_and_later_template_edits_do_not_change_it(club, players, make_template):
    template = make_template(name="收费")
    club_services.template_update(template=template, by=players[0], name=template.name, fee=2, fee_payer="winner")
    table = services.table_open(user=players[0], template=template)
    assert (table.fee, table.fee_payer) == (2, "winner")
    opened = TableEvent.objects.get(table=table, type="table.open")
    assert (opened.payload["fee"], opened.payload["fee_payer"]) == (2, "winner")  # in the hash chain

    club_services.template_update(template=template, by=players[0], name=template.name, fee=9, fee_payer="each")
    table.refresh_from_db()
    assert (table.fee, table.fee_payer) == (2, "winner")
    later = services.table_open(user=players[1], template=template)
    assert (later.fee, later.fee_payer) == (9, "each")


def test_template_without_a_fee_opens_a_table_without_one(players, template):
    table = services.table_open(user=players[0], template=template)
    assert (table.fee, table.fee_payer) == (0, "each")


@pytest.mark.parametrize("bad", [{"fee": -1}, {"fee_payer": "loser"}])
def test_table_fee_check_constraints(club, players, bad):
    fields = {"club": club, "name": "t", "preset": "full", "players": 3, "created_by": players[0]}
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.create(**fields, **bad)
    Table.objects.create(**fields, fee=0, fee_payer="winner")


def test_lobby_shows_the_fee_of_open_tables_and_templates(client, club, players, make_template):
    template = make_template(name="收费")
    club_services.template_update(template=template, by=players[0], name=template.name, fee=3, fee_payer="each")
    services.table_open(user=players[0], template=template)
    client.force_login(players[1])
    html = client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    tables_section = html[html.index('id="tables"'):html.index('id="templates"')]
    assert "桌费 3（每人每局）" in tables_section  # the open table and the template to open one from
    assert tables_section.count("桌费 3（每人每局）") == 2


def test_lobby_shows_no_fee_for_practice_tables(client, club, players, make_template):
    template = make_template(name="收费")
    club_services.template_update(template=template, by=players[0], name=template.name, fee=3, fee_payer="each")
    services.table_open(user=players[0], template=template, practice=True)
    client.force_login(players[0])
    html = client.get(reverse("clubs:detail", args=[club.pk])).content.decode()
    open_tables = html[html.index('class="list cards tables-list"'):html.index('class="form open-table"')]
    assert "桌费" not in open_tables


@pytest.mark.parametrize("payer", ["each", "winner"])
def test_settlement_panel_state_shows_each_seats_fee_as_the_ledger_posts_it(
    club, players, make_template, payer, django_capture_on_commit_callbacks
):
    """RULES.md §9.3 (a fee is not part of the rules): the table page's settlement shows who paid the
    fee for the hand; the ledger's fee lines for that hand say the same."""
    from apps.ledgers.models import Entry
    from apps.tables.transaction.snapshot import table_snapshot
    from tests.tables.helpers import open_and_play_hand

    template = make_template(name="收费")
    club_services.template_update(template=template, by=players[0], fee=3, fee_payer=payer)
    with django_capture_on_commit_callbacks(execute=True):
        hand = open_and_play_hand(template, players)
    hand.refresh_from_db()
    table = hand.table
    state = table_snapshot(table_id=table.pk, viewer=0)["state"]
    assert (state["fee"], state["fee_payer"]) == (3, payer)
    shown = state["hand"]["fees"]
    posted = {str(e.seat): -e.amount for e in Entry.objects.filter(transaction__hand=hand, kind="fee", amount__lt=0)}
    assert shown == posted
    winner = (hand.result or {}).get("winner")
    if payer == "each":
        assert shown == {"0": 3, "1": 3, "2": 3}
    else:
        assert shown == ({} if winner is None else {str(winner): 3})


def test_fee_rule_examples():
    import doctest

    from apps.clubs import fees

    result = doctest.testmod(fees)
    assert result.attempted >= 4 and result.failed == 0
