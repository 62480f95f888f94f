"""Entering a match: register (the fee moves into escrow; beyond the maximum, the waitlist),
withdraw, check in. Each verb has one ``check_*`` that says why it is refused (None: allowed); the
match page's buttons ask the same function, so a button is shown exactly when its verb would act."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.clubs import access
from apps.tables.transaction.context import TableError

from ..models import BEFORE_START, HOLDING_PLACE, IN_MATCH, Entrant, EntrantStatus, Match, MatchState
from . import clock, escrow
from .base import lock, now_or


def _local(at) -> str:
    return timezone.localtime(at).strftime("%m-%d %H:%M")


def check_register(*, match: Match, entrant: Entrant | None, balance: int | None, now) -> str | None:
    """Why ``register`` would refuse a member (None: it would enter him). ``balance``: his points."""
    if entrant is not None:
        if entrant.status == EntrantStatus.WITHDRAWN:
            return _("You withdrew from this match; you cannot register again.")
        return _("You are already registered for this match.")
    if match.is_ended:
        return _("This match has already ended.")
    state = clock.due_state(match, now)
    if state == MatchState.DRAFT:
        return _("Registration opens %(at)s.") % {"at": _local(match.registration_opens_at)}
    if not clock.registration_open(match, now):
        return _("Registration has closed.")
    if match.entry_fee and (balance or 0) < match.entry_fee:
        return _("The entry fee is %(fee)s points and you have %(balance)s: ask the club for points first.") % {
            "fee": match.entry_fee, "balance": balance or 0}
    return None


def check_withdraw(*, match: Match, entrant: Entrant | None) -> str | None:
    if entrant is None:
        return _("You are not registered for this match.")
    if match.is_ended:
        return _("This match has already ended.")
    if entrant.status not in IN_MATCH:
        return _("You are no longer in this match.")
    return None


def withdraw_note(*, match: Match, entrant: Entrant, now) -> str:
    """What withdrawing costs him now (the confirmation's text)."""
    if entrant.status == EntrantStatus.ACTIVE:
        return _("Withdraw from the match? 托管 finishes your table; the fee is not refunded.")
    if clock.registration_open(match, now) or entrant.status == EntrantStatus.WAITLISTED:
        return _("Withdraw? Your entry fee is refunded.")
    return _("Withdraw? Registration has closed: the entry fee is not refunded.")


def check_check_in(*, match: Match, entrant: Entrant | None, now) -> str | None:
    if entrant is None:
        return _("You are not registered for this match.")
    if entrant.status not in BEFORE_START:
        return _("You are no longer in this match.")
    if not clock.checkin_open(match, now):
        if now < match.checkin_opens_at and not match.is_ended:
            return _("Check-in opens %(at)s, %(n)s minutes before the start.") % {
                "at": _local(match.checkin_opens_at),
                "n": int((match.starts_at - match.checkin_opens_at).total_seconds() // 60)}
        return _("Check-in is not open now.")
    return None


@transaction.atomic
def register(*, match: Match, user, now=None) -> Entrant:
    """Enter a match: the fee moves into escrow; beyond the maximum the entrant is waitlisted."""
    now = now_or(now)
    match = lock(match.pk)
    access.require_member(club=match.club, user=user)
    clock.apply(match, now)
    entrant = Entrant.objects.filter(match=match, user=user).first()
    account = escrow.member_account(match, user.pk, lock=bool(match.entry_fee))
    refusal = check_register(match=match, entrant=entrant, balance=account.balance, now=now)
    if refusal:
        raise ValidationError(refusal)
    taken = Entrant.objects.filter(match=match, status__in=HOLDING_PLACE).count()
    order = (Entrant.objects.filter(match=match).order_by("-registered_order")
             .values_list("registered_order", flat=True).first() or 0) + 1
    entrant = Entrant.objects.create(
        match=match, user=user, registered_order=order, registered_at=now, fee_paid=match.entry_fee,
        status=EntrantStatus.REGISTERED if taken < match.max_entrants else EntrantStatus.WAITLISTED,
    )
    escrow.take_fee(match, entrant, account, by=user)
    return entrant


@transaction.atomic
def withdraw(*, match: Match, user, now=None) -> Entrant:
    """Leave a match. Refunded while registration is open (the first waitlisted entrant takes the
    place); after it closes the fee stays in the pool; while running 托管 finishes his table."""
    now = now_or(now)
    match = lock(match.pk)
    clock.apply(match, now)
    entrant = Entrant.objects.filter(match=match, user=user).first()
    refusal = check_withdraw(match=match, entrant=entrant)
    if refusal:
        raise ValidationError(refusal)
    held_place = entrant.status in HOLDING_PLACE
    waitlisted = entrant.status == EntrantStatus.WAITLISTED
    if entrant.status == EntrantStatus.ACTIVE:
        entrant.out_round = match.current_round
        table_id = entrant.current_table_id
        if table_id is not None:
            transaction.on_commit(lambda: _tuoguan_quietly(user=user, table_id=table_id))
    entrant.status = EntrantStatus.WITHDRAWN
    if clock.registration_open(match, now) or waitlisted:  # a wait given up is refunded until the start
        escrow.refund(match, entrant, reason="withdrawn")
    entrant.save()
    if held_place and match.state in (MatchState.REGISTERING, MatchState.CHECKING_IN):
        _promote(match)
    return entrant


def _tuoguan_quietly(*, user, table_id: int) -> None:
    from apps.tables.verbs.services import seat_set_tuoguan

    try:
        seat_set_tuoguan(user=user, table_id=table_id, on=True)
    except TableError:
        pass  # the table ended meanwhile


def _promote(match: Match) -> None:
    """Fill free places from the waitlist, in order of registration."""
    free = match.max_entrants - Entrant.objects.filter(match=match, status__in=HOLDING_PLACE).count()
    if free <= 0:
        return
    waiting = Entrant.objects.filter(match=match, status=EntrantStatus.WAITLISTED).order_by("registered_order")
    for entrant in waiting[:free]:
        entrant.status = EntrantStatus.CHECKED_IN if entrant.checked_in_at else EntrantStatus.REGISTERED
        entrant.save(update_fields=["status"])


@transaction.atomic
def check_in(*, match: Match, user, now=None) -> Entrant:
    """Confirm presence in the check-in window (default the 10 minutes before the start)."""
    now = now_or(now)
    match = lock(match.pk)
    clock.apply(match, now)
    entrant = Entrant.objects.filter(match=match, user=user).first()
    refusal = check_check_in(match=match, entrant=entrant, now=now)
    if refusal:
        raise ValidationError(refusal)
    if entrant.checked_in_at is None:
        entrant.checked_in_at = now
        if entrant.status == EntrantStatus.REGISTERED:
            entrant.status = EntrantStatus.CHECKED_IN
        entrant.save(update_fields=["checked_in_at", "status"])
    return entrant
