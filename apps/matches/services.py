"""Write side of matches: define, register, check in, start, advance round by round, pay prizes.

Every state move runs in one transaction under the match row lock (``select_for_update``); the beat
tasks only find due matches and call these. Keyword-only verbs; bad input raises
``ValidationError`` (translated message) and changes nothing, a role too low ``PermissionDenied``.

Life of a match (times are the match's own):
    draft ──registration opens──▶ registering ──registration closes (seed committed)──▶ checking_in
    ──start──▶ running (round 1 seated, seed revealed) ──last round──▶ finished
    any state before finished ──cancel / too few at the start──▶ cancelled (every fee refunded).
Check-in is open from ``checkin_opens_at`` to the start, also while registration is still open.
``_sync`` applies the time-driven moves under the lock before any verb acts, so a verb never
depends on when the beat last ran.

Money (all through ``apps.ledgers.posting.post_transaction``, each key posted at most once):
    ``match:<id>:fee:<user>``     member → escrow, at registration (waitlisted entrants pay too and
                                  are refunded if never promoted; re-registering after a withdrawal
                                  is refused, so a key is never needed twice);
    ``match:<id>:refund:<user>``  escrow → member: withdrawal while registration is open, not
                                  checked in (or never promoted) at the start, or the match cancelled;
    ``match:<id>:prize:<rank>``   escrow → the player of that final place;
    ``match:<id>:house-in``       club account → escrow, when fixed prizes exceed the pool (the
                                  club pays the difference);
    ``match:<id>:house-out``      escrow → club account, what the pool holds beyond the prizes
                                  (fixed prizes below the pool, fees forfeited by withdrawals after
                                  registration closed when nobody is left to win them).
Percent prizes always pay the whole pool. Once finished or cancelled the escrow is closed at
exactly zero (``ledger_audit`` checks closed escrows).

Hands at match tables are played for match standings only: the tables are opened as practice
tables (no club points move; the ledger still posts an empty settlement per hand).

Formats (arithmetic in formats.py, seating in seating.py):
- fixed: ``rounds`` rounds of ``hands_per_round`` hands, round 1 shuffled from the seed, later
  rounds by standings; match points per table rank; byes (entrants not divisible by the table
  size) score ``formats.bye_points``.
- elimination: every round is ONE hand per table; after it, players below the line are out
  (never fewer than one table stays), tables are rebalanced (``seating.rebalance``; a player left
  over sits out the next hand with his chips untouched); when the rest fits one table, the final
  table plays ``final_hands`` hands.
- knockout: tables play ``hands_per_round`` hands, the top ``knockout_top`` of each (and the byes)
  advance; when the field fits one table, the final plays ``final_hands`` hands. If fewer than a
  table would advance, the best of the rest are taken along to fill the final.
A player who made no move of his own at a table and was put on 托管 by time-outs (or started it
still on 托管 from being absent) was absent that round; absent two rounds in a row → withdrawn
(托管 finishes his table; he keeps his place in the standings below those still playing).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.selectors import shared_address_pairs
from apps.clubs import selectors as club_selectors
from apps.clubs.models import Membership, RuleTemplate
from apps.clubs.services import audit_log
from apps.ledgers.models import Account, AccountKind, EntryKind, TransactionKind
from apps.ledgers.posting import Line, club_account, member_accounts, post_transaction
from apps.tables import arranged
from apps.tables.context import TableError
from apps.tables.models import Hand, HandStatus, Seat, TableEvent, TableStatus

from . import formats, seating
from .models import (
    HOLDING_PLACE,
    Entry,
    EntryStatus,
    Format,
    Match,
    MatchRound,
    MatchState,
    MatchTable,
    NeverTogether,
    RoundKind,
    RoundState,
)

log = logging.getLogger(__name__)

__all__ = [
    "PermissionDenied",
    "ValidationError",
    "match_create",
    "match_update",
    "match_cancel",
    "register",
    "withdraw",
    "check_in",
    "pause",
    "resume",
    "reseat",
    "never_together_add",
    "never_together_remove",
    "start_due",
    "advance",
]

MATCH_FIELDS = (
    "name", "description", "template", "format", "starts_at", "registration_opens_at",
    "registration_closes_at", "checkin_opens_at", "min_entrants", "max_entrants", "entry_fee",
    "prize_scheme", "hands_per_round", "rounds", "points_by_rank", "elim_start_chips", "elim_line",
    "elim_rise_every", "elim_rise_by", "knockout_top", "final_hands",
)
MAX_ENTRANTS = 1000
MAX_FEE = 10**9
MAX_HANDS = 64
MAX_ROUNDS = 50
# Elimination: a safety net, never reached with a rising line; then the best of the field play the final.
MAX_STAGE_HANDS = 500
SHARED_IP_DAYS = 30


class Audit:
    CREATE = "match.create"
    UPDATE = "match.update"
    CANCEL = "match.cancel"
    PAUSE = "match.pause"
    RESUME = "match.resume"
    RESEAT = "match.reseat"
    NEVER_ADD = "match.never_together_add"
    NEVER_REMOVE = "match.never_together_remove"


# ---- helpers ------------------------------------------------------------------------------------


def _now(now=None):
    return now or timezone.now()


def _lock(match_id: int) -> Match:
    try:
        return Match.objects.select_for_update().select_related("club").get(pk=match_id)
    except Match.DoesNotExist:
        raise ValidationError(_("This match does not exist.")) from None


def _require_manager(*, club, by) -> Membership:
    membership = club_selectors.membership_for(user=by, club=club)
    if membership is None:
        raise PermissionDenied(_("You are not a member of this club."))
    if not club_selectors.can_manage_members(membership):
        raise PermissionDenied(_("Your role in this club does not allow this."))
    return membership


def _require_member(*, club, user) -> Membership:
    membership = club_selectors.membership_for(user=user, club=club)
    if membership is None:
        raise PermissionDenied(_("You are not a member of this club."))
    return membership


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _escrow(match: Match) -> Account:
    return Account.objects.get(pk=match.escrow_id)


def _post(match: Match, key: str, lines: list[Line], *, memo: str, by=None, detail: dict | None = None):
    return post_transaction(
        club_id=match.club_id, kind=TransactionKind.MATCH, idempotency_key=key, lines=lines,
        memo=memo, created_by=by, detail={"match": match.pk, **(detail or {})},
    )


def fee_key(match_id: int, user_id: int) -> str:
    return f"match:{match_id}:fee:{user_id}"


def refund_key(match_id: int, user_id: int) -> str:
    return f"match:{match_id}:refund:{user_id}"


def prize_key(match_id: int, rank: int) -> str:
    return f"match:{match_id}:prize:{rank}"


def _refund(match: Match, entry: Entry, *, reason: str) -> None:
    """Give the entry's fee back from escrow, once (its own key)."""
    if entry.refunded or entry.fee_paid <= 0:
        return
    account = member_accounts(club_id=match.club_id, user_ids=[entry.user_id])[entry.user_id]
    _post(match, refund_key(match.pk, entry.user_id),
          [Line(match.escrow_id, -entry.fee_paid, EntryKind.REFUND),
           Line(account.pk, entry.fee_paid, EntryKind.REFUND)],
          memo=f"{match.name}: refund ({reason})"[:200], detail={"user": entry.user_id, "reason": reason})
    entry.refunded = True


