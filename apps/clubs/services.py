"""Write-side operations on clubs. Keyword-only verbs; each checks the actor's role itself.

They raise ``PermissionDenied`` when the actor's role does not allow the action and
``ValidationError`` when the request makes no sense (expired invite, banned user, bad option...).
Every admin action writes an ``AuditLog`` row in the same transaction.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts import notices

from . import access, live, selectors
from .models import (
    ANNOUNCEMENT_MAX,
    AuditAction,
    AuditLog,
    Ban,
    Club,
    FeePayer,
    Invite,
    JoinRequest,
    JoinStatus,
    Membership,
    Role,
    RuleTemplate,
)

__all__ = [
    "PermissionDenied",
    "ValidationError",
    "audit_log",
    "club_create",
    "invite_create",
    "invite_revoke",
    "join_request_create",
    "join_request_approve",
    "join_request_reject",
    "member_remove",
    "member_ban",
    "member_unban",
    "member_set_role",
    "ownership_transfer",
    "member_leave",
    "template_create",
    "template_update",
    "template_delete",
    "template_validate",
    "announcement_set",
    "announcement_shown",
]

INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: codes are read aloud


def audit_log(*, club: Club | None = None, actor=None, action: str, target_user=None, detail: dict | None = None,
              club_id: int | None = None, actor_id: int | None = None) -> AuditLog:
    """Record who did what to whom in a club (shown to owner and admins).

    ``club_id``/``actor_id`` instead of the objects, for callers that hold only the ids.
    """
    return AuditLog.objects.create(
        club=club, club_id=club.pk if club is not None else club_id,
        actor=actor, actor_id=actor.pk if actor is not None else actor_id,
        action=str(action), target_user=target_user, detail=detail or {},
    )


def _actor_membership(*, club: Club, user, lock: bool = False) -> Membership:
    qs = Membership.objects.filter(club=club, user=user)
    if lock:
        qs = qs.select_for_update()
    membership = qs.first()
    if membership is None:
        raise PermissionDenied(_("You are not a member of this club."))
    return membership


def _require(allowed: bool) -> None:
    if not allowed:
        raise PermissionDenied(_("Your role in this club does not allow this."))


def _lock_club(club: Club) -> Club:
    return Club.objects.select_for_update().get(pk=club.pk)


# --- clubs ----------------------------------------------------------------------------------


@transaction.atomic
def club_create(*, name: str, owner) -> Club:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": _("A club needs a name.")})
    club = Club.objects.create(name=name, owner=owner)
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    audit_log(club=club, actor=owner, action=AuditAction.CLUB_CREATE, detail={"name": name})
    return club


# --- the announcement (公告) ---------------------------------------------------------------------


@transaction.atomic
def announcement_set(*, club: Club, by, text: str) -> Club:
    """The owner or an admin sets the club's 公告 (plain text; "" clears it). A change bumps
    ``announcement_rev``, so every member is shown it once more; the writer has seen his own words.
    Too long: ValidationError, nothing changes. The same text again changes nothing."""
    text = (text or "").strip().replace("\r\n", "\n")
    if len(text) > ANNOUNCEMENT_MAX:
        raise ValidationError({"announcement": _("An announcement has at most %(max)d characters.")
                               % {"max": ANNOUNCEMENT_MAX}})
    club = _lock_club(club)
    actor = _actor_membership(club=club, user=by)
    _require(access.is_manager(actor))
    if text == club.announcement:
        return club
    club.announcement, club.announcement_at = text, timezone.now()
    club.announcement_rev += 1
    club.save(update_fields=["announcement", "announcement_rev", "announcement_at"])
    Membership.objects.filter(pk=actor.pk).update(announcement_seen=club.announcement_rev)
    audit_log(club=club, actor=by, action=AuditAction.ANNOUNCEMENT_SET, detail={"text": text})
    return club


def announcement_shown(*, club: Club, membership: Membership | None) -> bool:
    """Whether the club page should pop the 公告 up for this member now: it is not empty and changed
    since he was last shown it. Marks it shown (one UPDATE, only then), so it pops up once."""
    if membership is None or not club.announcement or membership.announcement_seen >= club.announcement_rev:
        return False
    updated = Membership.objects.filter(pk=membership.pk, announcement_seen__lt=club.announcement_rev).update(
        announcement_seen=club.announcement_rev)
    membership.announcement_seen = club.announcement_rev
    return bool(updated)


# --- invites --------------------------------------------------------------------------------


def _new_code() -> str:
    while True:
        code = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(8))
        if not Invite.objects.filter(code=code).exists():
            return code


@transaction.atomic
def invite_create(*, club: Club, by, valid_hours: int = 24 * 7, max_uses: int | None = None) -> Invite:
    _require(access.is_manager(_actor_membership(club=club, user=by)))
    if valid_hours < 1 or valid_hours > 24 * 90:
        raise ValidationError({"valid_hours": _("An invite is valid from 1 hour to 90 days.")})
    if max_uses is not None and max_uses < 1:
        raise ValidationError({"max_uses": _("Maximum uses must be at least 1.")})
    invite = Invite.objects.create(
        club=club,
        code=_new_code(),
        created_by=by,
        expires_at=timezone.now() + timedelta(hours=valid_hours),
        max_uses=max_uses,
    )
    audit_log(
        club=club,
        actor=by,
        action=AuditAction.INVITE_CREATE,
        detail={"code": invite.code, "valid_hours": valid_hours, "max_uses": max_uses},
    )
    return invite


@transaction.atomic
def invite_revoke(*, invite: Invite, by) -> Invite:
    _require(access.is_manager(_actor_membership(club=invite.club, user=by)))
    if invite.revoked_at is None:
        invite.revoked_at = timezone.now()
        invite.save(update_fields=["revoked_at"])
        audit_log(club=invite.club, actor=by, action=AuditAction.INVITE_REVOKE, detail={"code": invite.code})
    return invite


# --- join requests --------------------------------------------------------------------------


@transaction.atomic
def join_request_create(*, invite: Invite, user) -> JoinRequest:
    """A signed-in user asks to join the invite's club."""
    invite = Invite.objects.select_for_update().select_related("club").get(pk=invite.pk)
    club = invite.club
    if not invite.is_usable():
        raise ValidationError(_("This invite has expired or was revoked."))
    if Membership.objects.filter(club=club, user=user).exists():
        raise ValidationError(_("You are already a member of this club."))
    if selectors.is_banned(user=user, club=club):
        raise ValidationError(_("You cannot join this club."))
    if JoinRequest.objects.filter(club=club, user=user, status=JoinStatus.PENDING).exists():
        raise ValidationError(_("You already asked to join; wait for an answer."))
    request = JoinRequest.objects.create(club=club, user=user, invite=invite)
    invite.uses += 1
    invite.save(update_fields=["uses"])
    live.nudge_on_commit(club.pk)  # the managers' pending count on the club page
    # The club's managers hear of it on whatever page they are (their requests page and the tab
    # bar's count refresh themselves on this notice): once each.
    managers = Membership.objects.filter(club=club, role__in=access.MANAGER_ROLES).values_list("user_id", flat=True)
    notices.notify_each(recipient_ids=managers, kind="join_requested", key=f"join:{request.pk}:asked",
                        params={"name": user.name, "club": club.name}, url=reverse("clubs:requests", args=[club.pk]))
    return request


