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
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation

from . import notices

CLOSE_SIGN_IN = 4401
MAX_MESSAGE_CHARS = 1024
# What a page may follow besides its user: query parameter -> check(user_id, id) giving the group to
# join, or None (not allowed). Apps above accounts register theirs in their AppConfig.ready().
FOLLOWS: dict[str, Callable[[int, int], str | None]] = {}
SEEN_EVERY = 10.0  # seconds: pings closer together than this mark nothing (a page can't flood the table)


class MeConsumer(AsyncJsonWebsocketConsumer):
    user_id: int | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_SIGN_IN)
            return
        self.user_id = user.pk
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
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await database_sync_to_async(notices.socket_closed)(user_id=self.user_id)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if self.user_id is None:
            return
        message = None
        if text_data and len(text_data) <= MAX_MESSAGE_CHARS:
            try:
                message = json.loads(text_data)
            except ValueError:
                message = None
        if not isinstance(message, dict) or message.get("type") != "ping":
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
