"""Replay share codes (回放码): a random code that opens one ended hand's replay, read-only, for any
signed-in user (apps/replays/access.py decides the rest of who may see a replay)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# No 0/O, 1/I/L: a code read aloud or typed from a screenshot cannot be mistaken.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # 31 symbols
CODE_LENGTH = 10  # 31**10 ≈ 2**49.5


class ShareCode(models.Model):
    hand = models.ForeignKey("tables.Hand", on_delete=models.CASCADE, related_name="share_codes")
    code = models.CharField(_("replay code"), max_length=16, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+", verbose_name=_("created by")
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("replay share code")
        verbose_name_plural = _("replay share codes")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(expires_at__isnull=True) | Q(expires_at__gt=models.F("created_at")),
                name="replays_share_expires_after_created",
            ),
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def status(self) -> str:
        """``active``, ``revoked`` or ``expired``."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= timezone.now():
            return "expired"
        return "active"

    @property
    def display(self) -> str:
        """The code in groups of five, as it is shown (lookups ignore the dash)."""
        return "-".join(self.code[i : i + 5] for i in range(0, len(self.code), 5))
