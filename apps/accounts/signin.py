"""Sign-in throttling on django-axes: failures per (username, address) pair and per address, a
daily ceiling per username, a growing cool-off.

django-axes counts failed sign-ins (every authentication through ``django.contrib.auth``: our
sign-in page and the admin's) per (username, address) pair and per client address
(``AXES_LOCKOUT_PARAMETERS``); an address is ``request_ip``: an IPv4 address, or the /64 of an IPv6
one. At ``SIGNIN_FAILURE_LIMIT`` failures within the cool-off the pair or the address is locked
out, and while it is, even the right password is refused with the same answer. A username alone is
never locked for every address (anyone could lock its owner out of his account): a username under
guessing from many addresses is bounded by ``SIGNIN_USERNAME_DAILY_LIMIT`` failures in 24 hours,
after which it is refused at the addresses its user never signed in from (``SeenAddress``), never
at his own. The settings point axes at the pieces here:

- ``cool_off`` (``AXES_COOLOFF_TIME``): ``SIGNIN_COOLOFF_SECONDS``, doubled for every earlier
  lockout of that pair or address in the last 24 hours, at most ``SIGNIN_COOLOFF_MAX_SECONDS``.
  Each failure's expiry is stored when it happens (``AXES_USE_ATTEMPT_EXPIRATION``), so a lockout
  keeps the end it was given and the time the page names is the time it ends.
- ``SignInHandler`` (``AXES_HANDLER``): axes' database handler counting unexpired failures, plus
  the username's daily ceiling.
- ``lockout_response`` (``AXES_LOCKOUT_CALLABLE``): the sign-in page again, status 429, saying
  when to try again (when what locks this request ends), the same for a username that exists and
  one that does not.
- ``SignInLockout`` rows (the audit trail): written when a lockout starts (``user_locked_out``),
  closed when its cool-off ended (``close_ended``, a beat task) or an admin lifted it (``unlock``).
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timedelta

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from axes.models import AccessAttempt, AccessFailureLog
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.db import IntegrityError, transaction
from django.db.models import Max, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import formats, timezone
from django.utils.translation import ngettext

from .models import SeenAddress, SignInLockout
from .services import address_key, client_address_key

log = logging.getLogger(__name__)

Scope = SignInLockout.Scope
GROWTH_MEMORY = timedelta(hours=24)
CEILING_WINDOW = timedelta(hours=24)
KNOWN_ADDRESS_DAYS = 365


def request_ip(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: the address key of the request (accounts.services): the client
    address, an IPv6 one as its /64 (written as the /64's first address), so every per-address
    count of sign-in keys on it."""
    return client_address_key(request.META)


def pair_key(username: str | None, ip: str | None) -> str | None:
    """The ``SignInLockout.key`` of a (username, address) pair (usernames hold no spaces)."""
    return f"{username} {ip}" if username and ip else None


def _scope(parameter) -> str:
    """The lockout scope of one entry of settings.AXES_LOCKOUT_PARAMETERS."""
    if isinstance(parameter, (list, tuple)):
        return Scope.PAIR if set(parameter) == {"username", "ip_address"} else "+".join(parameter)
    return {"ip_address": Scope.ADDRESS, "username": Scope.USERNAME}.get(parameter, parameter)