def _lock_pending(join_request: JoinRequest) -> JoinRequest:
    locked = JoinRequest.objects.select_for_update().select_related("club", "user").get(pk=join_request.pk)
    if locked.status != JoinStatus.PENDING:
        raise ValidationError(_("This request was already answered."))
    return locked


@transaction.atomic
def join_request_approve(*, join_request: JoinRequest, by) -> Membership:
    _require(access.is_manager(_actor_membership(club=join_request.club, user=by)))
    req = _lock_pending(join_request)
    if selectors.is_banned(user=req.user, club=req.club):
        raise ValidationError(_("This user is banned from the club."))
    membership, _created = Membership.objects.get_or_create(
        club=req.club, user=req.user, defaults={"role": Role.MEMBER}
    )
    req.status, req.decided_by, req.decided_at = JoinStatus.APPROVED, by, timezone.now()
    req.save(update_fields=["status", "decided_by", "decided_at"])
    audit_log(club=req.club, actor=by, action=AuditAction.JOIN_APPROVE, target_user=req.user)
    live.nudge_on_commit(req.club_id)
    notices.notify(recipient_id=req.user_id, kind="join_approved", key=f"join:{req.pk}:answered",
                   params={"club": req.club.name}, url=reverse("clubs:detail", args=[req.club_id]))
    return membership


@transaction.atomic
def join_request_reject(*, join_request: JoinRequest, by) -> JoinRequest:
    _require(access.is_manager(_actor_membership(club=join_request.club, user=by)))
    req = _lock_pending(join_request)
    req.status, req.decided_by, req.decided_at = JoinStatus.REJECTED, by, timezone.now()
    req.save(update_fields=["status", "decided_by", "decided_at"])
    audit_log(club=req.club, actor=by, action=AuditAction.JOIN_REJECT, target_user=req.user)
    live.nudge_on_commit(req.club_id)
    notices.notify(recipient_id=req.user_id, kind="join_rejected", key=f"join:{req.pk}:answered",
                   params={"club": req.club.name})
    return req


# --- members --------------------------------------------------------------------------------


