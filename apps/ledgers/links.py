"""Links from ledger lines to the tables app (whatever URL it offers; none -> no link)."""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse


def hand_url(txn) -> str | None:
    """The URL of the table (and hand) a transaction settles, or None."""
    hand = getattr(txn, "hand", None) if txn.hand_id else None
    if hand is None:
        return None
    try:
        base = reverse("tables:detail", kwargs={"table_id": hand.table_id})
    except NoReverseMatch:
        return None
    return f"{base}#hand-{hand.number}"