def _close_escrow(match: Match) -> None:
    escrow = Account.objects.select_for_update().get(pk=match.escrow_id)
    if escrow.balance != 0:
        raise RuntimeError(f"escrow of match {match.pk} holds {escrow.balance}, not 0")
    Account.objects.filter(pk=escrow.pk).update(closed=True)


# ---- definition -----------------------------------------------------------------------------------


def _snapshot(template: RuleTemplate) -> dict[str, Any]:
    """The template's rules as a table takes them (apps.tables.services.table_open)."""
    return {
        "template": template, "preset": template.preset, "options": dict(template.options or {}),
        "players": template.players, "base_score": template.base_score,
        "piao_choices": list(template.piao_choices or []), "turn_seconds": template.turn_seconds,
        "ruleset": template.ruleset().to_json(),
    }


def _validate(*, club, fields: dict[str, Any], now) -> dict[str, Any]:
    """Check every field of a definition; returns the model field values (with the snapshot)."""
    errors: dict[str, str] = {}
    out: dict[str, Any] = {}
    name = str(fields.get("name") or "").strip()
    if not name:
        errors["name"] = _("A match needs a name.")
    elif len(name) > 80:
        errors["name"] = _("The name is too long (80 characters at most).")
    out["name"] = name
    out["description"] = str(fields.get("description") or "").strip()[:4000]

    template = fields.get("template")
    if not isinstance(template, RuleTemplate) or template.club_id != club.pk:
        errors["template"] = _("Choose a rule template of this club.")
        size = 3
    else:
        out.update(_snapshot(template))
        size = template.players

    fmt = fields.get("format", Format.FIXED)
    if fmt not in Format.values:
        errors["format"] = _("Choose a format.")
    out["format"] = fmt

    starts_at = fields.get("starts_at")
    if starts_at is None:
        errors["starts_at"] = _("Give a start time.")
    elif starts_at <= now:
        errors["starts_at"] = _("The start time must be in the future.")
    else:
        opens = fields.get("registration_opens_at") or now
        closes = fields.get("registration_closes_at") or starts_at
        checkin = fields.get("checkin_opens_at") or Match.default_checkin_opens(starts_at)
        if not opens < closes:
            errors["registration_closes_at"] = _("Registration must close after it opens.")
        if closes > starts_at:
            errors["registration_closes_at"] = _("Registration must close by the start time.")
        if checkin > starts_at:
            errors["checkin_opens_at"] = _("Check-in must open before the start time.")
        out.update(starts_at=starts_at, registration_opens_at=opens, registration_closes_at=closes,
                   checkin_opens_at=checkin)

    lo, hi = fields.get("min_entrants", size), fields.get("max_entrants", 60)
    if not _int(lo) or lo < max(2, size):
        errors["min_entrants"] = _("At least %(n)s entrants are needed (one full table).") % {"n": size}
    elif not _int(hi) or hi < lo:
        errors["max_entrants"] = _("The maximum cannot be below the minimum.")
    elif hi > MAX_ENTRANTS:
        errors["max_entrants"] = _("At most %(n)s entrants.") % {"n": MAX_ENTRANTS}
    out.update(min_entrants=lo, max_entrants=hi)

    fee = fields.get("entry_fee", 0)
    if not _int(fee) or fee < 0:
        errors["entry_fee"] = _("The entry fee cannot be negative; 0 means free.")
    elif fee > MAX_FEE:
        errors["entry_fee"] = _("The entry fee is too large.")
    out["entry_fee"] = fee

    scheme = fields.get("prize_scheme") or {"kind": "percent", "percents": [100]}
    try:
        out["prize_scheme"] = formats.check_prize_scheme(scheme)
    except ValueError as exc:
        if isinstance(scheme, dict) and scheme.get("kind") == "percent" and "100" in str(exc):
            errors["prize_scheme"] = _("Prize percentages must add up to 100.")
        elif isinstance(scheme, dict) and scheme.get("kind") == "fixed":
            errors["prize_scheme"] = _("Fixed prizes are whole numbers of 0 or more.")
        else:
            errors["prize_scheme"] = _("Prizes are fixed amounts per place or percentages of the pool.")

    for key, top, message in (
        ("hands_per_round", MAX_HANDS, _("Hands per round must be from 1 to %(n)s.")),
        ("rounds", MAX_ROUNDS, _("Rounds must be from 1 to %(n)s.")),
        ("final_hands", MAX_HANDS, _("Final table hands must be from 1 to %(n)s.")),
    ):
        value = fields.get(key, {"hands_per_round": 4, "rounds": 3, "final_hands": 4}[key])
        if not _int(value) or not 1 <= value <= top:
            errors[key] = message % {"n": top}
        out[key] = value

    points = fields.get("points_by_rank") or formats.DEFAULT_POINTS_BY_RANK.get(size, [])
    try:
        out["points_by_rank"] = formats.check_points_by_rank(points, size)
    except (ValueError, TypeError):
        errors["points_by_rank"] = _(
            "Give one whole number of match points per seat (%(n)s), never rising from 1st to last."
        ) % {"n": size}

    start_chips = fields.get("elim_start_chips", 1000)
    line = fields.get("elim_line", 900)
    every = fields.get("elim_rise_every", 1)
    rise = fields.get("elim_rise_by", 20)
    if fmt == Format.ELIMINATION:
        if not _int(start_chips) or start_chips < 1 or start_chips > MAX_FEE:
            errors["elim_start_chips"] = _("Starting chips must be a positive whole number.")
        elif not _int(line) or line > start_chips:
            errors["elim_line"] = _("The elimination line must not be above the starting chips.")
        if not _int(every) or every < 1:
            errors["elim_rise_every"] = _("The line rises every 1 hand or more.")
        if not _int(rise) or rise < 1:
            errors["elim_rise_by"] = _("The line must rise by at least 1, or the match might never end.")
    out.update(elim_start_chips=start_chips, elim_line=line, elim_rise_every=every, elim_rise_by=rise)

    top_n = fields.get("knockout_top", 1)
    if not _int(top_n) or not 1 <= top_n < size:
        if fmt == Format.KNOCKOUT:
            errors["knockout_top"] = _("From 1 to %(n)s players per table advance.") % {"n": size - 1}
        top_n = 1
    out["knockout_top"] = top_n
    if errors:
        raise ValidationError(errors)
    return out


