"""Write-side operations of accounts."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from .models import SeenAddress


def client_ip(meta: dict) -> str | None:
    """The client's address of a request: ``REMOTE_ADDR``, or behind our proxy what it forwarded.

    Only when the deployment says it is behind its proxy (``settings.BEHIND_TLS_PROXY``) is the
    last ``X-Forwarded-For`` entry used: the address our proxy saw (deploy/nginx overwrites the
    header, a proxy that appends puts it last). Otherwise the header is ignored, so a client cannot
    choose its address by sending one. Returns None for anything that is not an IP address.
    """
    value = meta.get("REMOTE_ADDR") or ""
    if getattr(settings, "BEHIND_TLS_PROXY", False):
        forwarded = (meta.get("HTTP_X_FORWARDED_FOR") or "").rsplit(",", 1)[-1].strip()
        value = forwarded or value
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def address_key(ip: str | None) -> str | None:
    """The key an address is counted under by every per-address limit (sign-in throttling, rate
    limits): an IPv4 address itself, an IPv6 address its /64 network, since one subscriber is
    handed a whole /64 and can pick any address in it. The /64 is written as its first address
    ("2001:db8:1:2::"): still an IP address, as the address columns (PostgreSQL inet) require."""
    if not ip:
        return None
    try:
        parsed = ipaddress.ip_address(ip)
    except ValueError:
        return None
    if parsed.version == 6:
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False).network_address)
    return str(parsed)


def client_address_key(meta: dict) -> str | None:
    """``address_key`` of the request's client address."""
    return address_key(client_ip(meta))


def address_seen(*, user, ip: str | None, at=None) -> None:
    """Record that ``user`` was seen at ``ip`` (one row per pair: count and last_seen move)."""
    if ip is None or user is None or not getattr(user, "is_authenticated", False):
        return
    at = at or timezone.now()
    updated = SeenAddress.objects.filter(user=user, ip=ip).update(last_seen=at, count=F("count") + 1)
    if updated:
        return
    try:
        with transaction.atomic():
            SeenAddress.objects.create(user=user, ip=ip, first_seen=at, last_seen=at)
    except IntegrityError:  # a concurrent first sighting won the insert
        SeenAddress.objects.filter(user=user, ip=ip).update(last_seen=at, count=F("count") + 1)
