"""Write side of matches, one module per seam: ``definition`` (the one validator, create, edit,
cancel), ``clock`` (registration opens and closes), ``registration`` (register, withdraw, check in,
each with its ``check_*``), ``escrow`` (fees, refunds, prizes through the ledger), ``rounds``
(start, record, seat the next round, finish) and ``console`` (the organisers' verbs).

Life of a match (times are the match's own):
    draft ──registration opens──▶ registering ──registration closes (seed committed)──▶ checking_in
    ──start──▶ running (round 1 seated, seed revealed) ──last round──▶ finished
    any state before finished ──cancel / too few at the start──▶ cancelled (every fee refunded).
Check-in is open from ``checkin_opens_at`` to the start, also while registration is still open.

Every state move runs in one transaction under the match row lock; keyword-only verbs; bad input
raises ``ValidationError`` (translated) and changes nothing, a role too low ``PermissionDenied``.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError

from .console import never_together_add, never_together_remove, pause, reseat, resume
from .definition import LIMITS, MATCH_FIELDS, check_edit, match_cancel, match_create, match_update, validate
from .escrow import fee_key, prize_key, refund_key
from .registration import (
    check_check_in,
    check_in,
    check_register,
    check_withdraw,
    register,
    withdraw,
    withdraw_note,
)
from .reminders import remind_due
from .rounds import advance, final_order, open_table_ids, play_tables, running_match_ids, start_due

__all__ = [
    "LIMITS", "MATCH_FIELDS", "PermissionDenied", "ValidationError", "advance", "check_check_in", "check_edit",
    "check_in", "check_register", "check_withdraw", "fee_key", "final_order", "match_cancel", "match_create",
    "match_update", "never_together_add", "never_together_remove", "open_table_ids", "pause", "play_tables",
    "prize_key", "refund_key", "register", "remind_due", "reseat", "resume", "running_match_ids", "start_due", "validate",
    "withdraw", "withdraw_note",
]