def _clean_fields(fields: dict[str, Any]) -> dict[str, Any]:
    unknown = set(fields) - set(MATCH_FIELDS)
    if unknown:
        raise TypeError(f"unknown match fields: {sorted(unknown)}")
    return dict(fields)


def _initial_state(match_fields: dict[str, Any], now) -> str:
    return MatchState.REGISTERING if match_fields["registration_opens_at"] <= now else MatchState.DRAFT


@transaction.atomic
def match_create(*, club, by, now=None, **fields: Any) -> Match:
    """Define a match (owner/admins). Registration opens at ``registration_opens_at`` (default:
    now), closes at ``registration_closes_at`` (default: the start)."""
    _require_manager(club=club, by=by)
    now = _now(now)
    values = _validate(club=club, fields=_clean_fields(fields), now=now)
    match = Match.objects.create(club=club, created_by=by, state=_initial_state(values, now), **values)
    match.escrow = Account.objects.create(club=club, kind=AccountKind.ESCROW, key=match.escrow_key)
    match.save(update_fields=["escrow"])
    audit_log(club=club, actor=by, action=Audit.CREATE, detail=_audit_detail(match))
    return match


def _audit_detail(match: Match) -> dict[str, Any]:
    return {"match": match.pk, "name": match.name, "format": match.format, "entry_fee": match.entry_fee,
            "prize_scheme": match.prize_scheme, "starts_at": match.starts_at.isoformat()}


@transaction.atomic
def match_update(*, match: Match, by, now=None, **fields: Any) -> Match:
    """Edit a definition: only until registration opens (a draft)."""
    _require_manager(club=match.club, by=by)
    now = _now(now)
    match = _lock(match.pk)
    _sync(match, now)
    if match.state != MatchState.DRAFT:
        raise ValidationError(_("A match can only be edited until registration opens."))
    merged = {name: getattr(match, name) for name in MATCH_FIELDS}
    merged.update(_clean_fields(fields))
    if "template" not in fields and match.template is None:
        raise ValidationError({"template": _("Choose a rule template of this club.")})
    values = _validate(club=match.club, fields=merged, now=now)
    if "template" not in fields:  # keep the snapshot taken at creation
        for key in ("template", "preset", "options", "players", "base_score", "piao_choices",
                    "turn_seconds", "ruleset"):
            values.pop(key, None)
    for key, value in values.items():
        setattr(match, key, value)
    match.state = _initial_state({"registration_opens_at": match.registration_opens_at}, now)
    match.save()
    audit_log(club=match.club, actor=by, action=Audit.UPDATE, detail=_audit_detail(match))
    return match


@transaction.atomic
def match_cancel(*, match: Match, by, reason: str, now=None) -> Match:
    """Cancel until the match ends: open tables are dissolved, every fee still held refunded."""
    _require_manager(club=match.club, by=by)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": _("Say why the match is cancelled.")})
    match = _lock(match.pk)
    if match.is_ended:
        raise ValidationError(_("This match has already ended."))
    _cancel(match, reason=reason[:300], by=by)
    audit_log(club=match.club, actor=by, action=Audit.CANCEL, detail={"match": match.pk, "reason": reason[:300]})
    return match


def _cancel(match: Match, *, reason: str, by=None) -> None:
    open_tables = list(MatchTable.objects.filter(match=match, table__status__in=[TableStatus.WAITING,
                                                                                 TableStatus.PLAYING])
                       .values_list("table_id", flat=True))
    match.state, match.cancel_reason, match.finished_at = MatchState.CANCELLED, reason, timezone.now()
    match.save(update_fields=["state", "cancel_reason", "finished_at"])
    for table_id in open_tables:
        arranged.arranged_dissolve(table_id=table_id, reason="match_cancelled", by_id=getattr(by, "pk", None))
    entries = list(Entry.objects.filter(match=match))
    for entry in entries:
        _refund(match, entry, reason="cancelled")
        if entry.status in (EntryStatus.REGISTERED, EntryStatus.WAITLISTED, EntryStatus.CHECKED_IN,
                            EntryStatus.ACTIVE):
            entry.status = EntryStatus.CANCELLED
        entry.current_table = None
    Entry.objects.bulk_update(entries, ["refunded", "status", "current_table"])
    _close_escrow(match)


# ---- time-driven moves --------------------------------------------------------------------------


def _sync(match: Match, now) -> None:
    """Apply the moves the clock has made due (the caller holds the lock): open and close
    registration (closing commits the seating seed). Starting is ``start_due``'s."""
    if match.state == MatchState.DRAFT and now >= match.registration_opens_at:
        match.state = MatchState.REGISTERING
        match.save(update_fields=["state"])
    if match.state == MatchState.REGISTERING and now >= match.registration_closes_at:
        _close_registration(match)


def _close_registration(match: Match) -> None:
    seed = secrets.token_bytes(32)
    match.seed_secret = seed.hex()
    match.seed_hash = hashlib.sha256(seed).hexdigest()
    match.state = MatchState.CHECKING_IN
    match.save(update_fields=["seed_secret", "seed_hash", "state"])


def _registration_open(match: Match, now) -> bool:
    return match.state == MatchState.REGISTERING and match.registration_opens_at <= now < match.registration_closes_at


# ---- registration ---------------------------------------------------------------------------------


