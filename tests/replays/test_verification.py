"""The verification checklist catches each kind of tampering with the DATABASE rows of a hand.

Each test plays a real hand through the services (the ledger settles it after commit), tampers
with its rows the way an insider with database access could, and asserts what ``checklist`` says.
Ledger rows are append-only (the model refuses, and on PostgreSQL triggers refuse too): those
tests tamper with raw SQL and, on PostgreSQL, disable the refusing trigger inside the test's own
transaction (rolled back afterwards).
"""

from __future__ import annotations

import json

import pytest
from django.db import connection

from apps.ledgers.models import Entry, Transaction
from apps.replays.verification import LABELS, Check, checklist, session_checklists
from apps.tables.models import Hand, Table, TableEvent

ENGINE_KEYS = ["commitment", "deck", "replay", "chain", "settlement", "ledger", "snapshot"]


def verdict(hand: Hand) -> dict[str, Check]:
    checks = checklist(Hand.objects.get(pk=hand.pk))
    return {c.key: c for c in checks}


def failed(hand: Hand) -> dict[str, str]:
    return {k: c.detail for k, c in verdict(hand).items() if not c.ok}


def raw(sql: str, params=()) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def unguard_ledger() -> None:
    """On PostgreSQL the append-only triggers refuse any UPDATE/DELETE: drop that guard for this
    test's transaction only (DDL is transactional there; the test's rollback restores it)."""
    if connection.vendor == "postgresql":
        raw("SET CONSTRAINTS ALL IMMEDIATE")  # run the pending (balanced) checks of the inserts first
        raw("ALTER TABLE ledgers_entry DISABLE TRIGGER ledgers_entry_append_only")
        raw("ALTER TABLE ledgers_transaction DISABLE TRIGGER ledgers_transaction_append_only")


def won_hand(play_table, **kwargs):
    """A finished full-3 hand with a winner (so its transaction has score, piao and fee lines)."""
    for rng_seed in range(1, 20):
        table, (hand,) = play_table("full", 3, rng_seed=rng_seed, **kwargs)
        if hand.result["winner"] is not None:
            return table, hand
    raise AssertionError("no won hand in 19 tries")


@pytest.fixture
def played(play_table):
    return won_hand(play_table, fee=1)


def engine_event(hand: Hand, kind: str) -> TableEvent:
    return next(e for e in TableEvent.objects.filter(hand=hand, type="engine").order_by("seq")
                if e.payload["type"] == kind)


@pytest.mark.django_db
def test_an_untouched_hand_passes_every_check(played):
    _, hand = played
    checks = checklist(Hand.objects.get(pk=hand.pk))
    assert [c.key for c in checks] == ENGINE_KEYS
    assert all(c.ok for c in checks), [(c.key, c.detail) for c in checks if not c.ok]
    assert all(str(c.label) == str(LABELS[c.key]) and c.detail for c in checks)
    json.dumps([c.as_dict() for c in checks], ensure_ascii=False)


@pytest.mark.django_db
def test_changed_event_payload_breaks_the_chain_and_the_replay(played):
    _, hand = played
    ev = engine_event(hand, "discard")
    payload = dict(ev.payload, card="b10" if ev.payload["card"] != "b10" else "s1")
    TableEvent.objects.filter(pk=ev.pk).update(payload=payload)
    bad = failed(hand)
    assert set(bad) >= {"chain", "replay"}
    assert f"seq {ev.seq}: hash does not match its payload" in bad["chain"]
    assert f"seq {ev.seq}" in bad["replay"] and ".card" in bad["replay"]
    assert "commitment" not in bad and "ledger" not in bad