def _check_act_on(*, target: Membership, by) -> Membership:
    _lock_club(target.club)
    actor = _actor_membership(club=target.club, user=by)
    _require(access.is_manager(actor))
    if not access.can_act_on_member(actor, target):
        raise PermissionDenied(_("You cannot do this to this member."))
    return actor


@transaction.atomic
def member_remove(*, membership: Membership, by) -> None:
    _check_act_on(target=membership, by=by)
    membership.delete()
    audit_log(club=membership.club, actor=by, action=AuditAction.MEMBER_REMOVE, target_user=membership.user)


@transaction.atomic
def member_ban(*, membership: Membership, by) -> Ban:
    """Remove the member and keep him out: a banned user cannot ask to join again."""
    _check_act_on(target=membership, by=by)
    club, user = membership.club, membership.user
    membership.delete()
    ban, _created = Ban.objects.get_or_create(club=club, user=user, defaults={"by": by})
    JoinRequest.objects.filter(club=club, user=user, status=JoinStatus.PENDING).update(
        status=JoinStatus.REJECTED, decided_by=by, decided_at=timezone.now()
    )
    audit_log(club=club, actor=by, action=AuditAction.MEMBER_BAN, target_user=user)
    return ban


@transaction.atomic
def member_unban(*, ban: Ban, by) -> None:
    _require(access.is_manager(_actor_membership(club=ban.club, user=by)))
    ban.delete()
    audit_log(club=ban.club, actor=by, action=AuditAction.MEMBER_UNBAN, target_user=ban.user)


@transaction.atomic
def member_set_role(*, membership: Membership, role: str, by) -> Membership:
    """The owner promotes a member to admin or demotes an admin to member."""
    _lock_club(membership.club)
    _require(access.is_owner(_actor_membership(club=membership.club, user=by)))
    if role not in (Role.ADMIN, Role.MEMBER):
        raise ValidationError({"role": _("Use ownership transfer to change the owner.")})
    membership.refresh_from_db()
    if membership.role == Role.OWNER:
        raise ValidationError(_("Use ownership transfer to change the owner."))
    if membership.role == role:
        return membership
    membership.role = role
    membership.save(update_fields=["role"])
    action = AuditAction.MEMBER_PROMOTE if role == Role.ADMIN else AuditAction.MEMBER_DEMOTE
    audit_log(club=membership.club, actor=by, action=action, target_user=membership.user)
    return membership


@transaction.atomic
def ownership_transfer(*, club: Club, to: Membership, by) -> Club:
    """The owner hands the club to another member; the old owner stays on as an admin."""
    club = _lock_club(club)
    actor = _actor_membership(club=club, user=by, lock=True)
    _require(access.is_owner(actor))
    if to.club_id != club.pk or to.pk == actor.pk:
        raise ValidationError(_("Choose another member of this club."))
    # Demote first: the database allows one owner per club at any instant.
    actor.role = Role.ADMIN
    actor.save(update_fields=["role"])
    Membership.objects.filter(pk=to.pk).update(role=Role.OWNER)
    club.owner_id = to.user_id
    club.save(update_fields=["owner"])
    audit_log(club=club, actor=by, action=AuditAction.OWNER_TRANSFER, target_user=to.user)
    return club


@transaction.atomic
def member_leave(*, club: Club, user) -> None:
    membership = _actor_membership(club=club, user=user, lock=True)
    if membership.role == Role.OWNER:
        raise ValidationError(_("The owner must transfer ownership before leaving."))
    membership.delete()
    audit_log(club=club, actor=user, action=AuditAction.MEMBER_LEAVE, target_user=user)


# --- rule templates -------------------------------------------------------------------------

TEMPLATE_FIELDS = (
    "name",
    "preset",
    "options",
    "players",
    "base_score",
    "piao_choices",
    "hands_per_session",
    "turn_seconds",
    "claim_seconds",
    "fee",
    "fee_payer",
    "forbid_same_network",
    "forbid_near",
    "no_phrases",
)
CLAIM_SECONDS_DEFAULT = 15  # RuleTemplate.claim_seconds's default
# A sanity bound, not a policy: keeps a typo from overflowing the integer column.
MAX_FEE = 10**9


def template_validate(*, fields: dict[str, Any]) -> None:
    """Check a template's numbers and resolve its ruleset with the engine.

    The engine's ``RuleError`` names the bad option; it is reported on the matching form field.
    """
    from apps.engine.rules import RuleError, resolve_ruleset

    errors = template_field_errors(fields)
    if errors:
        raise ValidationError(errors)
    options, piao = fields.get("options"), fields.get("piao_choices")
    try:
        ruleset = resolve_ruleset(fields["preset"], options, players=fields["players"])
    except RuleError as exc:
        field = str(exc).split(":", 1)[0]
        field = field if field in ("preset", "players") else "options"
        raise ValidationError({field: _("Invalid rules: %(error)s") % {"error": exc}}) from exc
    if piao and not ruleset.piao:
        raise ValidationError(
            {"piao_choices": _('This ruleset has no piao; set the option "piao": true or leave this empty.')}
        )