@transaction.atomic
def register(*, match: Match, user, now=None) -> Entry:
    """Enter a match: the fee moves into escrow; beyond the maximum the entry is waitlisted."""
    now = _now(now)
    match = _lock(match.pk)
    _require_member(club=match.club, user=user)
    _sync(match, now)
    if not _registration_open(match, now):
        raise ValidationError(_("Registration for this match is not open."))
    existing = Entry.objects.filter(match=match, user=user).first()
    if existing is not None:
        if existing.status == EntryStatus.WITHDRAWN:
            raise ValidationError(_("You withdrew from this match; you cannot register again."))
        raise ValidationError(_("You are already registered for this match."))
    fee = match.entry_fee
    account = member_accounts(club_id=match.club_id, user_ids=[user.pk])[user.pk]
    if fee:
        account = Account.objects.select_for_update().get(pk=account.pk)
        if account.balance < fee:
            raise ValidationError(
                _("The entry fee is %(fee)s points and you have %(balance)s: ask the club for points first.")
                % {"fee": fee, "balance": account.balance}
            )
    taken = Entry.objects.filter(match=match, status__in=HOLDING_PLACE).count()
    order = (Entry.objects.filter(match=match).order_by("-registered_order")
             .values_list("registered_order", flat=True).first() or 0) + 1
    entry = Entry.objects.create(
        match=match, user=user, registered_order=order, registered_at=now, fee_paid=fee,
        status=EntryStatus.REGISTERED if taken < match.max_entrants else EntryStatus.WAITLISTED,
    )
    if fee:
        _post(match, fee_key(match.pk, user.pk),
              [Line(account.pk, -fee, EntryKind.ENTRY_FEE), Line(match.escrow_id, fee, EntryKind.ENTRY_FEE)],
              memo=f"{match.name}: entry fee"[:200], by=user, detail={"user": user.pk})
    return entry


@transaction.atomic
def withdraw(*, match: Match, user, now=None) -> Entry:
    """Leave a match. Refunded while registration is open (the first waitlisted entrant takes the
    place); after it closes the fee stays in the pool; while running 托管 finishes his table."""
    now = _now(now)
    match = _lock(match.pk)
    _sync(match, now)
    entry = Entry.objects.filter(match=match, user=user).first()
    if entry is None:
        raise ValidationError(_("You are not registered for this match."))
    if match.is_ended:
        raise ValidationError(_("This match has already ended."))
    if entry.status not in (EntryStatus.REGISTERED, EntryStatus.WAITLISTED, EntryStatus.CHECKED_IN,
                            EntryStatus.ACTIVE):
        raise ValidationError(_("You are no longer in this match."))
    held_place = entry.status in HOLDING_PLACE
    waitlisted = entry.status == EntryStatus.WAITLISTED
    if entry.status == EntryStatus.ACTIVE:
        entry.out_round = match.current_round
        table_id = entry.current_table_id
        if table_id is not None:
            transaction.on_commit(lambda: _tuoguan_quietly(user=user, table_id=table_id))
    entry.status = EntryStatus.WITHDRAWN
    if _registration_open(match, now) or waitlisted:  # a wait given up is refunded until the start
        _refund(match, entry, reason="withdrawn")
    entry.save()
    if held_place and match.state in (MatchState.REGISTERING, MatchState.CHECKING_IN):
        _promote(match)
    return entry


def _tuoguan_quietly(*, user, table_id: int) -> None:
    from apps.tables.services import seat_set_tuoguan

    try:
        seat_set_tuoguan(user=user, table_id=table_id, on=True)
    except TableError:
        pass  # the table ended meanwhile


def _promote(match: Match) -> None:
    """Fill free places from the waitlist, in order of registration."""
    free = match.max_entrants - Entry.objects.filter(match=match, status__in=HOLDING_PLACE).count()
    if free <= 0:
        return
    for entry in Entry.objects.filter(match=match, status=EntryStatus.WAITLISTED).order_by("registered_order")[:free]:
        entry.status = EntryStatus.CHECKED_IN if entry.checked_in_at else EntryStatus.REGISTERED
        entry.save(update_fields=["status"])


@transaction.atomic
def check_in(*, match: Match, user, now=None) -> Entry:
    """Confirm presence in the check-in window (default the 10 minutes before the start)."""
    now = _now(now)
    match = _lock(match.pk)
    _sync(match, now)
    entry = Entry.objects.filter(match=match, user=user).first()
    if entry is None:
        raise ValidationError(_("You are not registered for this match."))
    if match.state not in (MatchState.REGISTERING, MatchState.CHECKING_IN) or not (
        match.checkin_opens_at <= now < match.starts_at
    ):
        raise ValidationError(_("Check-in is not open now."))
    if entry.status not in (EntryStatus.REGISTERED, EntryStatus.WAITLISTED, EntryStatus.CHECKED_IN):
        raise ValidationError(_("You are no longer in this match."))
    if entry.checked_in_at is None:
        entry.checked_in_at = now
        if entry.status == EntryStatus.REGISTERED:
            entry.status = EntryStatus.CHECKED_IN
        entry.save(update_fields=["checked_in_at", "status"])
    return entry


# ---- admin: pause, re-seat, never together --------------------------------------------------------


@transaction.atomic
def pause(*, match: Match, by) -> Match:
    """No new hand starts at the match's tables (hands being played finish)."""
    _require_manager(club=match.club, by=by)
    match = _lock(match.pk)
    if match.state != MatchState.RUNNING:
        raise ValidationError(_("Only a running match can be paused."))
    if not match.paused:
        match.paused = True
        match.save(update_fields=["paused"])
        audit_log(club=match.club, actor=by, action=Audit.PAUSE, detail={"match": match.pk})
    return match


@transaction.atomic
def resume(*, match: Match, by) -> Match:
    _require_manager(club=match.club, by=by)
    match = _lock(match.pk)
    if match.state != MatchState.RUNNING:
        raise ValidationError(_("Only a running match can be resumed."))
    if match.paused:
        match.paused = False
        match.save(update_fields=["paused"])
        audit_log(club=match.club, actor=by, action=Audit.RESUME, detail={"match": match.pk})
        table_ids = list(MatchTable.objects.filter(match=match, table__status__in=[TableStatus.WAITING,
                                                                                   TableStatus.PLAYING])
                         .values_list("table_id", flat=True))
        transaction.on_commit(lambda: _release(table_ids))
    transaction.on_commit(lambda: advance(match_id=match.pk))
    return match


