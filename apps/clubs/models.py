"""Clubs, their members, invites, join requests, rule templates and the audit log.

Invariants live in the database: one membership per (club, user), one owner per club, one pending
join request per (club, user), one ban per (club, user), sane rule-template numbers (a table fee
of 0 or more, paid by a known payer).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

ANNOUNCEMENT_MAX = 200  # characters of a club's 公告


class Club(models.Model):
    name = models.CharField(_("name"), max_length=60)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="owned_clubs",
        verbose_name=_("owner"),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    # 公告: the owner's or an admin's words to the members, plain text (escaped where shown).
    # ``announcement_rev`` counts its changes; a member's ``announcement_seen`` is the last one he
    # was shown as a toast, so each change pops up once per member.
    announcement = models.CharField(_("announcement"), max_length=ANNOUNCEMENT_MAX, blank=True, default="")
    announcement_rev = models.PositiveIntegerField(default=0)
    announcement_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    OWNER = "owner", _("Owner")
    ADMIN = "admin", _("Admin")
    MEMBER = "member", _("Member")


class Membership(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(_("joined at"), default=timezone.now)
    announcement_seen = models.PositiveIntegerField(default=0)  # the club's announcement_rev he was shown

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="clubs_one_membership_per_user"),
            models.UniqueConstraint(
                fields=["club"], condition=Q(role="owner"), name="clubs_one_owner_per_club"
            ),
            models.CheckConstraint(
                condition=Q(role__in=["owner", "admin", "member"]), name="clubs_membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.club} ({self.role})"

    @property
    def is_owner(self) -> bool:
        return self.role == Role.OWNER

    @property
    def is_admin_or_owner(self) -> bool:
        return self.role in (Role.OWNER, Role.ADMIN)


class Ban(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="bans")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_bans")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "user"], name="clubs_one_ban_per_user")]


class Invite(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invites")
    code = models.CharField(_("code"), max_length=16, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"))
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    max_uses = models.PositiveIntegerField(_("max uses"), null=True, blank=True)
    uses = models.PositiveIntegerField(_("uses"), default=0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.code

    def is_usable(self, now=None) -> bool:
        now = now or timezone.now()
        if self.revoked_at is not None or self.expires_at <= now:
            return False
        return self.max_uses is None or self.uses < self.max_uses

    @property
    def status(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= timezone.now():
            return "expired"
        if self.max_uses is not None and self.uses >= self.max_uses:
            return "used_up"
        return "active"


class JoinStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")


class JoinRequest(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="join_requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="join_requests")
    invite = models.ForeignKey(
        Invite, on_delete=models.SET_NULL, null=True, blank=True, related_name="requests"
    )
    status = models.CharField(
        _("status"), max_length=10, choices=JoinStatus.choices, default=JoinStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "user"], condition=Q(status="pending"), name="clubs_one_pending_request"
            ),
        ]


class FeePayer(models.TextChoices):
    """Who pays a table's fee (桌费) to the club account each hand (settled by the ledger)."""

    EACH = "each", _("Every player")  # 每人每局: every playing seat, draws included
    WINNER = "winner", _("Winner only")  # 赢家付: the hand's winner; nothing on a draw


RULE_FIELDS = ("preset", "options", "players", "base_score", "piao_choices", "turn_seconds", "claim_seconds")


