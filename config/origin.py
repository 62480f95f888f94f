"""WebSocket origin check: the page that opens a socket must come from this very site.

Channels' ``AllowedHostsOriginValidator`` compares the Origin's host with ``ALLOWED_HOSTS`` and
ignores its port, so a page served by anything else on ``127.0.0.1:<any port>`` could open table
sockets with the user's cookies. Here an Origin is accepted when it is the socket's own origin (the
scheme, host and port of the ``Host`` header the socket came with, on a host in ``ALLOWED_HOSTS``),
or listed in ``CSRF_TRUSTED_ORIGINS`` (a proxy on another origin). A socket without a ``Host``
header (only test clients send none) must come from an allowed host on its default port.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}


def _origin_parts(value: str) -> tuple[str, str, str] | None:
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), str(port) if port else DEFAULT_PORTS[parts.scheme]


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """Whether a socket with this ``Origin`` and ``Host`` header may connect."""
    if not origin:
        return False
    parts = _origin_parts(origin)
    if parts is None:
        return False
    scheme, origin_host, origin_port = parts
    trusted = {_origin_parts(o) for o in settings.CSRF_TRUSTED_ORIGINS}
    if parts in trusted:
        return True
    bracketed = f"[{origin_host}]" if ":" in origin_host else origin_host  # IPv6 as ALLOWED_HOSTS writes it
    if not validate_host(bracketed, settings.ALLOWED_HOSTS):
        return False
    if host is None:
        return origin_port == DEFAULT_PORTS[scheme]
    domain, port = split_domain_port(host.lower())
    if not domain:
        return False
    # The socket's own origin: the same host and the same port (the default one when none is given).
    return domain.strip("[]") == origin_host.strip("[]") and (port or DEFAULT_PORTS[scheme]) == origin_port


class SameOriginValidator:
    """ASGI middleware: refuse a WebSocket whose Origin is not this site (see the module text)."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin")
        host = headers.get(b"host")
        if origin_allowed(origin.decode("latin1") if origin else None, host.decode("latin1") if host else None):
            return await self.application(scope, receive, send)
        denier = WebsocketDenier()
        return await denier(scope, receive, send)