def _release(table_ids: list[int]) -> None:
    from apps.tables.unit import autoplay

    for table_id in table_ids:
        try:
            if arranged.arranged_release(table_id=table_id):
                autoplay(table_id=table_id)
        except TableError:
            log.exception("releasing table %s failed", table_id)


@transaction.atomic
def reseat(*, match: Match, by, user, table_number: int, with_user=None) -> MatchTable:
    """Move ``user`` to table ``table_number`` of the current round, swapping with ``with_user``
    (default: the last seat of that table). Only while the round's tables have not started: pause
    the match, and the next round is seated with its tables held until ``resume``. Audited."""
    _require_manager(club=match.club, by=by)
    match = _lock(match.pk)
    if match.state != MatchState.RUNNING or not match.paused:
        raise ValidationError(_("Pause the match first: a re-seat applies to tables that have not started."))
    mround = MatchRound.objects.filter(match=match, number=match.current_round).first()
    tables = list(MatchTable.objects.filter(round=mround).select_related("table")) if mround else []
    source = next((t for t in tables if user.pk in t.seats), None)
    target = next((t for t in tables if t.number == table_number), None)
    if source is None:
        raise ValidationError(_("This player is not seated in the current round."))
    if target is None:
        raise ValidationError(_("There is no table %(n)s in the current round.") % {"n": table_number})
    if source.pk == target.pk:
        raise ValidationError(_("The player already sits at this table."))
    if any(t.table.status != TableStatus.WAITING for t in (source, target)):
        raise ValidationError(_("These tables have already started; re-seat before the round starts."))
    other_id = with_user.pk if with_user is not None else target.seats[-1]
    if other_id not in target.seats:
        raise ValidationError(_("The other player does not sit at that table."))
    users = get_user_model().objects.in_bulk([user.pk, other_id])
    i, j = source.seats.index(user.pk), target.seats.index(other_id)
    try:
        arranged.seat_swap_user(table_id=source.table_id, index=i, user=users[other_id])
        arranged.seat_swap_user(table_id=target.table_id, index=j, user=users[user.pk])
    except TableError as exc:
        raise ValidationError(exc.message) from exc
    source.seats[i], target.seats[j] = other_id, user.pk
    source.save(update_fields=["seats"])
    target.save(update_fields=["seats"])
    Entry.objects.filter(match=match, user_id=user.pk).update(current_table_id=target.table_id)
    Entry.objects.filter(match=match, user_id=other_id).update(current_table_id=source.table_id)
    mround.reseated = True
    mround.save(update_fields=["reseated"])
    audit_log(club=match.club, actor=by, action=Audit.RESEAT, target_user=user,
              detail={"match": match.pk, "round": mround.number, "from_table": source.number,
                      "to_table": target.number, "swapped_with": other_id})
    return target


def _pair(user_a, user_b) -> tuple[int, int]:
    a, b = sorted((user_a.pk, user_b.pk))
    if a == b:
        raise ValidationError(_("Choose two different players."))
    return a, b


@transaction.atomic
def never_together_add(*, club, by, user_a, user_b) -> NeverTogether:
    _require_manager(club=club, by=by)
    a, b = _pair(user_a, user_b)
    if Membership.objects.filter(club=club, user_id__in=[a, b]).count() != 2:
        raise ValidationError(_("Both players must be members of this club."))
    row, created = NeverTogether.objects.get_or_create(club=club, user_a_id=a, user_b_id=b,
                                                       defaults={"created_by": by})
    if created:
        audit_log(club=club, actor=by, action=Audit.NEVER_ADD, target_user=user_a,
                  detail={"users": [a, b]})
    return row


@transaction.atomic
def never_together_remove(*, club, by, user_a, user_b) -> None:
    _require_manager(club=club, by=by)
    a, b = _pair(user_a, user_b)
    deleted, _rows = NeverTogether.objects.filter(club=club, user_a_id=a, user_b_id=b).delete()
    if not deleted:
        raise ValidationError(_("These players are not on the list."))
    audit_log(club=club, actor=by, action=Audit.NEVER_REMOVE, target_user=user_a, detail={"users": [a, b]})


# ---- start ------------------------------------------------------------------------------------------


def start_due(now=None) -> list[int]:
    """Move every match whose time has come (open/close registration, start); the ids moved."""
    now = _now(now)
    due = list(
        Match.objects.filter(state__in=[MatchState.DRAFT, MatchState.REGISTERING, MatchState.CHECKING_IN])
        .filter(registration_opens_at__lte=now)
        .exclude(state=MatchState.REGISTERING, registration_closes_at__gt=now, starts_at__gt=now)
        .exclude(state=MatchState.CHECKING_IN, starts_at__gt=now)
        .values_list("pk", flat=True)
    )
    moved = []
    for match_id in due:
        try:
            with transaction.atomic():
                match = _lock(match_id)
                before = match.state
                _sync(match, now)
                if match.state in (MatchState.REGISTERING, MatchState.CHECKING_IN) and now >= match.starts_at:
                    if match.state == MatchState.REGISTERING:
                        _close_registration(match)
                    _start(match, now)
                if match.state != before:
                    moved.append(match_id)
        except Exception:  # noqa: BLE001 - one broken match must not stop the others
            log.exception("starting match %s failed", match_id)
    return moved


