"""Exports of ended hands in the ``paohuzi-hand/1`` format (apps/engine/EXPORT.md).

``hand_document(hand)`` (one hand) and ``session_document(table)`` (every ended hand of a table,
the chain from the genesis hash) are the tables app's document (apps/tables/storage/records.py ``document``)
plus what only this layer sees: the club and each hand's ``hand:<id>`` ledger transaction.
A constant number of queries per document, however many events or hands it holds.

Only ended hands: ``ValueError`` otherwise (a hand in play is never exported: its seed, the other
hands and the stock are secret).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.utils import timezone

from apps.engine.records.timeline import frames
from apps.ledgers.models import AccountKind, Entry, Transaction
from apps.ledgers.services import hand_key
from apps.tables.models import Hand, Table
from apps.tables.storage.eventlog import TableLog, hand_events
from apps.tables.storage.records import ENDED, document, record_from_rows


def _ledger_parts(table: Table, hands: list[Hand]) -> dict[int, dict | None]:
    """``{hand id: ledger part or None}`` in two queries (transactions, then their entries)."""
    keys = {hand_key(h.pk): h.pk for h in hands}
    txns = (Transaction.objects.filter(idempotency_key__in=list(keys))
            .prefetch_related(Prefetch("entries", queryset=Entry.objects.select_related("account").order_by("id"))))
    out: dict[int, dict | None] = dict.fromkeys(keys.values())
    for txn in txns:
        fee = (txn.detail or {}).get("fee") or {}
        out[keys[txn.idempotency_key]] = {
            "key": txn.idempotency_key,
            "transaction_id": txn.pk,
            "created_at": txn.created_at.isoformat(),
            "practice": bool(table.practice),
            "entries": [
                {"seat": e.seat, "kind": e.kind, "amount": e.amount,
                 "account": "club" if e.account.kind == AccountKind.CLUB else "member",
                 "user_id": e.account.user_id}
                for e in txn.entries.all()
            ],
            "fee": {"per_seat": int(fee.get("per_seat", 0)), "payer": fee.get("payer", table.fee_payer),
                    "seats": [int(s) for s in fee.get("seats", [])]} if fee else None,
        }
    return out


def _finish(doc: dict, table: Table, hands: list[Hand]) -> dict:
    ledgers = _ledger_parts(table, hands)
    for part, hand in zip(doc["hands"], hands, strict=True):
        part["ledger"] = ledgers[hand.pk]
    doc["table"]["club"] = {"id": table.club_id, "name": table.club.name}
    doc["exported_at"] = timezone.now().isoformat()
    return doc


def hand_document(hand: Hand, *, log: TableLog | None = None) -> dict[str, Any]:
    """The ``"scope": "hand"`` export of one ended hand (``log``: the table's reader, if shared)."""
    if hand.status not in ENDED:
        raise ValueError("only ended hands are exported")
    table = Table.objects.select_related("club").get(pk=hand.table_id)
    return _finish(document(table, [hand], scope="hand", log=log), table, [hand])


def session_document(table: Table, hands: list[Hand] | None = None, *,
                     log: TableLog | None = None) -> dict[str, Any]:
    """The ``"scope": "session"`` export: every ended hand of the table, in order, with the table's
    log from seq 1 (the genesis hash) to its end, or to just before a hand in play.

    ``hands``: the table's ended hands, in order, if the caller has loaded them already."""
    table = Table.objects.select_related("club").get(pk=table.pk)
    if hands is None:
        hands = list(Hand.objects.filter(table=table, status__in=ENDED).order_by("number"))
    if not hands:
        raise ValueError("the table has no ended hand")
    return _finish(document(table, hands, scope="session", log=log), table, hands)


def hand_record(hand: Hand) -> dict[str, Any]:
    """The engine's hand record of an ended hand (for ``apps.engine.records.timeline.frames``), one query."""
    if hand.status not in ENDED:
        raise ValueError("only ended hands are replayed")
    return record_from_rows(hand, [(e.type, e.payload) for e in hand_events(hand)])


def hand_frames(hand: Hand) -> list[dict[str, Any]]:
    """The replay frames of an ended hand (``apps.engine.records.timeline.frames`` of its record)."""
    return frames(hand_record(hand))

