"""Sign-in throttling on django-axes: failures per username and per address, a growing cool-off.

django-axes counts failed sign-ins (every authentication through ``django.contrib.auth``: our
sign-in page and the admin's) per username and per client address (``AXES_LOCKOUT_PARAMETERS``);
at ``SIGNIN_FAILURE_LIMIT`` failures within the cool-off the username or the address is locked
out, and while it is, even the right password is refused with the same answer. The settings point
axes at the pieces here:

- ``cool_off`` (``AXES_COOLOFF_TIME``): ``SIGNIN_COOLOFF_SECONDS``, doubled for every earlier
  lockout of that username or address in the last 24 hours, at most ``SIGNIN_COOLOFF_MAX_SECONDS``.
  Each failure's expiry is stored when it happens (``AXES_USE_ATTEMPT_EXPIRATION``), so a lockout
  keeps the end it was given and the time the page names is the time it ends.
- ``SignInHandler`` (``AXES_HANDLER``): axes' database handler counting unexpired failures.
- ``lockout_response`` (``AXES_LOCKOUT_CALLABLE``): the sign-in page again, status 429, saying
  when to try again, the same for a username that exists and one that does not.
- ``SignInLockout`` rows (the audit trail): written when a lockout starts (``user_locked_out``),
  closed when its cool-off ended (``close_ended``, a beat task) or an admin lifted it (``unlock``).
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timedelta

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from axes.models import AccessAttempt
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import formats, timezone
from django.utils.translation import ngettext

from .models import SignInLockout
from .services import client_ip

log = logging.getLogger(__name__)

# The lockout parameters of settings.AXES_LOCKOUT_PARAMETERS, in that order, as lockout scopes.
SCOPES = {"username": SignInLockout.Scope.USERNAME, "ip_address": SignInLockout.Scope.ADDRESS}
GROWTH_MEMORY = timedelta(hours=24)


def request_ip(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: the one client address of the project (accounts.services)."""
    return client_ip(request.META)


def _keys(username: str | None, ip: str | None) -> Q:
    q = Q(pk__in=[])
    if username:
        q |= Q(scope=SignInLockout.Scope.USERNAME, key=username)
    if ip:
        q |= Q(scope=SignInLockout.Scope.ADDRESS, key=ip)
    return q


def cool_off_for(username: str | None, ip: str | None, *, now: datetime | None = None) -> timedelta:
    """The cool-off a new lockout of this username or address gets: doubled per earlier lockout
    (of the username, or of the address, whichever had more in the last 24 hours)."""
    now = now or timezone.now()
    base = int(settings.SIGNIN_COOLOFF_SECONDS)
    earlier = 0
    for key_q in (_keys(username, None), _keys(None, ip)):  # the username's and the address's own counts
        mine = SignInLockout.objects.filter(key_q)
        since = now - GROWTH_MEMORY
        last_unlock = mine.filter(end=SignInLockout.End.UNLOCKED).aggregate(at=Max("ended_at"))["at"]
        if last_unlock is not None and last_unlock > since:
            since = last_unlock  # an admin's unlock starts the count afresh
        earlier = max(earlier, mine.filter(started_at__gte=since).exclude(end=SignInLockout.End.UNLOCKED).count())
    return timedelta(seconds=min(base * 2 ** min(earlier, 30), int(settings.SIGNIN_COOLOFF_MAX_SECONDS)))


def cool_off(request: HttpRequest | None) -> timedelta:
    """``AXES_COOLOFF_TIME``: the cool-off for this request's username and address."""
    if request is None:
        return timedelta(seconds=int(settings.SIGNIN_COOLOFF_SECONDS))
    username = get_client_username(request, getattr(request, "axes_credentials", None))
    return cool_off_for(username, getattr(request, "axes_ip_address", None) or request_ip(request))


class SignInHandler(AxesDatabaseHandler):
    """Counts the failures that have not expired yet (each expires at its own stored time)."""

    def get_user_attempts(self, request, credentials=None):
        now = timezone.now()
        return [attempts.filter(expiration__expires_at__gt=now)
                for attempts in self.filter_user_attempts(request, credentials)]


def locked_until(request: HttpRequest, credentials: dict | None) -> dict[str, datetime]:
    """{scope: when its lockout ends} for every scope of this request that is locked out now.

    A scope stays locked while its unexpired failures reach the limit: newest expiry first, the
    lockout ends when the failure that made the count reach the limit expires.
    """
    limit = get_failure_limit(request, credentials)
    handler = SignInHandler()
    ends: dict[str, datetime] = {}
    for parameter, attempts in zip(settings.AXES_LOCKOUT_PARAMETERS, handler.get_user_attempts(request, credentials),
                                   strict=True):
        total = 0
        for failures, expires_at in attempts.order_by("-expiration__expires_at").values_list(
                "failures_since_start", "expiration__expires_at"):
            total += failures
            if total >= limit:
                ends[SCOPES[parameter]] = expires_at
                break
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
    keys = {SignInLockout.Scope.USERNAME: username, SignInLockout.Scope.ADDRESS: ip_address}
    for scope, until in locked_until(request, credentials).items():
        key = keys[scope]
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


def unlock(*, username: str | None = None, ip: str | None = None) -> tuple[int, int]:
    """Lift the lockout of a username and/or an address now (the admin command).

    Deletes their counted failures and closes their open lockout rows as unlocked; the next
    lockout's cool-off counts only lockouts after this. Returns (failures removed, lockouts closed).
    """
    if not username and not ip:
        raise ValueError("unlock needs a username or an address")
    now = timezone.now()
    attempts = AccessAttempt.objects.none()
    if username:
        attempts = attempts | AccessAttempt.objects.filter(username=username)
    if ip:
        attempts = attempts | AccessAttempt.objects.filter(ip_address=ip)
    with transaction.atomic():
        removed, _ = AccessAttempt.objects.filter(pk__in=attempts.values("pk")).delete()
        close_ended(now=now, q=_keys(username, ip))
        closed = SignInLockout.objects.filter(_keys(username, ip), ended_at__isnull=True).update(
            ended_at=now, end=SignInLockout.End.UNLOCKED)
    log.warning("sign-in unlocked by an admin: username=%s address=%s (%d lockouts closed)", username, ip, closed)
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