def _start(match: Match, now) -> None:
    entries = list(Entry.objects.filter(match=match).order_by("registered_order"))
    field: list[Entry] = []
    for entry in entries:
        if entry.status == EntryStatus.CHECKED_IN:
            field.append(entry)
    for entry in entries:  # checked-in waitlisted entrants take places nobody checked in for
        if entry.status == EntryStatus.WAITLISTED and entry.checked_in_at and len(field) < match.max_entrants:
            field.append(entry)
    chosen = {e.pk for e in field}
    for entry in entries:
        if entry.pk in chosen:
            continue
        if entry.status in (EntryStatus.REGISTERED, EntryStatus.WAITLISTED, EntryStatus.CHECKED_IN):
            entry.status = EntryStatus.DROPPED
            _refund(match, entry, reason="not_checked_in")
            entry.save(update_fields=["status", "refunded"])
    needed = max(match.min_entrants, match.players)
    if len(field) < needed:
        _cancel(match, reason=_("Too few entrants: %(n)s checked in, %(min)s needed. Every fee was refunded.")
                % {"n": len(field), "min": needed})
        return
    for entry in field:
        entry.status = EntryStatus.ACTIVE
        entry.chips = match.elim_start_chips if match.format == Format.ELIMINATION else 0
    Entry.objects.bulk_update(field, ["status", "chips"])
    match.state, match.started_at = MatchState.RUNNING, now
    match.save(update_fields=["state", "started_at"])
    seed = bytes.fromhex(match.seed_secret)
    seat = seating.seat_round([e.user_id for e in field], table_size=match.players, seed=seed, round_no=1,
                              met=set(), avoid=_avoid(match, [e.user_id for e in field]), byes_had=set(),
                              by_standings=False)
    hands = match.hands_per_round
    kind = RoundKind.ROUND
    if match.format != Format.FIXED and formats.is_final(len(field), match.players):
        hands, kind = match.final_hands, RoundKind.FINAL
        match.in_final = True
    elif match.format == Format.ELIMINATION:
        hands = 1
    _open_round(match, number=1, kind=kind, hands=hands, players=[e.user_id for e in field],
                seat=seat, entries={e.user_id: e for e in field})
    match.seed = match.seed_secret  # revealed: round 1 is seated
    match.save(update_fields=["seed", "in_final"])


def _avoid(match: Match, user_ids: list[int]) -> set[frozenset[int]]:
    """Pairs never to seat together when avoidable: shared IP in the last 30 days ∪ the club's list."""
    since = timezone.now() - timedelta(days=SHARED_IP_DAYS)
    pairs = set(shared_address_pairs(user_ids=user_ids, since=since))
    wanted = set(user_ids)
    for a, b in NeverTogether.objects.filter(club_id=match.club_id).values_list("user_a_id", "user_b_id"):
        if a in wanted and b in wanted:
            pairs.add(frozenset((a, b)))
    return pairs


def _rules(match: Match) -> arranged.Rules:
    return arranged.Rules(preset=match.preset, options=match.options, players=match.players,
                          base_score=match.base_score, piao_choices=match.piao_choices,
                          turn_seconds=match.turn_seconds, ruleset=match.ruleset)


def _open_round(match: Match, *, number: int, kind: str, hands: int, players: list[int], seat,
                entries: dict[int, Entry], away: set[int] = frozenset()) -> MatchRound:
    """Create the round and its tables (unique per (match, number) and (round, number): a second
    advancer fails here instead of seating twice)."""
    mround = MatchRound.objects.create(
        match=match, number=number, kind=kind, hands=hands, players=players, byes=list(seat.byes),
        repeats=seat.repeats, avoid_broken=seat.avoid_broken,
    )
    users = get_user_model().objects.in_bulk([u for t in seat.tables for u in t])
    label = _("Final") if kind == RoundKind.FINAL else _("R%(n)s") % {"n": number}
    for i, ids in enumerate(seat.tables, start=1):
        table = arranged.arranged_open(
            club=match.club, users=[users[u] for u in ids], rules=_rules(match), hands=hands,
            name=f"{match.name} · {label} · {i}", template=match.template, by=None, practice=True,
            tuoguan={u for u in ids if u in away}, hold=match.paused,
        )
        MatchTable.objects.create(match=match, round=mround, number=i, table=table, seats=list(ids))
        for u in ids:
            entries[u].current_table = table
    bye_points = (formats.bye_points(match.points_by_rank, match.players)
                  if match.format == Format.FIXED else 0)
    for u in seat.byes:
        entries[u].byes += 1
        entries[u].match_points += bye_points
        entries[u].current_table = None
    Entry.objects.bulk_update(list(entries.values()), ["current_table", "byes", "match_points"])
    match.current_round = number
    match.save(update_fields=["current_round"])
    if _kick.enabled:
        table_ids = list(MatchTable.objects.filter(round=mround).values_list("table_id", flat=True))
        transaction.on_commit(lambda: play_tables(table_ids))
    return mround


def play_tables(table_ids: list[int]) -> None:
    """Let 托管 seats of these tables play what is due now (``unit.autoplay``: a no-op when bots
    are paced, then the deadline beat plays them)."""
    from apps.tables.unit import autoplay

    for table_id in table_ids:
        try:
            autoplay(table_id=table_id)
        except TableError:
            log.exception("autoplay of table %s failed", table_id)


class _Kick(threading.local):
    """Whether a newly seated round's 托管 seats are played right after the commit. Off while
    ``advance`` runs from a receiver (inside another table's autoplay): playing there would nest
    one round inside the next; the beat (``advance_matches``) or the caller plays them instead."""

    enabled = True


_kick = _Kick()


# ---- advance ------------------------------------------------------------------------------------------


def advance(*, match_id: int, play: bool = True) -> bool:
    """Record finished tables of a running match and, when its round is over, seat the next round
    or finish. Idempotent and safe to call from anywhere, any number of times at once: everything
    happens under the match row lock and new rounds/tables are unique in the database.
    ``play=False``: do not autoplay the new round's 托管 seats after the commit (receivers.py)."""
    previous, _kick.enabled = _kick.enabled, play
    try:
        return _advance(match_id)
    finally:
        _kick.enabled = previous


def _advance(match_id: int) -> bool:
    with transaction.atomic():
        match = _lock(match_id)
        if match.state != MatchState.RUNNING:
            return False
        recorded = _record(match)
        mround = MatchRound.objects.filter(match=match, number=match.current_round).first()
        if mround is None or mround.state == RoundState.FINISHED:
            return recorded
        if MatchTable.objects.filter(round=mround, results__isnull=True).exists():
            return recorded
        mround.state, mround.finished_at = RoundState.FINISHED, timezone.now()
        _next(match, mround)
        mround.save(update_fields=["state", "finished_at", "line"])
        return True


