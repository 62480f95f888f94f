"""A verified e-mail address on the profile: the address typed is mailed a signed link and becomes
the user's ``email`` (``email_verified``) only when that link is followed.

The link carries (user, address, the user's e-mail state when it was made), signed with
SECRET_KEY and a timestamp (django.core.signing): it expires after EMAIL_VERIFY_DAYS and stops
working once the user's e-mail was verified or removed in between (``email_changed_at``), so it
works at most once. Password-reset mails go only to verified
addresses (accounts.forms.ResetRequestForm).
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

SALT = "accounts.email-verify"
EMAIL_VERIFY_DAYS = 2


def _state(user) -> str:
    changed = user.email_changed_at.isoformat() if user.email_changed_at else ""
    return hashlib.sha256(f"{user.email}|{user.email_verified}|{changed}".encode()).hexdigest()[:16]


def make_token(user, email: str) -> str:
    return signing.dumps({"u": user.pk, "e": email, "s": _state(user)}, salt=SALT, compress=True)


def confirm(token: str):
    """Store the address of a valid token as the user's verified e-mail: the user, or None."""
    try:
        data = signing.loads(token, salt=SALT, max_age=EMAIL_VERIFY_DAYS * 86400)
    except signing.BadSignature:  # also SignatureExpired
        return None
    user = get_user_model().objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None or data.get("s") != _state(user) or not data.get("e"):
        return None
    user.email, user.email_verified, user.email_changed_at = data["e"], True, timezone.now()
    user.save(update_fields=["email", "email_verified", "email_changed_at"])
    return user


def send_verification(request, user, email: str) -> None:
    """Mail the verification link for ``email`` to that address (in the request's language)."""
    link = request.build_absolute_uri(reverse("accounts:email_verify", args=[make_token(user, email)]))
    context = {"user": user, "link": link, "days": EMAIL_VERIFY_DAYS, "site": request.get_host()}
    subject = render_to_string("accounts/email/verify_subject.txt", context).strip()
    body = render_to_string("accounts/email/verify_body.txt", context)
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [email])


def clear(user) -> None:
    user.email, user.email_verified, user.email_changed_at = "", False, timezone.now()
    user.save(update_fields=["email", "email_verified", "email_changed_at"])
