"""One-time password-reset links a club's owner (or admin, or staff) makes for a member who has
no verified e-mail: made here, offered by apps.clubs (who may make one for whom is
apps.clubs.access.can_make_reset_link), followed at accounts:reset_link.

The token is 32 random bytes shown once, to its maker; only its SHA-256 is stored
(``PasswordResetLink``). A link sets a password at most once, within MEMBER_RESET_LINK_HOURS; a
new link for the same member ends the ones before it. Setting the password lifts the member's
sign-in lockouts (accounts.signin.unlock).
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import PasswordResetLink, User, token_hash


def make(*, user: User, by: User, now=None) -> str:
    """A new link's token for ``user`` (the earlier unused ones end now)."""
    now = now or timezone.now()
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        PasswordResetLink.objects.filter(user=user, used_at__isnull=True, expires_at__gt=now).update(expires_at=now)
        PasswordResetLink.objects.create(user=user, created_by=by, token_hash=token_hash(token), created_at=now,
                                         expires_at=now + timedelta(hours=int(settings.MEMBER_RESET_LINK_HOURS)))
    return token


def usable(token: str | None, *, now=None) -> PasswordResetLink | None:
    """The link of this token while it may still be used, else None."""
    if not token or len(token) > 100:
        return None
    now = now or timezone.now()
    return (PasswordResetLink.objects.select_related("user")
            .filter(token_hash=token_hash(token), used_at__isnull=True, expires_at__gt=now, user__is_active=True)
            .first())


def use(token: str, *, password: str, now=None) -> User | None:
    """Set the member's password through this link, once: the user, or None when the link is
    unknown, used or expired (a concurrent use finds it used)."""
    from . import signin

    now = now or timezone.now()
    with transaction.atomic():
        link = usable(token, now=now)
        if link is None:
            return None
        if not PasswordResetLink.objects.filter(pk=link.pk, used_at__isnull=True).update(used_at=now):
            return None
        user = link.user
        user.set_password(password)
        user.save(update_fields=["password"])
        signin.unlock(username=user.username, reason="by a reset link")
    return user