def _record(match: Match) -> bool:
    """Write the results of the match's tables that ended and are not recorded yet (once: the
    ``results`` column is filled under the match lock)."""
    pending = list(MatchTable.objects.filter(match=match, results__isnull=True,
                                             table__status__in=[TableStatus.FINISHED, TableStatus.DISSOLVED]))
    if not pending:
        return False
    ids = [mt.table_id for mt in pending]
    seats = {(s.table_id, s.index): s for s in Seat.objects.filter(table_id__in=ids)}
    per_hand: dict[tuple[int, int], list[int]] = {}
    for table_id, players, totals in Hand.objects.filter(table_id__in=ids, status=HandStatus.FINISHED) \
            .values_list("table_id", "players", "totals"):
        for seat_key, user_id in (players or {}).items():
            total = int(((totals or {}).get("total") or {}).get(str(seat_key), 0))
            per_hand.setdefault((table_id, user_id), []).append(total)
    own: set[tuple[int, int]] = set()
    timed_out: set[tuple[int, int]] = set()
    for table_id, type_, payload in TableEvent.objects.filter(
        table_id__in=ids, type__in=["action", "seat.tuoguan", "seat.timeout", "piao.choose"]
    ).values_list("table_id", "type", "payload"):
        seat_no = payload.get("seat")
        if type_ == "seat.timeout":
            timed_out.add((table_id, seat_no))
        elif (type_ == "action" and payload.get("by") == "player") or \
                (type_ == "seat.tuoguan" and payload.get("on") is False) or \
                (type_ == "piao.choose" and not payload.get("timeout")):
            own.add((table_id, seat_no))
    entries = {e.user_id: e for e in Entry.objects.filter(match=match)}
    size = match.players
    for mt in pending:
        game = {u: sum(per_hand.get((mt.table_id, u), [])) for u in mt.seats}
        mpoints = (formats.table_match_points(game, match.points_by_rank, size)
                   if match.format == Format.FIXED and len(game) == size else {u: 0 for u in game})
        order = sorted(mt.seats, key=lambda u: (-game[u], entries[u].registered_order))
        results = {}
        for index, u in enumerate(mt.seats):
            entry = entries[u]
            hands = per_hand.get((mt.table_id, u), [])
            best = max(hands) if hands else 0
            absent = (mt.table_id, index) not in own and (
                (mt.table_id, index) in timed_out or entry.absent_rounds > 0)
            seat = seats.get((mt.table_id, index))
            results[str(u)] = {"game_points": game[u], "best_hand": best, "rank": order.index(u) + 1,
                               "match_points": mpoints.get(u, 0), "absent": absent, "hands": len(hands),
                               "tuoguan": bool(seat and seat.tuoguan)}
            entry.game_points += game[u]
            entry.best_hand = max(entry.best_hand, best) if entry.hands_played else best
            entry.hands_played += len(hands)
            entry.match_points += mpoints.get(u, 0)
            if match.format == Format.ELIMINATION:
                entry.chips += game[u]
            entry.absent_rounds = entry.absent_rounds + 1 if absent else 0
            if entry.current_table_id == mt.table_id:
                entry.current_table = None
            if entry.status == EntryStatus.ACTIVE and entry.absent_rounds >= 2:
                entry.status, entry.out_round = EntryStatus.WITHDRAWN, match.current_round
        mt.results, mt.finished_at = results, timezone.now()
        mt.save(update_fields=["results", "finished_at"])
    Entry.objects.bulk_update(list(entries.values()), [
        "game_points", "best_hand", "hands_played", "match_points", "chips", "absent_rounds",
        "current_table", "status", "out_round"])
    return True


def _standing_rows(entries) -> list[Entry]:
    return formats.standings_order(entries)


def _met(match: Match) -> set[frozenset[int]]:
    met: set[frozenset[int]] = set()
    for seats in MatchTable.objects.filter(match=match).values_list("seats", flat=True):
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                met.add(frozenset((a, b)))
    return met


def _away(match: Match, mround: MatchRound) -> set[int]:
    """Players still on 托管 at the end of their table this round: they start the next on 托管."""
    away = set()
    for results in MatchTable.objects.filter(round=mround).values_list("results", flat=True):
        away.update(int(u) for u, r in (results or {}).items() if r.get("tuoguan"))
    return away


def _next(match: Match, mround: MatchRound) -> None:
    """The round is over: seat the next one or finish (the caller holds the lock)."""
    entries = {e.user_id: e for e in Entry.objects.filter(match=match)}
    members = set(Membership.objects.filter(club_id=match.club_id, user_id__in=list(entries))
                  .values_list("user_id", flat=True))
    for entry in entries.values():  # a player who left the club cannot be seated again
        if entry.status == EntryStatus.ACTIVE and entry.user_id not in members:
            entry.status, entry.out_round = EntryStatus.WITHDRAWN, mround.number
            entry.save(update_fields=["status", "out_round"])
    active = [e for e in entries.values() if e.status == EntryStatus.ACTIVE]
    size, number = match.players, mround.number + 1
    away = _away(match, mround)
    if mround.kind == RoundKind.FINAL or len(active) < size:
        _finish(match)
        return
    if match.format == Format.FIXED:
        if mround.number >= match.rounds:
            _finish(match)
            return
        order = [e.user_id for e in _standing_rows(active)]
        seat = seating.seat_round(order, table_size=size, seed=bytes.fromhex(match.seed), round_no=number,
                                  met=_met(match), avoid=_avoid(match, order),
                                  byes_had={e.user_id for e in active if e.byes}, by_standings=True)
        _open_round(match, number=number, kind=RoundKind.ROUND, hands=match.hands_per_round, players=order,
                    seat=seat, entries=entries, away=away)
        return
    if match.format == Format.ELIMINATION:
        _next_elimination(match, mround, entries, active, away)
        return
    _next_knockout(match, mround, entries, active, away)


def _chip_order(active: list[Entry]) -> list[int]:
    return [e.user_id for e in sorted(active, key=lambda e: (-e.chips, -e.game_points, -e.best_hand,
                                                               e.registered_order))]