class RuleFields(models.Model):
    """The rules a game is played by: a preset, its option overrides and the room settings.

    The one definition of these columns, shared by rule templates (what an owner edits), tables and
    matches (the snapshots taken from a template: ``RuleSnapshot``). Copy them with
    ``rule_values()`` / ``RuleSnapshot.copy_rules``, never field by field.
    """

    preset = models.CharField(_("preset"), max_length=20)
    options = models.JSONField(_("option overrides"), default=dict, blank=True)
    players = models.PositiveSmallIntegerField(_("players"), default=3)
    base_score = models.PositiveIntegerField(_("base score"), default=1)
    piao_choices = models.JSONField(_("piao choices"), default=list, blank=True)
    turn_seconds = models.PositiveIntegerField(_("turn time limit (seconds)"), default=15)
    # Seconds a player has to answer a claim (吃/碰/胡/pass).
    claim_seconds = models.PositiveIntegerField(_("claim time limit (seconds)"), default=15)
    # Seating rules (issue #47): refuse a seat to a player who shares a recent IP address with, or
    # shared a location close to, someone seated (apps/tables/read/nearby.py).
    forbid_same_network = models.BooleanField(_("no two players from one network"), default=False)
    forbid_near = models.BooleanField(_("no two players close together"), default=False)
    # Table life (issue #47): no 快捷语 or reactions at these tables (apps/tables/verbs/phrases.py).
    no_phrases = models.BooleanField(_("no quick phrases"), default=False)

    class Meta:
        abstract = True

    def rule_values(self) -> dict:
        """The rule columns as fresh values (the JSON ones copied, so a snapshot shares nothing)."""
        return {
            "preset": self.preset, "options": dict(self.options or {}), "players": self.players,
            "base_score": self.base_score, "piao_choices": list(self.piao_choices or []),
            "turn_seconds": self.turn_seconds, "claim_seconds": self.claim_seconds,
            "forbid_same_network": self.forbid_same_network, "forbid_near": self.forbid_near,
            "no_phrases": self.no_phrases,
        }

    def resolve_ruleset(self):
        """The engine RuleSet of these rules (preset + overrides + player count)."""
        from apps.engine.rules import resolve_ruleset

        return resolve_ruleset(self.preset, self.options, players=self.players)


class RuleSnapshot(RuleFields):
    """Rules copied from a template when a table opens or a match is defined, with the engine's
    resolved ruleset: editing or deleting the template later changes nothing of the copy."""

    ruleset = models.JSONField(default=dict)  # the engine RuleSet.to_json() of the snapshot

    class Meta:
        abstract = True

    def copy_rules(self, source: RuleFields) -> None:
        """Take ``source``'s rules (a template, or another snapshot) and their resolved ruleset."""
        for name, value in source.rule_values().items():
            setattr(self, name, value)
        if isinstance(source, RuleSnapshot) and source.ruleset:
            self.ruleset = dict(source.ruleset)
        else:
            self.ruleset = source.resolve_ruleset().to_json()

    def drop_escape(self) -> None:
        """No 逃跑 in these rules (RULES.md §8.6): a match's tables never offer it, the match's own
        absence rules (time-outs, 托管) govern. The option off in the overrides and the ruleset."""
        self.options = {k: v for k, v in (self.options or {}).items() if k != "escape_penalty"}
        if (self.ruleset or {}).get("escape_penalty"):
            self.ruleset = {**self.ruleset, "escape_penalty": False}


