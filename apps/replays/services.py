"""Share codes (回放码): create, revoke, look up (rate-limited), and the normalisation of typed codes."""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts import ratelimit
from apps.accounts.services import address_key
from apps.tables.models import Hand

from . import access as replay_access
from .models import CODE_ALPHABET, CODE_LENGTH, ShareCode

# Expiry choices offered when a code is made: key -> lifetime (None: never expires).
EXPIRY_CHOICES: dict[str, timedelta | None] = {
    "1d": timedelta(days=1),
    "7d": timedelta(days=7),
    "never": None,
}
# Lookups per window (seconds), counted per user and per client address.
DEFAULT_RATE = {"user": 10, "ip": 30, "window": 60}


class ShareError(Exception):
    """A share-code operation that is refused; ``message`` is for the user."""

    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


class RateLimited(ShareError):
    def __init__(self, message: str, retry_after: int):
        super().__init__(message, status=429)
        self.retry_after = retry_after


def new_code() -> str:
    """``CODE_LENGTH`` symbols of ``CODE_ALPHABET`` from the OS's CSPRNG (≈ 49.5 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise(raw: str) -> str:
    """A typed code as stored: full-width folded, upper case, without spaces, dashes or dots; ''
    when anything else is left (not a possible code)."""
    text = unicodedata.normalize("NFKC", raw or "").upper()
    text = "".join(ch for ch in text if ch not in " \t\r\n-_.·—–")
    if not text or len(text) > 32 or any(ch not in CODE_ALPHABET for ch in text):
        return ""
    return text


def share_create(*, user, hand: Hand, expiry: str = "7d") -> ShareCode:
    """A new code for an ended hand, by one of its players or a club owner/admin."""
    access = replay_access.access_for(user=user, hand=hand)
    if access is None or not access.may_share:
        raise PermissionDenied(_("You may not share this replay."))
    if expiry not in EXPIRY_CHOICES:
        raise ShareError(_("Choose how long the code stays valid."))
    lifetime = EXPIRY_CHOICES[expiry]
    now = timezone.now()
    for _attempt in range(5):  # a collision of ~50-bit codes is vanishingly rare; retry anyway
        try:
            with transaction.atomic():
                return ShareCode.objects.create(
                    hand=hand, code=new_code(), created_by=user, created_at=now,
                    expires_at=(now + lifetime) if lifetime else None,
                )
        except IntegrityError:
            continue
    raise ShareError(_("Could not make a code; please try again."))


def may_revoke(*, user, share: ShareCode) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if share.created_by_id == user.pk:
        return True
    return replay_access.club_role(user, share.hand.table.club_id) == replay_access.MANAGER


def share_revoke(*, user, share: ShareCode) -> ShareCode:
    """Revoke a code (its creator or a club owner/admin); revoking twice changes nothing."""
    if not may_revoke(user=user, share=share):
        raise PermissionDenied(_("You may not revoke this code."))
    with transaction.atomic():
        locked = ShareCode.objects.select_for_update().get(pk=share.pk)
        if locked.revoked_at is None:
            locked.revoked_at, locked.revoked_by = timezone.now(), user
            locked.save(update_fields=["revoked_at", "revoked_by"])
    return locked


def _rate() -> dict:
    return {**DEFAULT_RATE, **(getattr(settings, "REPLAYS_SHARE_RATE", None) or {})}


def check_rate(*, user_id: int | None, ip: str | None) -> None:
    """Count one share-code lookup for the user and for the address (an IPv6 one by its /64, as
    every per-address limit: ``address_key``); RateLimited over the limit."""
    rate = _rate()
    retry = ratelimit.hit("replays:share", window=int(rate["window"]),
                          limits=[("user", user_id, rate["user"]), ("ip", address_key(ip), rate["ip"])])
    if retry is not None:
        raise RateLimited(_("Too many replay codes tried. Please wait a minute and try again."), retry_after=retry)


@dataclass(frozen=True)
class Lookup:
    """A share-code lookup: the code row (None when unknown) and its state."""

    share: ShareCode | None
    state: str  # "active" | "revoked" | "expired" | "unknown" | "not_ended"


def share_lookup(*, raw: str, user_id: int | None, ip: str | None) -> Lookup:
    """Look up a typed or linked code (rate-limited first, so guessing costs the same either way)."""
    check_rate(user_id=user_id, ip=ip)
    code = normalise(raw)
    share = (
        ShareCode.objects.select_related("hand", "hand__table", "created_by").filter(code=code).first()
        if code else None
    )
    if share is None:
        return Lookup(None, "unknown")
    state = share.status
    if state == "active" and not replay_access.is_replayable(share.hand):
        state = "not_ended"
    return Lookup(share, state)
