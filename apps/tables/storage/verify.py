"""A table's ended hands checked by the engine's standalone verifier (``apps.engine.records.verifier``).

One verifier: the engine checks the commitment, the deal, the replay of every logged action, the
hash chain and the settlement of the document ``apps.tables.storage.records`` builds; ``apps.replays``
adds the ledger part and the database facts a document cannot show. ``verify_table_hands`` is what
the load test and the crash tests need: None per hand that checks out, else its first problem.
"""

from __future__ import annotations

from apps.engine.records.verifier import CHECK_KEYS, verify_document
from apps.tables.models import Hand
from apps.tables.storage.records import ENDED, document

TABLE_KEYS = tuple(k for k in CHECK_KEYS if k != "ledger")  # the ledger part is apps.replays'


def verify_hand(hand: Hand) -> str | None:
    """None when the hand checks out (everything but the ledger); else its first problem."""
    if hand.status not in ENDED:
        return "the hand has not ended"
    doc = document(hand.table, [hand], scope="hand")
    for check in verify_document(doc, keys=TABLE_KEYS):
        if not check["ok"]:
            return f"{check['key']}: {check['detail']}"
    return None


def verify_table_hands(table_id: int) -> list[str | None]:
    return [verify_hand(h) for h in Hand.objects.filter(table_id=table_id).select_related("table")]