def cool_off_for(username: str | None, ip: str | None, *, now: datetime | None = None) -> timedelta:
    """The cool-off a new lockout of this pair or address gets: doubled per earlier lockout (of
    the pair, or of the address, whichever had more in the last 24 hours)."""
    now = now or timezone.now()
    base = int(settings.SIGNIN_COOLOFF_SECONDS)
    earlier = 0
    key_qs = [Q(scope=Scope.PAIR, key=pair_key(username, ip))] if username and ip else []
    if ip:
        key_qs.append(Q(scope=Scope.ADDRESS, key=ip))
    for key_q in key_qs:  # the pair's and the address's own counts
        mine = SignInLockout.objects.filter(key_q)
        since = now - GROWTH_MEMORY
        last_unlock = mine.filter(end=SignInLockout.End.UNLOCKED).aggregate(at=Max("ended_at"))["at"]
        if last_unlock is not None and last_unlock > since:
            since = last_unlock  # an admin's unlock starts the count afresh
        earlier = max(earlier, mine.filter(started_at__gte=since).exclude(end=SignInLockout.End.UNLOCKED).count())
    return timedelta(seconds=min(base * 2 ** min(earlier, 30), int(settings.SIGNIN_COOLOFF_MAX_SECONDS)))


def cool_off(request: HttpRequest | None) -> timedelta:
    """``AXES_COOLOFF_TIME``: the cool-off for this request's pair and address."""
    if request is None:
        return timedelta(seconds=int(settings.SIGNIN_COOLOFF_SECONDS))
    username = get_client_username(request, getattr(request, "axes_credentials", None))
    return cool_off_for(username, getattr(request, "axes_ip_address", None) or request_ip(request))


# --- the username's daily ceiling -------------------------------------------------------------


def known_address(username: str | None, ip: str | None) -> bool:
    """True when the user of this username has been signed in from this address key (an IPv6
    address anywhere in the /64) within the last year."""
    if not username or not ip:
        return False
    user = get_user_model().objects.filter(username=username).only("pk").first()
    if user is None:
        return False
    since = timezone.now() - timedelta(days=KNOWN_ADDRESS_DAYS)
    rows = SeenAddress.objects.filter(user=user, last_seen__gte=since)
    if ":" not in ip:
        return rows.filter(ip=ip).exists()
    return any(address_key(seen) == ip for seen in rows.filter(ip__contains=":").values_list("ip", flat=True))


def ceiling_until(username: str | None, ip: str | None, *, now: datetime | None = None) -> datetime | None:
    """When a username over its daily ceiling may be tried again from this address, or None when
    it may be now: always None at an address its user has signed in from.

    The ceiling counts the failed sign-ins of the username (whether or not it exists) from every
    address in the last 24 hours, since an admin's unlock or the user's password reset; it is over
    while SIGNIN_USERNAME_DAILY_LIMIT of them are, until the oldest of those leaves the window.
    """
    limit = int(settings.SIGNIN_USERNAME_DAILY_LIMIT)
    if not username or limit <= 0:
        return None
    now = now or timezone.now()
    since = now - CEILING_WINDOW
    last_unlock = SignInLockout.objects.filter(scope=Scope.USERNAME, key=username, end=SignInLockout.End.UNLOCKED
                                               ).aggregate(at=Max("ended_at"))["at"]
    if last_unlock is not None and last_unlock > since:
        since = last_unlock
    times = list(AccessFailureLog.objects.filter(username=username, attempt_time__gte=since)
                 .order_by("-attempt_time").values_list("attempt_time", flat=True)[:limit])
    if len(times) < limit:
        return None
    until = times[-1] + CEILING_WINDOW
    if until <= now or known_address(username, ip):
        return None
    return until


def scope_limit(scope: str, request=None, credentials=None) -> int:
    """Failures that lock a scope: SIGNIN_FAILURE_LIMIT for a pair, SIGNIN_ADDRESS_FAILURE_LIMIT
    (more: a club's members may share one address) for an address."""
    if scope == Scope.ADDRESS:
        return int(settings.SIGNIN_ADDRESS_FAILURE_LIMIT)
    return get_failure_limit(request, credentials) if request is not None else int(settings.AXES_FAILURE_LIMIT)


