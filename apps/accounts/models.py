"""The custom user (set before the first migration so it never has to move)."""

import hashlib

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    display_name = models.CharField(_("display name"), max_length=32, blank=True)
    # ``email`` holds an address only once its owner followed the link mailed to it (accounts.email):
    # password-reset mails go only to a verified address.
    email_verified = models.BooleanField(_("e-mail verified"), default=False)
    # when the e-mail was last verified or removed: a confirmation link made before it is spent
    email_changed_at = models.DateTimeField(_("e-mail changed"), null=True, blank=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"

    @property
    def name(self) -> str:
        """What other players see: the display name (昵称), else the username."""
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.name


class SeenAddress(models.Model):
    """An IP address a user signed in or opened a table from: one row per (user, address).

    Audit reports and match seating read it ("shared an IP address in the last 30 days"); it is
    written by ``accounts.services.address_seen`` and nowhere else.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="seen_addresses")
    ip = models.GenericIPAddressField(_("IP address"))
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    count = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "ip"], name="accounts_one_row_per_user_ip")]
        indexes = [models.Index(fields=["ip", "last_seen"], name="accounts_seen_ip_last")]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.ip}"


class SignInLockout(models.Model):
    """A sign-in lockout: too many failed sign-ins for a (username, address) pair, from an address,
    or for a username from all addresses in a day (then refused only at addresses new to its user).

    The audit trail of throttling (django-axes counts the failures; ``accounts.signin`` writes these
    rows): one row when a lockout starts, its ``ended_at`` and ``end`` when the cool-off ran out or
    an admin lifted it (``manage.py unlock_signin``, a password reset). At most one open row per key.
    """

    class Scope(models.TextChoices):
        USERNAME = "username", _("username at new addresses")
        ADDRESS = "address", _("address")
        PAIR = "pair", _("username at an address")

    class End(models.TextChoices):
        EXPIRED = "expired", _("cool-off ended")
        UNLOCKED = "unlocked", _("unlocked by an admin")

    scope = models.CharField(_("locked"), max_length=8, choices=Scope.choices)
    key = models.CharField(_("username or address"), max_length=255)  # what is locked
    username = models.CharField(_("username tried"), max_length=255, blank=True)
    ip = models.GenericIPAddressField(_("from address"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), db_index=True)
    until = models.DateTimeField(_("until"))
    cool_off_seconds = models.PositiveIntegerField(_("cool-off (seconds)"))
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)
    end = models.CharField(_("how it ended"), max_length=8, choices=End.choices, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], condition=models.Q(ended_at__isnull=True),
                                    name="accounts_one_open_lockout"),
            models.CheckConstraint(condition=models.Q(ended_at__isnull=True, end="")
                                   | (models.Q(ended_at__isnull=False) & ~models.Q(end="")),
                                   name="accounts_lockout_end_with_time"),
            models.CheckConstraint(condition=models.Q(until__gt=models.F("started_at")),
                                   name="accounts_lockout_until_after_start"),
        ]
        indexes = [models.Index(fields=["scope", "key", "started_at"], name="accounts_lockout_key_start")]

    def __str__(self) -> str:
        return f"{self.scope}:{self.key} {self.started_at:%Y-%m-%d %H:%M}"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class PasswordResetLink(models.Model):
    """A one-time password-reset link a club's owner (or admin, or staff) made for a member
    without a verified e-mail (accounts.reset_links). Only the SHA-256 of its token is stored: the
    link is shown once, to its maker. Used at most once, before ``expires_at``."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="reset_links")
    created_by = models.ForeignKey(User, on_delete=models.SET_NULL, null=True, related_name="+")
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(_("made"))
    expires_at = models.DateTimeField(_("expires"))
    used_at = models.DateTimeField(_("used"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.CheckConstraint(condition=models.Q(expires_at__gt=models.F("created_at")),
                                              name="accounts_reset_link_expires_after_made")]

    def __str__(self) -> str:
        return f"reset link for {self.user_id} by {self.created_by_id} {self.created_at:%Y-%m-%d %H:%M}"


class Notice(models.Model):
    """One thing a user is told (an invitation, a match reminder, an answered dispute), stored as
    facts (``kind`` + ``params``) and worded when shown (accounts/notices.py). ``key`` names the
    occasion (``match:7:checkin``): one notice per recipient and key, whatever the retries."""

    recipient = models.ForeignKey(User, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(_("kind"), max_length=24)
    params = models.JSONField(default=dict, blank=True)
    url = models.CharField(_("link"), max_length=200, blank=True)
    key = models.CharField(_("key"), max_length=120)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)

    class Meta:
        verbose_name = _("notice")
        verbose_name_plural = _("notices")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["recipient", "key"], name="accounts_notice_once_per_key"),
        ]
        indexes = [
            models.Index(fields=["recipient", "-created_at"], name="accounts_notice_recent"),
            models.Index(fields=["recipient"], condition=models.Q(read_at__isnull=True),
                         name="accounts_notice_unread"),
        ]

    def __str__(self) -> str:
        return f"{self.recipient_id}:{self.key}"


class LivePresence(models.Model):
    """Whether a user has a page open: his per-user sockets (``/ws/me/``) counted across every
    server process, and when one last said it is alive. Online = ``sockets > 0`` and seen within
    ``accounts.live.STALE_SECONDS`` (a killed process leaves its count behind, not its heartbeat)."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, primary_key=True, related_name="live_presence")
    sockets = models.IntegerField(default=0)
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.sockets} @ {self.seen_at}"
