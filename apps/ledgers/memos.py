"""What a ledger line is, in the reader's language, from structured fields.

A transaction's ``memo`` is only ever shown where it is the user's own words (the reason of a
上分/下分, the outcome of a dispute); everything else is worded here from the transaction's kind,
its entry's kind, its ``detail`` and its idempotency key (rows posted before ``detail`` carried
``what`` are recognised by their key). Nothing here queries: the ledger pages load the
transaction, its hand and the hand's table with the entries (``selectors``), one query a page.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

from .models import EntryKind, TransactionKind

# The Kind column and the ledger filter's options (one word each, the ledger's own: 奖金 here is
# what a match pays out, whatever other apps call a prize).
ENTRY_KIND_LABELS = {
    EntryKind.SCORE: pgettext_lazy("ledger", "Score"),
    EntryKind.PIAO: pgettext_lazy("ledger", "Piao"),
    EntryKind.ADJUSTMENT: pgettext_lazy("ledger", "Points added / removed"),
    EntryKind.FEE: pgettext_lazy("ledger", "Table fee"),
    EntryKind.ENTRY_FEE: pgettext_lazy("ledger", "Entry fee"),
    EntryKind.REFUND: pgettext_lazy("ledger", "Refund"),
    EntryKind.PRIZE: pgettext_lazy("ledger", "Prize"),
}

# Why an entry fee was given back (``apps.matches.services.escrow.refund``'s reasons).
REFUND_REASONS = {
    "withdrawn": lambda: pgettext("refund reason", "withdrew"),
    "cancelled": lambda: pgettext("refund reason", "match cancelled"),
    "not_checked_in": lambda: pgettext("refund reason", "did not check in"),
}

_MATCH_KEY = re.compile(r"^match:\d+:(?P<what>fee|refund|prize|house-in|house-out)(?::(?P<arg>\d+))?$")
# Old dispute adjustments stored "Dispute #<id>: <outcome>" (in the resolver's language).
_OLD_DISPUTE_MEMO = re.compile(r"^.{0,20}#\d+\s*[:：]\s*")


def match_what(txn) -> tuple[str, int | None]:
    """``(what, rank)`` of a match posting: fee | refund | prize | house_in | house_out."""
    detail = txn.detail or {}
    what, rank = detail.get("what"), detail.get("rank")
    if not what:
        found = _MATCH_KEY.match(txn.idempotency_key or "")
        what = found["what"].replace("-", "_") if found else ""
        if what == "prize" and found["arg"]:
            rank = int(found["arg"])
    return what, rank


def match_name(txn) -> str:
    detail = txn.detail or {}
    if detail.get("match_name"):
        return str(detail["match_name"])
    # Old rows: the memo began with the match's name ("<name>: entry fee").
    return (txn.memo or "").rsplit(": ", 1)[0]


def adjustment_word(amount: int) -> str:
    """上分 (points to the member) or 下分 (points from the member)."""
    return _("Points added") if amount > 0 else _("Points removed")


def is_dispute(txn) -> bool:
    return (txn.detail or {}).get("what") == "dispute" or (txn.idempotency_key or "").startswith("dispute:")


def dispute_outcome(txn) -> str:
    detail = txn.detail or {}
    if detail.get("what") == "dispute":
        return txn.memo or ""
    return _OLD_DISPUTE_MEMO.sub("", txn.memo or "", count=1)


def describe(entry) -> str:
    """The line's 'what' for the ledger pages."""
    txn = entry.transaction
    if txn.kind == TransactionKind.HAND:
        hand = txn.hand if txn.hand_id else None
        number = hand.number if hand is not None else (txn.detail or {}).get("number")
        table = hand.table.name if hand is not None else ""
        text = _("%(table)s, hand %(number)s") % {"table": table, "number": number} if table else (
            _("Hand %(number)s") % {"number": number})
        detail = txn.detail or {}
        if detail.get("escape") is not None:  # 逃跑 (RULES.md §8.6): the leaver's line, or the others'
            text += (pgettext("ledger", " (escaped)") if entry.seat == detail["escape"]
                     else pgettext("ledger", " (a player escaped)"))
        elif detail.get("draw"):
            text += pgettext("ledger", " (draw)")
        if detail.get("cap"):  # 封顶 (§9.6): the score was capped
            text += pgettext("ledger", " (capped at %(n)s)") % {"n": detail["cap"]}
        return text
    if txn.kind == TransactionKind.MATCH:
        what, rank = match_what(txn)
        name = match_name(txn)
        if what == "fee":
            label = pgettext("ledger", "Entry fee")
        elif what == "refund":
            reason = REFUND_REASONS.get((txn.detail or {}).get("reason") or "")
            label = _("Entry fee refund (%(reason)s)") % {"reason": reason()} if reason else _("Entry fee refund")
        elif what == "prize":
            label = _("Prize (place %(rank)s)") % {"rank": rank} if rank else pgettext("ledger", "Prize")
        elif what == "house_in":
            label = _("Club tops up the prizes")
        elif what == "house_out":
            label = _("Prize pool remainder to the club")
        else:
            label = pgettext("ledger", "Match")
        return _("%(match)s: %(what)s") % {"match": name, "what": label} if name else label
    # An adjustment: the member's side decides 上分/下分; the reason is the manager's own words.
    if is_dispute(txn):
        outcome = dispute_outcome(txn)
        label = _("Dispute adjustment")
        return _("%(what)s: %(reason)s") % {"what": label, "reason": outcome} if outcome else label
    label = adjustment_word(member_amount(entry))
    return _("%(what)s: %(reason)s") % {"what": label, "reason": txn.memo} if txn.memo else label


def member_amount(entry) -> int:
    """What an adjustment moved to the member (negative: from the member): its ``detail``, or,
    for a row without it, the entry itself (the ledger pages load the entry's account)."""
    amount = (entry.transaction.detail or {}).get("amount")
    if isinstance(amount, int) and not isinstance(amount, bool):
        return amount
    return entry.amount if entry.account.kind == "member" else -entry.amount


def kind_label(entry) -> str:
    """The Kind column: the entry's kind, 上分/下分 for an adjustment (a dispute's too)."""
    if entry.kind == EntryKind.ADJUSTMENT:
        return adjustment_word(member_amount(entry))
    return str(ENTRY_KIND_LABELS.get(entry.kind, entry.kind))