class SignInHandler(AxesDatabaseHandler):
    """Counts the failures that have not expired yet (each expires at its own stored time), each
    scope against its own limit; a username over its daily ceiling is locked at the addresses its
    user never signed in from."""

    def get_user_attempts(self, request, credentials=None):
        now = timezone.now()
        return [attempts.filter(expiration__expires_at__gt=now)
                for attempts in self.filter_user_attempts(request, credentials)]

    def get_failures(self, request, credentials=None) -> int:
        """Axes compares this with the one failure limit: at least that limit when any scope
        reached its own limit, else the largest count below it."""
        limit = get_failure_limit(request, credentials)
        largest = 0
        for parameter, attempts in zip(settings.AXES_LOCKOUT_PARAMETERS, self.get_user_attempts(request, credentials),
                                       strict=True):
            count = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            if count >= scope_limit(_scope(parameter), request, credentials):
                return max(count, limit)
            largest = max(largest, count)
        return min(largest, limit - 1)

    def is_locked(self, request, credentials=None) -> bool:
        if super().is_locked(request, credentials):
            return True
        username = get_client_username(request, credentials)
        return ceiling_until(username, getattr(request, "axes_ip_address", None) or request_ip(request)) is not None


def locked_until(request: HttpRequest, credentials: dict | None) -> dict[str, datetime]:
    """{scope: when its lockout ends} for every scope of this request that is locked out now.

    A scope stays locked while its unexpired failures reach the limit: newest expiry first, the
    lockout ends when the failure that made the count reach the limit expires.
    """
    handler = SignInHandler()
    ends: dict[str, datetime] = {}
    for parameter, attempts in zip(settings.AXES_LOCKOUT_PARAMETERS, handler.get_user_attempts(request, credentials),
                                   strict=True):
        limit = scope_limit(_scope(parameter), request, credentials)
        total = 0
        for failures, expires_at in attempts.order_by("-expiration__expires_at").values_list(
                "failures_since_start", "expiration__expires_at"):
            total += failures
            if total >= limit:
                ends[_scope(parameter)] = expires_at
                break
    username = get_client_username(request, credentials)
    ceiling = ceiling_until(username, getattr(request, "axes_ip_address", None) or request_ip(request))
    if ceiling is not None:
        ends[Scope.USERNAME] = ceiling
    return ends


def close_ended(*, now: datetime | None = None, q: Q | None = None) -> int:
    """Close the open lockouts whose cool-off has ended (at their ``until``); how many."""
    now = now or timezone.now()
    closed = 0
    rows = SignInLockout.objects.filter(ended_at__isnull=True, until__lte=now)
    if q is not None:
        rows = rows.filter(q)
    for row in rows:
        closed += SignInLockout.objects.filter(pk=row.pk, ended_at__isnull=True).update(
            ended_at=row.until, end=SignInLockout.End.EXPIRED)
        log.info("sign-in lockout of %s %s ended (cool-off over)", row.scope, row.key)
    return closed


def on_locked_out(sender, request=None, username=None, ip_address=None, **kwargs) -> None:
    """``user_locked_out`` (sent at the lockout and again for every refused attempt): one row a lockout."""
    if request is None:
        return
    now = timezone.now()
    credentials = getattr(request, "axes_credentials", None)
    keys = {Scope.PAIR: pair_key(username, ip_address), Scope.ADDRESS: ip_address, Scope.USERNAME: username}
    for scope, until in locked_until(request, credentials).items():
        key = keys.get(scope)
        if not key or until <= now:
            continue
        close_ended(now=now, q=Q(scope=scope, key=key))
        if SignInLockout.objects.filter(scope=scope, key=key, ended_at__isnull=True).exists():
            continue
        try:
            with transaction.atomic():
                SignInLockout.objects.create(
                    scope=scope, key=key, username=username or "", ip=ip_address, started_at=now, until=until,
                    cool_off_seconds=int(cool_off(request).total_seconds()))
        except IntegrityError:  # a concurrent refused attempt recorded it first
            continue
        log.warning("sign-in lockout of %s %s until %s", scope, key, until.isoformat())


