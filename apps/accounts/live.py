"""The per-user socket (``/ws/me/``): each signed-in page keeps one, for the notices of its user
(invitations, match reminders, answered disputes) and his presence ("online" in his clubs).

Same access rules as the table socket: same-origin (config/origin.py), and an anonymous user is
accepted, then closed with 4401 before he costs a query or a group. A signed-in socket joins
``user.<id>`` (accounts/notices.py), counts itself in ``LivePresence`` (so "online" holds across
every server process) and is sent ``{"type": "hello", "unread": n}``.

A page may follow one more group through the query string: ``?club=<id>`` (the club page) joins
``club.<id>`` when ``FOLLOWS["club"]`` (registered by the clubs app, which knows who is a member)
allows it; a nudge sent there reaches the page as ``{"type": "nudge", "what": "club", "id"}``, and
the page fetches what changed (static/js/clubs/live_club.js). A refused or malformed follow is
ignored: the socket still serves its user.

Client -> server: ``{"type": "ping"}`` (every 25 s: marks him seen, answered ``pong``). Anything
else, or anything malformed, is answered ``{"type": "error", "code": "bad_message"}`` and changes
nothing. Server -> client: ``hello``, ``pong``, ``notice`` (a rendered notice: id, text, url,
label, post), ``error``.

What a socket may cost, as for the table socket (config/ratelimit.py): every frame is counted
against a token bucket of its type (``LIMITS``: pings, and everything else as ``other``); one over
its limit is answered ``{"type": "error", "code": "rate_limited", "retry_after": seconds}`` and
nothing else happens. A user keeps at most ``MAX_SOCKETS_PER_USER`` of these sockets in a process
(one per open page); one more is accepted, then closed with 4429, and the page does not reconnect
(static/js/common/live.js). The count is this process's: a page's socket may reach any process,
so it bounds what one process holds for a user, not his pages.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation

from config.ratelimit import MAX_SOCKETS_PER_USER, Buckets

from . import notices

CLOSE_SIGN_IN = 4401
CLOSE_TOO_MANY = 4429
# type -> (burst, per second): a page pings every 25 s; anything else is refused anyway.
LIMITS: dict[str, tuple[int, float]] = {"ping": (5, 1.0), "other": (10, 1.0)}
MAX_MESSAGE_CHARS = 1024
# What a page may follow besides its user: query parameter -> check(user_id, id) giving the group to
# join, or None (not allowed). Apps above accounts register theirs in their AppConfig.ready().
FOLLOWS: dict[str, Callable[[int, int], str | None]] = {}
SEEN_EVERY = 10.0  # seconds: pings closer together than this mark nothing (a page can't flood the table)
_open: Counter[int] = Counter()  # this process's accepted sockets, by user id


class MeConsumer(AsyncJsonWebsocketConsumer):
    user_id: int | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_SIGN_IN)
            return
        if _open[user.pk] >= MAX_SOCKETS_PER_USER:  # (counted below with no await in between)
            await self.accept()
            await self.close(code=CLOSE_TOO_MANY)
            return
        _open[user.pk] += 1
        self.user_id = user.pk
        try:
            await self._open(user)
        except BaseException:
            _uncount(user.pk)  # no disconnect follows a failed connect
            self.user_id = None
            raise

    async def _open(self, user) -> None:
        self.limits = Buckets(LIMITS)
        self.lang = _language(self.scope)
        self.seen = time.monotonic()
        self.groups_joined = [notices.group_name(user.pk)]
        await self.channel_layer.group_add(self.groups_joined[0], self.channel_name)
        await self.accept()
        unread = await database_sync_to_async(_opened)(user.pk)
        for name, value in _follows(self.scope):
            group = await database_sync_to_async(FOLLOWS[name])(user.pk, value)
            if group:
                self.groups_joined.append(group)
                await self.channel_layer.group_add(group, self.channel_name)
        await self.send_json({"type": "hello", "unread": unread})

    async def disconnect(self, code) -> None:
        if self.user_id is None:
            return
        user_id, self.user_id = self.user_id, None  # (counted out once)
        _uncount(user_id)
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await database_sync_to_async(notices.socket_closed)(user_id=user_id)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if self.user_id is None:
            return
        message = None
        if text_data and len(text_data) <= MAX_MESSAGE_CHARS:
            try:
                message = json.loads(text_data)
            except (ValueError, RecursionError):  # "[" * 1000 nests too deep to parse
                message = None
        kind = message.get("type") if isinstance(message, dict) else None
        empty = self.limits.take(kind if isinstance(kind, str) else "other")
        if empty is not None:
            await self.send_json({"type": "error", "code": "rate_limited", "retry_after": round(empty.wait(), 2)})
            return
        if kind != "ping":
            await self.send_json({"type": "error", "code": "bad_message"})
            return
        now = time.monotonic()
        if now - self.seen >= SEEN_EVERY:
            self.seen = now
            await database_sync_to_async(notices.socket_seen)(user_id=self.user_id)
        await self.send_json({"type": "pong"})

    async def notice_new(self, event: dict) -> None:
        with translation.override(self.lang):
            rendered = notices.render(event["notice"])
        await self.send_json({"type": "notice", "notice": rendered})


    async def live_nudge(self, event: dict) -> None:
        await self.send_json({"type": "nudge", "what": event["what"], "id": event["id"]})


def _uncount(user_id: int) -> None:
    _open[user_id] -= 1
    if _open[user_id] <= 0:
        del _open[user_id]


def _opened(user_id: int) -> int:
    notices.socket_opened(user_id=user_id)
    return notices.unread_count(user_id=user_id)


def _follows(scope) -> list[tuple[str, int]]:
    """The ``(name, id)`` the page asks to follow: registered names with a positive integer id."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    out = []
    for name in FOLLOWS:
        value = (query.get(name) or [""])[0]
        if value.isascii() and value.isdigit() and 0 < len(value) <= 12:
            out.append((name, int(value)))
    return out


def _language(scope) -> str:
    """The page's language (it passes ``?lang=``), else the site's default."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    wanted = (query.get("lang") or [""])[0]
    codes = {code for code, _name in settings.LANGUAGES}
    return wanted if wanted in codes else settings.LANGUAGE_CODE
