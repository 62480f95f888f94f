"""The Content-Security-Policy of every response (django-csp), with this site's own sources.

Scripts and styles load only from STATIC_URL (no inline script or style, no eval), WebSockets and
fetches go only to this site, nothing is framed and no other site may frame us. A policy source can
only be limited to a path with its scheme and host, so those three directives are written per
request from the request's host; the rest is CONTENT_SECURITY_POLICY in settings.
"""

from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.core.exceptions import DisallowedHost

NONE = "'none'"
SELF = "'self'"


def site_sources(request) -> dict[str, list[str]]:
    """script-src, style-src and connect-src for a request to this site.

    >>> from django.test import RequestFactory
    >>> site_sources(RequestFactory().get("/", HTTP_HOST="127.0.0.1:8000"))["script-src"]
    ['http://127.0.0.1:8000/static/']
    """
    try:
        host = request.get_host()
    except DisallowedHost:  # answered 400 anyway: nothing of ours runs on that page
        return {"script-src": [NONE], "style-src": [NONE], "connect-src": [NONE]}
    secure = request.is_secure()
    static = settings.STATIC_URL
    if not static.startswith(("http://", "https://")):
        static = f"{'https' if secure else 'http'}://{host}/{static.lstrip('/')}"
    return {
        "script-src": [static],
        "style-src": [static],
        "connect-src": [SELF, f"{'wss' if secure else 'ws'}://{host}"],
    }


class SiteCSPMiddleware(CSPMiddleware):
    def get_policy_parts(self, request, response, report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if not report_only:
            parts.update = {**site_sources(request), **(parts.update or {})}
        return parts
