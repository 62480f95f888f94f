"""The organisers' verbs (owner/admins, audited): pause, resume, re-seat, the never-together list."""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from apps.clubs import access
from apps.clubs.models import AuditAction, Membership
from apps.clubs.services import audit_log
from apps.tables.models import TableStatus
from apps.tables.transaction.context import TableError
from apps.tables.verbs import arranged

from ..models import Entrant, Match, MatchRound, MatchState, MatchTable, NeverTogether
from .base import lock
from .rounds import advance, open_table_ids

log = logging.getLogger(__name__)


@transaction.atomic
def pause(*, match: Match, by) -> Match:
    """No new hand starts at the match's tables (hands being played finish)."""
    access.require_manager(club=match.club, user=by)
    match = lock(match.pk)
    if match.state != MatchState.RUNNING:
        raise ValidationError(_("Only a running match can be paused."))
    if not match.paused:
        match.paused = True
        match.save(update_fields=["paused"])
        audit_log(club=match.club, actor=by, action=AuditAction.MATCH_PAUSE, detail={"match": match.pk})
    return match


@transaction.atomic
def resume(*, match: Match, by) -> Match:
    access.require_manager(club=match.club, user=by)
    match = lock(match.pk)
    if match.state != MatchState.RUNNING:
        raise ValidationError(_("Only a running match can be resumed."))
    if match.paused:
        match.paused = False
        match.save(update_fields=["paused"])
        audit_log(club=match.club, actor=by, action=AuditAction.MATCH_RESUME, detail={"match": match.pk})
        table_ids = open_table_ids(match_id=match.pk)
        transaction.on_commit(lambda: _release(table_ids))
    transaction.on_commit(lambda: advance(match_id=match.pk))
    return match


def _release(table_ids: list[int]) -> None:
    from apps.tables.transaction.unit import autoplay

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
    access.require_manager(club=match.club, user=by)
    match = lock(match.pk)
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
    Entrant.objects.filter(match=match, user_id=user.pk).update(current_table_id=target.table_id)
    Entrant.objects.filter(match=match, user_id=other_id).update(current_table_id=source.table_id)
    mround.reseated = True
    mround.save(update_fields=["reseated"])
    audit_log(club=match.club, actor=by, action=AuditAction.MATCH_RESEAT, target_user=user,
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
    access.require_manager(club=club, user=by)
    a, b = _pair(user_a, user_b)
    if Membership.objects.filter(club=club, user_id__in=[a, b]).count() != 2:
        raise ValidationError(_("Both players must be members of this club."))
    row, created = NeverTogether.objects.get_or_create(club=club, user_a_id=a, user_b_id=b,
                                                       defaults={"created_by": by})
    if created:
        audit_log(club=club, actor=by, action=AuditAction.NEVER_TOGETHER_ADD, target_user=user_a,
                  detail={"users": [a, b]})
    return row


@transaction.atomic
def never_together_remove(*, club, by, user_a, user_b) -> None:
    access.require_manager(club=club, user=by)
    a, b = _pair(user_a, user_b)
    deleted, _rows = NeverTogether.objects.filter(club=club, user_a_id=a, user_b_id=b).delete()
    if not deleted:
        raise ValidationError(_("These players are not on the list."))
    audit_log(club=club, actor=by, action=AuditAction.NEVER_TOGETHER_REMOVE, target_user=user_a,
              detail={"users": [a, b]})
