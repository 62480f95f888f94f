"""Write-side operations of the ledger. Keyword-only verbs; tasks and views call these.

- ``settle_hand``: one transaction per finished hand, exactly once (key ``hand:<id>``).
- ``adjustment_create``: 上分/下分 between the club account and a member, by owner/admins, audited.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.clubs import access
from apps.clubs import services as club_services
from apps.clubs.models import Club, Membership

from . import leaderboards, selectors
from .models import EntryKind, Transaction, TransactionKind
from .posting import Line, PostResult, club_account, member_accounts, post_settlement, post_transaction
from .settlement import hand_settlement

HAND_FINISHED = "finished"
ADJUSTMENT_AUDIT_ACTION = "ledger.adjust"
MAX_ADJUSTMENT = 10**9


def hand_key(hand_id: int) -> str:
    return f"hand:{hand_id}"


@dataclass(frozen=True)
class SettleOutcome:
    status: str  # "posted" | "already" | "not_finished" | "missing"
    transaction_id: int | None = None
    club_id: int | None = None


def settle_hand(*, hand_id: int) -> SettleOutcome:
    """Post the settlement of a finished hand; a no-op when it was posted before.

    Safe under retries, duplicate deliveries, concurrent workers and crashes: the unique
    ``hand:<id>`` key decides inside the posting's database transaction.
    """
    key = hand_key(hand_id)
    # One plain query: the hand's frozen facts, its table, "already settled?", the accounts.
    hand = selectors.hand_facts(hand_id=hand_id, key=key)
    if hand is None:
        return SettleOutcome("missing")
    table = hand.table
    if hand.settled_id is not None:
        return SettleOutcome("already", hand.settled_id, table.club_id)
    if hand.status != HAND_FINISHED:
        return SettleOutcome("not_finished", club_id=table.club_id)
    plan = hand_settlement(hand=hand, practice=table.practice, known_accounts=hand.accounts)
    now = timezone.now()
    # One statement on PostgreSQL, with the leaderboard buckets; the unique key decides (a
    # duplicate is reported as "already" and adds to no bucket).
    txn_id, created = post_settlement(
        club_id=table.club_id,
        kind=TransactionKind.HAND,
        idempotency_key=key,
        lines=plan.lines,
        hand_id=hand.pk,
        memo=f"{table.name} #{hand.number}"[:200],
        detail=plan.detail,
        board_rows=leaderboards.settlement_rows(detail=plan.detail, lines=plan.lines, at=now),
        created_at=now,
    )
    return SettleOutcome("posted" if created else "already", txn_id, table.club_id)


def adjustment_create(
    *, club: Club, member: Membership, amount: int, reason: str, by, idempotency_key: str | None = None,
    detail: dict | None = None,
) -> PostResult:
    """上分 (amount > 0: club -> member) or 下分 (amount < 0: member -> club), with a reason.

    Only the owner and admins may; the club audit log records it in the same transaction.
    ``idempotency_key`` lets a form resubmission post once (the view passes a per-form token);
    ``result.created`` is False for such a repeat. ``detail`` adds facts for the ledger's words
    (``memos``), e.g. ``{"what": "dispute", "dispute": id}``.
    """
    access.require_manager(club=club, user=by)
    if member.club_id != club.pk:
        raise ValidationError(_("This user is not a member of this club."))
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError(_("Give a reason for the adjustment."))
    if not isinstance(amount, int) or amount == 0 or abs(amount) > MAX_ADJUSTMENT:
        raise ValidationError(_("The amount must be a non-zero whole number."))
    house = club_account(club_id=club.pk)
    account = member_accounts(club_id=club.pk, user_ids=[member.user_id])[member.user_id]
    lines = [
        Line(account.pk, amount, EntryKind.ADJUSTMENT),
        Line(house.pk, -amount, EntryKind.ADJUSTMENT),
    ]

    def audit(txn: Transaction) -> None:
        club_services.audit_log(
            club=club,
            actor=by,
            action=ADJUSTMENT_AUDIT_ACTION,
            target_user=member.user,
            detail={"amount": amount, "reason": reason[:200], "transaction": txn.pk},
        )

    key = idempotency_key or f"adjust:{club.pk}:{transaction_token()}"
    result = post_transaction(
        club_id=club.pk,
        kind=TransactionKind.ADJUSTMENT,
        idempotency_key=key,
        lines=lines,
        memo=reason,
        created_by=by,
        detail={**(detail or {}), "member": member.user_id, "amount": amount},
        after_post=audit,
    )
    return result


def transaction_token() -> str:
    import secrets

    return secrets.token_hex(12)
