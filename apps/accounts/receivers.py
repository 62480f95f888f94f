"""Record the address of every sign-in (``user_logged_in``) and every sign-in lockout (signin)."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in

from .services import address_seen, client_ip


def on_logged_in(sender, request, user, **kwargs) -> None:
    if request is not None:
        address_seen(user=user, ip=client_ip(request.META))


def connect() -> None:
    from . import signin

    user_logged_in.connect(on_logged_in, dispatch_uid="accounts.address_on_login")
    signin.connect()