@pytest.mark.django_db
def test_changed_action_is_caught_even_with_the_hash_rewritten(played):
    """An insider who edits an action AND recomputes its hash breaks the next link; the replay differs."""
    from apps.engine.records.chain import link_hash

    _, hand = played
    ev = next(e for e in TableEvent.objects.filter(hand=hand, type="action").order_by("seq")
              if e.payload["action"]["type"] == "discard")
    legal_other = {"type": "discard", "card": "s1" if ev.payload["action"]["card"] != "s1" else "s2"}
    payload = dict(ev.payload, action=legal_other)
    TableEvent.objects.filter(pk=ev.pk).update(payload=payload, hash=link_hash(ev.prev_hash, payload))
    bad = failed(hand)
    assert f"seq {ev.seq + 1}: prev_hash does not match" in bad["chain"]
    assert "replay" in bad


@pytest.mark.django_db
def test_swapped_seed_fails_the_commitment(played):
    _, hand = played
    other = "ab" * 32
    Hand.objects.filter(pk=hand.pk).update(seed=other)
    bad = failed(hand)
    assert "sha256(seed)" in bad["commitment"] and hand.seed_hash in bad["commitment"]
    assert "deck" in bad and "replay" in bad


@pytest.mark.django_db
def test_swapped_seed_and_commitment_row_still_fail_against_the_published_event(played):
    import hashlib

    _, hand = played
    other = "cd" * 32
    Hand.objects.filter(pk=hand.pk).update(seed=other, seed_hash=hashlib.sha256(bytes.fromhex(other)).hexdigest())
    bad = failed(hand)
    assert "hand.start event" in bad["commitment"]
    assert "dealt hand" in bad["deck"]


@pytest.mark.django_db
def test_changed_ledger_entry_fails_the_ledger_check(played):
    _, hand = played
    txn = Transaction.objects.get(idempotency_key=f"hand:{hand.pk}")
    entry = Entry.objects.filter(transaction=txn, kind="score").order_by("id").first()
    unguard_ledger()
    raw(f"UPDATE {Entry._meta.db_table} SET amount = amount + 5 WHERE id = %s", [entry.pk])
    bad = failed(hand)
    assert "sum to 5, not zero" in bad["ledger"]
    assert set(bad) == {"ledger"}


@pytest.mark.django_db
def test_balanced_ledger_tampering_is_caught_per_seat(played):
    """Moving points between two players keeps the sum at zero, but not the hand's totals."""
    _, hand = played
    txn = Transaction.objects.get(idempotency_key=f"hand:{hand.pk}")
    a, b = Entry.objects.filter(transaction=txn, kind="score").order_by("seat")[:2]
    unguard_ledger()
    raw(f"UPDATE {Entry._meta.db_table} SET amount = amount + 3 WHERE id = %s", [a.pk])
    raw(f"UPDATE {Entry._meta.db_table} SET amount = amount - 3 WHERE id = %s", [b.pk])
    bad = failed(hand)
    assert f"seat {a.seat}'s score entries sum to {a.amount + 3}" in bad["ledger"]


@pytest.mark.django_db
def test_a_finished_hand_without_its_transaction_is_not_settled(played):
    _, hand = played
    txn = Transaction.objects.get(idempotency_key=f"hand:{hand.pk}")
    unguard_ledger()
    raw(f"DELETE FROM {Entry._meta.db_table} WHERE transaction_id = %s", [txn.pk])
    raw(f"DELETE FROM {Transaction._meta.db_table} WHERE id = %s", [txn.pk])
    bad = failed(hand)
    assert bad["ledger"].startswith("not settled")
    assert set(bad) == {"ledger"}


@pytest.mark.django_db
def test_changed_totals_fail_the_settlement(played):
    _, hand = played
    totals = json.loads(json.dumps(hand.totals))
    seat = next(iter(totals["total"]))
    totals["total"][seat] += 1
    Hand.objects.filter(pk=hand.pk).update(totals=totals)
    bad = failed(hand)
    assert "the totals in the header" in bad["settlement"]


@pytest.mark.django_db
def test_deleted_event_breaks_the_chain(played):
    _, hand = played
    ev = engine_event(hand, "discard")
    TableEvent.objects.filter(pk=ev.pk).delete()
    bad = failed(hand)
    assert f"seq {ev.seq + 1} follows {ev.seq - 1}: seq {ev.seq} missing" in bad["chain"]
    assert "replay" in bad