def _next_elimination(match, mround, entries, active, away) -> None:
    size, number = match.players, mround.number + 1
    match.stage_hands += 1
    line = formats.elimination_line(match.stage_hands, match.elim_line, match.elim_rise_every, match.elim_rise_by)
    mround.line = line
    order = _chip_order(active)
    out = formats.eliminate({e.user_id: e.chips for e in active}, line, size, order=order)
    if match.stage_hands >= MAX_STAGE_HANDS:
        out = set(order[size:])
    for u in out:
        entries[u].status, entries[u].out_round = EntryStatus.OUT, mround.number
        entries[u].save(update_fields=["status", "out_round"])
    remaining = [u for u in order if u not in out]
    match.save(update_fields=["stage_hands"])
    avoid = _avoid(match, remaining)
    if formats.is_final(len(remaining), size):
        seat = seating.seat_round(remaining, table_size=size, seed=bytes.fromhex(match.seed), round_no=number,
                                  met=set(), avoid=avoid, byes_had=set(), by_standings=True)
        match.in_final = True
        match.save(update_fields=["in_final"])
        _open_round(match, number=number, kind=RoundKind.FINAL, hands=match.final_hands, players=remaining,
                    seat=seat, entries=entries, away=away)
        return
    previous = list(MatchTable.objects.filter(round=mround).order_by("number").values_list("seats", flat=True))
    gone = out | {u for u, e in entries.items() if e.status != EntryStatus.ACTIVE}
    seat = seating.rebalance(previous, gone, table_size=size, order=remaining,
                             waiting=[u for u in mround.byes if u not in gone], avoid=avoid)
    _open_round(match, number=number, kind=RoundKind.ROUND, hands=1, players=remaining, seat=seat,
                entries=entries, away=away)


def _next_knockout(match, mround, entries, active, away) -> None:
    size, number = match.players, mround.number + 1
    active_ids = {e.user_id for e in active}
    tables = list(MatchTable.objects.filter(round=mround).order_by("number"))
    rows = []
    for mt in tables:
        rows.append([{"user_id": u, "game_points": r["game_points"], "best_hand": r["best_hand"],
                      "registered_order": entries[u].registered_order}
                     for u, r in ((int(k), v) for k, v in mt.results.items()) if u in active_ids])
    advancing = [u for u in formats.knockout_advance(rows, match.knockout_top) if u in active_ids]
    advancing += [u for u in mround.byes if u in active_ids and u not in advancing]
    if len(advancing) < size:  # fill a final table with the best of the rest
        rest = formats.standings_order([r for t in rows for r in t if r["user_id"] not in advancing])
        advancing += [r["user_id"] for r in rest[: size - len(advancing)]]
    for u in active_ids - set(advancing):
        entries[u].status, entries[u].out_round = EntryStatus.OUT, mround.number
        entries[u].save(update_fields=["status", "out_round"])
    final = formats.is_final(len(advancing), size)
    seat = seating.seat_round(advancing, table_size=size, seed=bytes.fromhex(match.seed), round_no=number,
                              met=_met(match), avoid=_avoid(match, advancing),
                              byes_had={u for u in advancing if entries[u].byes}, by_standings=True)
    if final:
        match.in_final = True
        match.save(update_fields=["in_final"])
    _open_round(match, number=number, kind=RoundKind.FINAL if final else RoundKind.ROUND,
                hands=match.final_hands if final else match.hands_per_round, players=advancing, seat=seat,
                entries=entries, away=away)


# ---- finish -------------------------------------------------------------------------------------------


def final_order(match: Match) -> list[Entry]:
    """Everyone who played, best first (the final places)."""
    played = [e for e in Entry.objects.filter(match=match)
              if e.status in (EntryStatus.ACTIVE, EntryStatus.OUT)
              or (e.status == EntryStatus.WITHDRAWN and e.out_round is not None)]
    if match.format == Format.FIXED:
        still = formats.standings_order([e for e in played if e.status == EntryStatus.ACTIVE])
        left = formats.standings_order([e for e in played if e.status != EntryStatus.ACTIVE])
        return still + left
    last: dict[int, dict] = {}
    reached: dict[int, int] = {}
    for number, results in MatchTable.objects.filter(match=match).values_list("round__number", "results"):
        for u, r in (results or {}).items():
            if number >= reached.get(int(u), 0):
                reached[int(u)], last[int(u)] = number, r

    def key(e: Entry):
        r = last.get(e.user_id, {})
        playing = 1 if e.status == EntryStatus.ACTIVE else 0
        stage = reached.get(e.user_id, 0) if not playing else 10**6
        score = e.chips if match.format == Format.ELIMINATION else r.get("game_points", 0)
        return (-playing, -stage, -score, -r.get("best_hand", 0), e.registered_order)

    return sorted(played, key=key)


def _finish(match: Match) -> None:
    order = final_order(match)
    for place, entry in enumerate(order, start=1):
        entry.rank = place
        entry.current_table = None
    Entry.objects.bulk_update(order, ["rank", "current_table"])
    escrow = Account.objects.select_for_update().get(pk=match.escrow_id)
    pool = escrow.balance
    amounts = formats.prize_amounts(pool, match.prize_scheme, len(order))
    house = club_account(club_id=match.club_id)
    diff = pool - sum(amounts)
    if diff < 0:
        _post(match, f"match:{match.pk}:house-in",
              [Line(house.pk, diff, EntryKind.PRIZE), Line(match.escrow_id, -diff, EntryKind.PRIZE)],
              memo=f"{match.name}: prizes beyond the pool"[:200])
    accounts = member_accounts(club_id=match.club_id, user_ids=[e.user_id for e in order[: len(amounts)]])
    for place, (entry, amount) in enumerate(zip(order, amounts, strict=False), start=1):
        if amount <= 0:
            continue
        _post(match, prize_key(match.pk, place),
              [Line(match.escrow_id, -amount, EntryKind.PRIZE),
               Line(accounts[entry.user_id].pk, amount, EntryKind.PRIZE)],
              memo=f"{match.name}: prize #{place}"[:200], detail={"user": entry.user_id, "rank": place})
        entry.prize = amount
        entry.save(update_fields=["prize"])
    if diff > 0:
        _post(match, f"match:{match.pk}:house-out",
              [Line(match.escrow_id, -diff, EntryKind.ENTRY_FEE), Line(house.pk, diff, EntryKind.ENTRY_FEE)],
              memo=f"{match.name}: pool beyond the prizes"[:200])
    _close_escrow(match)
    match.state, match.finished_at = MatchState.FINISHED, timezone.now()
    match.save(update_fields=["state", "finished_at"])


def running_match_ids() -> list[int]:
    return list(Match.objects.filter(state=MatchState.RUNNING).values_list("pk", flat=True))


__all__ += ["final_order", "running_match_ids", "fee_key", "refund_key", "prize_key"]


def open_table_ids(*, match_id: int) -> list[int]:
    return list(MatchTable.objects.filter(match_id=match_id, table__status__in=[TableStatus.WAITING,
                                                                                TableStatus.PLAYING])
                .values_list("table_id", flat=True))


__all__ += ["open_table_ids", "play_tables"]