def _unlock_keys(username: str | None, ip: str | None) -> Q:
    """The lockout rows an unlock of this username and/or address lifts: the username's pairs and
    its daily ceiling, the address and its pairs."""
    q = Q(pk__in=[])
    if username:
        q |= Q(scope=Scope.PAIR, username=username) | Q(scope=Scope.USERNAME, key=username)
    if ip:
        q |= Q(scope=Scope.ADDRESS, key=ip) | Q(scope=Scope.PAIR, ip=ip)
    return q


def unlock(*, username: str | None = None, ip: str | None = None, reason: str = "by an admin",
           now: datetime | None = None) -> tuple[int, int]:
    """Lift the lockouts of a username and/or an address now (the admin command, a password reset).

    Deletes their counted failures and closes their open lockout rows as unlocked; the next
    lockout's cool-off, and a username's daily ceiling, count only what comes after this (a closed
    ``username`` row marks the moment). Returns (failures removed, lockouts closed).
    """
    if not username and not ip:
        raise ValueError("unlock needs a username or an address")
    now = now or timezone.now()
    attempts = AccessAttempt.objects.none()
    if username:
        attempts = attempts | AccessAttempt.objects.filter(username=username)
    if ip:
        ip = address_key(ip) or ip
        attempts = attempts | AccessAttempt.objects.filter(ip_address=ip)
    with transaction.atomic():
        removed, _ = AccessAttempt.objects.filter(pk__in=attempts.values("pk")).delete()
        close_ended(now=now, q=_unlock_keys(username, ip))
        closed = SignInLockout.objects.filter(_unlock_keys(username, ip), ended_at__isnull=True).update(
            ended_at=now, end=SignInLockout.End.UNLOCKED)
        if username and not SignInLockout.objects.filter(scope=Scope.USERNAME, key=username, ended_at=now).exists():
            # the mark the daily ceiling counts from (a lockout of no length, closed at once)
            SignInLockout.objects.create(scope=Scope.USERNAME, key=username, username=username,
                                         started_at=now - timedelta(seconds=1), until=now, cool_off_seconds=0,
                                         ended_at=now, end=SignInLockout.End.UNLOCKED)
    log.warning("sign-in unlocked %s: username=%s address=%s (%d lockouts closed)", reason, username, ip, closed)
    return removed, closed


def _when(until: datetime, now: datetime) -> str:
    local = timezone.localtime(until)
    if local.date() == timezone.localtime(now).date():
        return formats.time_format(local, "H:i")
    return formats.date_format(local, "SHORT_DATETIME_FORMAT")


def lockout_message(until: datetime, *, now: datetime | None = None) -> str:
    now = now or timezone.now()
    minutes = max(1, math.ceil((until - now).total_seconds() / 60))
    return ngettext(
        "Too many failed sign-ins. Please try again after %(time)s (in about %(minutes)d minute).",
        "Too many failed sign-ins. Please try again after %(time)s (in about %(minutes)d minutes).",
        minutes,
    ) % {"time": _when(until, now), "minutes": minutes}


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the sign-in page with when to try again, 429 and Retry-After.

    Says nothing of whether the username exists or which of username and address is locked.
    """
    # axes' async middleware passes the credentials where the response belongs: read the request's.
    credentials = getattr(request, "axes_credentials", None) or (credentials if isinstance(credentials, dict) else None)
    now = timezone.now()
    ends = locked_until(request, credentials)
    until = max(ends.values()) if ends else now + cool_off(request)
    response = render(request, "accounts/login.html", {
        "form": AuthenticationForm(request),
        "throttled": lockout_message(until, now=now),
        "next": request.POST.get("next", "") if request.method == "POST" else "",
    }, status=429)
    response["Retry-After"] = str(max(1, math.ceil((until - now).total_seconds())))
    return response


def connect() -> None:
    user_locked_out.connect(on_locked_out, dispatch_uid="accounts.signin_lockout")