@pytest.mark.django_db
def test_deleted_first_event_of_the_hand_breaks_the_anchor(played):
    _, hand = played
    first = TableEvent.objects.filter(hand=hand).order_by("seq").first()
    assert first.type == "hand.start"
    TableEvent.objects.filter(pk=first.pk).delete()
    bad = failed(hand)
    assert "chain" in bad and "commitment" in bad  # the published commitment is gone too


@pytest.mark.django_db
def test_deleted_last_event_of_the_log_breaks_the_anchor(played):
    table, hand = played
    last = TableEvent.objects.filter(table=table).order_by("-seq").first()
    TableEvent.objects.filter(pk=last.pk).delete()
    bad = failed(hand)
    assert "events at the end" in bad["chain"]


@pytest.mark.django_db
def test_reordered_events_break_the_chain(played):
    _, hand = played
    a, b = list(TableEvent.objects.filter(hand=hand, type="engine").order_by("seq"))[3:5]
    TableEvent.objects.filter(pk=a.pk).update(seq=10**6)
    TableEvent.objects.filter(pk=b.pk).update(seq=a.seq)
    TableEvent.objects.filter(pk=a.pk).update(seq=b.seq)
    bad = failed(hand)
    assert f"seq {a.seq}: prev_hash does not match" in bad["chain"]


@pytest.mark.django_db
def test_edited_saved_state_is_reported(played):
    _, hand = played
    state = json.loads(json.dumps(hand.state))
    state["actions"] = state["actions"][:-1]
    Hand.objects.filter(pk=hand.pk).update(state=state)
    assert "snapshot" in failed(hand)


@pytest.mark.django_db
def test_fee_charged_to_the_wrong_seats_is_reported(play_table):
    table, hand = won_hand(play_table, fee=2, fee_payer="winner")
    winner = hand.result["winner"]
    txn = Transaction.objects.get(idempotency_key=f"hand:{hand.pk}")
    assert txn.detail["fee"]["seats"] == [winner]
    assert all(c.ok for c in checklist(hand))
    Table.objects.filter(pk=table.pk).update(fee_payer="each")  # the rule now names every seat
    bad = failed(hand)
    assert "fee rule names" in bad["ledger"]


@pytest.mark.django_db
def test_dissolved_hand_checklist(play_table, replay_club, seat_players):
    from apps.tables.verbs import services
    from apps.tables.verbs.dissolve import table_force_dissolve

    table, _ = play_table("full", 3, hands=2, play=0)
    for user in seat_players[:3]:
        services.seat_ready(user=user, table_id=table.pk)
    hand = Hand.objects.get(table=table, number=1)
    assert hand.status == "playing"
    assert [c.key for c in checklist(hand)] == ["ended"] and not checklist(hand)[0].ok
    table_force_dissolve(user=replay_club.admin_user, table_id=table.pk)
    hand.refresh_from_db()
    assert hand.status == "dissolved" and hand.seed
    checks = verdict(hand)
    assert all(c.ok for c in checks.values()), {k: c.detail for k, c in checks.items() if not c.ok}
    assert "nothing to settle" in checks["settlement"].detail
    assert "no hand:<id> transaction" in checks["ledger"].detail


@pytest.mark.django_db
def test_session_checklists_match_the_per_hand_checklists(play_table):
    table, hands = play_table("full", 3, hands=2)
    per_hand = {h.pk: [(c.key, c.ok) for c in checklist(h)] for h in hands}
    bulk, table_level = session_checklists(table, hands)
    assert table_level == []
    assert {pk: [(c.key, c.ok) for c in cs] for pk, cs in bulk.items()} == per_hand
    ev = engine_event(hands[1], "discard")
    TableEvent.objects.filter(pk=ev.pk).update(payload=dict(ev.payload, card="zz"))
    bulk, _ = session_checklists(Table.objects.get(pk=table.pk), hands)
    assert all(c.ok for c in bulk[hands[0].pk])
    assert {c.key for c in bulk[hands[1].pk] if not c.ok} >= {"chain", "replay"}