def template_field_errors(fields: dict[str, Any]) -> dict[str, str]:
    """The template's numbers and shapes checked one by one, every error at once (field name ->
    message); the rules themselves are the engine's (``template_validate``)."""
    errors: dict[str, str] = {}
    if not str(fields.get("name", "")).strip():
        errors["name"] = _("A template needs a name.")
    if fields.get("players") not in (2, 3, 4):
        errors["players"] = _("Players must be 2, 3 or 4.")
    if not isinstance(fields.get("base_score"), int) or fields["base_score"] < 1:
        errors["base_score"] = _("Base score must be at least 1.")
    if not isinstance(fields.get("hands_per_session"), int) or fields["hands_per_session"] < 1:
        errors["hands_per_session"] = _("Hands per session must be at least 1.")
    if not isinstance(fields.get("turn_seconds"), int) or fields["turn_seconds"] < 5:
        errors["turn_seconds"] = _("The turn time limit must be at least 5 seconds.")
    claim = fields.get("claim_seconds", CLAIM_SECONDS_DEFAULT)  # absent: the model default
    if isinstance(claim, bool) or not isinstance(claim, int) or not 3 <= claim <= 120:
        errors["claim_seconds"] = _("The claim time limit must be between 3 and 120 seconds.")
    fee = fields.get("fee", 0)  # absent: the model default (no fee)
    if isinstance(fee, bool) or not isinstance(fee, int) or fee < 0:
        errors["fee"] = _("The table fee cannot be negative; 0 means no fee.")
    elif fee > MAX_FEE:
        errors["fee"] = _("The table fee is too large.")
    if fields.get("fee_payer", FeePayer.EACH) not in FeePayer.values:
        errors["fee_payer"] = _("Choose who pays the table fee.")
    options = fields.get("options")
    if not isinstance(options, dict):
        errors["options"] = _("Options must be a JSON object.")
    piao = fields.get("piao_choices")
    if not isinstance(piao, list) or any(
        isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in piao
    ):
        errors["piao_choices"] = _("Piao choices must be whole numbers of 0 or more.")
    return errors


def _clean_fields(fields: dict[str, Any]) -> dict[str, Any]:
    unknown = set(fields) - set(TEMPLATE_FIELDS)
    if unknown:
        raise TypeError(f"unknown template fields: {sorted(unknown)}")
    if "name" not in fields:  # a partial update keeps the name; a create without one is refused
        return dict(fields)
    return {**fields, "name": str(fields["name"]).strip()}


def _check_name_free(*, club: Club, name: str, exclude_pk: int | None = None) -> None:
    qs = RuleTemplate.objects.filter(club=club, name=name)
    if exclude_pk is not None:
        qs = qs.exclude(pk=exclude_pk)
    if qs.exists():
        raise ValidationError({"name": _("This club already has a template with this name.")})


def _template_audit_detail(template: RuleTemplate) -> dict[str, Any]:
    # The fee is money-like: who set which fee must be traceable.
    return {"template": template.name, "preset": template.preset, "fee": template.fee,
            "fee_payer": template.fee_payer}


@transaction.atomic
def template_create(*, club: Club, by, **fields: Any) -> RuleTemplate:
    _require(access.is_manager(_actor_membership(club=club, user=by)))
    fields = {"name": "", **_clean_fields(fields)}
    template_validate(fields=fields)
    _check_name_free(club=club, name=fields["name"])
    template = RuleTemplate.objects.create(club=club, created_by=by, **fields)
    audit_log(
        club=club,
        actor=by,
        action=AuditAction.TEMPLATE_CREATE,
        detail=_template_audit_detail(template),
    )
    return template


@transaction.atomic
def template_update(*, template: RuleTemplate, by, **fields: Any) -> RuleTemplate:
    _require(access.is_manager(_actor_membership(club=template.club, user=by)))
    merged = {name: getattr(template, name) for name in TEMPLATE_FIELDS}
    merged.update(_clean_fields(fields))
    template_validate(fields=merged)
    _check_name_free(club=template.club, name=merged["name"], exclude_pk=template.pk)
    for name, value in merged.items():
        setattr(template, name, value)
    template.save()
    audit_log(
        club=template.club,
        actor=by,
        action=AuditAction.TEMPLATE_UPDATE,
        detail=_template_audit_detail(template),
    )
    return template


@transaction.atomic
def template_delete(*, template: RuleTemplate, by) -> None:
    _require(access.is_manager(_actor_membership(club=template.club, user=by)))
    name = template.name
    template.delete()
    audit_log(club=template.club, actor=by, action=AuditAction.TEMPLATE_DELETE, detail={"template": name})