class RuleTemplate(RuleFields):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="templates")
    name = models.CharField(_("name"), max_length=60)
    hands_per_session = models.PositiveIntegerField(_("hands per session"), default=8)
    # Points paid to the club account per hand (桌费); 0: no fee. Tables snapshot both fields.
    fee = models.PositiveIntegerField(_("table fee per hand"), default=0)
    fee_payer = models.CharField(_("fee paid by"), max_length=8, choices=FeePayer.choices, default=FeePayer.EACH)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="clubs_template_name_unique"),
            models.CheckConstraint(condition=Q(base_score__gte=1), name="clubs_template_base_score_gte_1"),
            models.CheckConstraint(condition=Q(hands_per_session__gte=1), name="clubs_template_hands_gte_1"),
            models.CheckConstraint(
                condition=Q(turn_seconds__gte=5), name="clubs_template_turn_seconds_gte_5"
            ),
            models.CheckConstraint(
                condition=Q(claim_seconds__gte=3) & Q(claim_seconds__lte=120),
                name="clubs_template_claim_seconds_3_to_120",
            ),
            models.CheckConstraint(
                condition=Q(players__gte=2) & Q(players__lte=4), name="clubs_template_players_2_to_4"
            ),
            models.CheckConstraint(condition=Q(fee__gte=0), name="clubs_template_fee_gte_0"),
            models.CheckConstraint(
                condition=Q(fee_payer__in=FeePayer.values), name="clubs_template_fee_payer_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class AuditAction(models.TextChoices):
    CLUB_CREATE = "club.create", _("created the club")
    INVITE_CREATE = "invite.create", _("created an invite")
    INVITE_REVOKE = "invite.revoke", _("revoked an invite")
    JOIN_APPROVE = "join.approve", _("approved a join request")
    JOIN_REJECT = "join.reject", _("rejected a join request")
    MEMBER_REMOVE = "member.remove", _("removed a member")
    MEMBER_BAN = "member.ban", _("banned a member")
    MEMBER_UNBAN = "member.unban", _("lifted a ban")
    MEMBER_PROMOTE = "member.promote", _("made an admin")
    MEMBER_DEMOTE = "member.demote", _("removed admin rights")
    MEMBER_RESET_LINK = "member.reset_link", _("made a password link")
    MEMBER_LEAVE = "member.leave", _("left the club")
    OWNER_TRANSFER = "owner.transfer", _("transferred ownership")
    TEMPLATE_CREATE = "template.create", _("created a rule template")
    TEMPLATE_UPDATE = "template.update", _("edited a rule template")
    TEMPLATE_DELETE = "template.delete", _("deleted a rule template")
    ANNOUNCEMENT_SET = "announcement.set", _("changed the announcement")
    LEDGER_ADJUST = "ledger.adjust", _("adjusted points")
    TABLE_OPEN = "table.open", _("opened a table")
    TABLE_DISSOLVE = "table.dissolve", _("dissolved a table")
    TABLE_FORCE_DISSOLVE = "table.force_dissolve", _("force-dissolved a table")
    REPLAY_VIEW = "replay.view", _("viewed a replay")  # apps/replays: an admin or staff, not a player
    DISPUTE_FILE = "dispute.file", _("filed a dispute")
    DISPUTE_REVIEW = "dispute.review", _("started reviewing a dispute")
    DISPUTE_RESOLVE = "dispute.resolve", _("resolved a dispute")
    COLLUSION_EXPORT = "audit.collusion_export", _("exported the collusion report")
    FAIRPLAY_REQUEST = "audit.fairplay_request", _("asked for an information advantage score")
    FAIRPLAY_VIEW = "audit.fairplay_view", _("opened an information advantage score")
    MATCH_CREATE = "match.create", _("created a match")
    MATCH_UPDATE = "match.update", _("edited a match")
    MATCH_CANCEL = "match.cancel", _("cancelled a match")
    MATCH_PAUSE = "match.pause", _("paused a match")
    MATCH_RESUME = "match.resume", _("resumed a match")
    MATCH_RESEAT = "match.reseat", _("re-seated a match player")
    NEVER_TOGETHER_ADD = "match.never_together_add", _("kept two members apart at tables")
    NEVER_TOGETHER_REMOVE = "match.never_together_remove", _("allowed two members at one table again")


class AuditLog(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="audit_logs")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+", verbose_name=_("by")
    )
    # Not limited to AuditAction: other apps (tables) may log their own action strings.
    action = models.CharField(_("action"), max_length=40)
    target_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        # The audit log page's keyset (newest id first), whole or by kind.
        indexes = [models.Index(fields=["club", "id"], name="clubs_audit_club_id"),
                   models.Index(fields=["club", "action", "id"], name="clubs_audit_club_action_id")]

    @property
    def action_label(self) -> str:
        try:
            return AuditAction(self.action).label
        except ValueError:
            return self.action
