"""A table snapshots its template's fee (桌费) when it opens; the database refuses a negative fee
or an unknown payer."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from apps.clubs import services as club_services
from apps.tables import services
from apps.tables.models import Table, TableEvent


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
