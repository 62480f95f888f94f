"""Notices: what a user is told on whatever page he is (issue #47), and who is online.

Senders (tables, matches, audit) call ``notify`` inside their own transaction: the row is inserted
once per (recipient, key) — a second call with the same key does nothing and sends nothing — and
after the commit the notice goes to the recipient's group (``user.<id>``), which every per-user
socket of his joins (accounts/live.py). Words are chosen when shown, in the reader's language
(``render``): a notice stores its kind and parameters, never a sentence.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .models import LivePresence, Notice

log = logging.getLogger(__name__)

# What each kind says (its params fill it) and the label of its button. A kind whose button POSTs
# (the invitation's 加入 seats him through the table's join form) is in POST_KINDS.
WORDS = {
    "table_invite": (_("%(inviter)s invites you to table %(table)s (%(club)s)"), _("Join")),
    "match_checkin": (_("Check-in for %(match)s is open"), _("Check in")),
    "match_soon": (_("%(match)s starts in 5 minutes"), _("View")),
    "match_table": (_("Your table for round %(round)s of %(match)s is ready"), _("Go to the table")),
    "join_approved": (_("You are now a member of %(club)s"), _("Enter the club")),
    "join_rejected": (_("Your request to join %(club)s was not accepted"), _("View")),
    "join_requested": (_("%(name)s asks to join %(club)s"), _("View")),
    "dispute_filed": (_("%(name)s filed a dispute on hand %(number)s at the table %(table)s"), _("View")),
    "dispute_answered": (_("Your dispute on hand %(number)s at the table %(table)s was answered"), _("View")),
    "dispute_reviewing": (_("%(name)s is reviewing the dispute on hand %(number)s at the table %(table)s"), _("View")),
    "dispute_resolved": (_("%(name)s resolved the dispute on hand %(number)s at the table %(table)s"), _("View")),
}
POST_KINDS = frozenset({"table_invite"})
RECENT = 20  # notices the bell's list shows


def group_name(user_id: int) -> str:
    return f"user.{user_id}"


def notify(*, recipient_id: int, kind: str, key: str, params: dict | None = None, url: str = "") -> Notice | None:
    """Tell ``recipient_id`` something, once per ``key``: the new notice, or None when one with this
    key exists already (nothing is sent then). The send happens after the caller's commit."""
    if kind not in WORDS:
        raise ValueError(f"unknown notice kind {kind!r}")
    try:
        with transaction.atomic():
            notice = Notice.objects.create(recipient_id=recipient_id, kind=kind, key=key,
                                           params=params or {}, url=url)
    except IntegrityError:
        return None
    transaction.on_commit(lambda: send(notice))
    return notice


def notify_each(*, recipient_ids, kind: str, key: str, params: dict | None = None, url: str = "") -> list[Notice]:
    """``notify`` each of ``recipient_ids`` not told under ``key`` yet (one query finds those who
    were, so a job that runs every few seconds costs little once everyone is told); the new ones."""
    ids = set(recipient_ids)
    if not ids:
        return []
    told = set(Notice.objects.filter(key=key, recipient_id__in=ids).values_list("recipient_id", flat=True))
    made = (notify(recipient_id=uid, kind=kind, key=key, params=params, url=url) for uid in sorted(ids - told))
    return [n for n in made if n is not None]


def send(notice: Notice) -> None:
    """Hand ``notice`` to its recipient's sockets (at most once: a page that missed it finds it in
    the bell's list)."""
    group_send(group_name(notice.recipient_id), {"type": "notice.new", "notice": facts(notice)})


def _layer_send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


# How a message reaches the channel layer. The tables app installs its outbox's ``send_group``
# (TablesConfig.ready), which a table socket's database thread defers to its event loop: a notice
# made inside a table's move (a match's next round seated) never blocks that thread on the layer.
publisher: Callable[[str, dict], None] = _layer_send


def group_send(group: str, message: dict) -> None:
    """Send after a commit (callers use ``transaction.on_commit``); at most once, never raising."""
    try:
        publisher(group, message)
    except Exception:  # noqa: BLE001 - a stored notice shows in the bell; a nudge is only a hint
        log.exception("group_send to %s failed", group)


def facts(notice: Notice) -> dict:
    """What travels through the channel layer: the notice's facts, worded by each socket."""
    return {"id": notice.pk, "kind": notice.kind, "params": notice.params, "url": notice.url,
            "created": notice.created_at.isoformat()}


def render(facts_: dict) -> dict:
    """The notice in the active language: ``{"id", "kind", "text", "url", "label", "post"}``."""
    text, label = WORDS.get(facts_["kind"], (_("Notice"), _("View")))
    try:
        text = gettext(text) % facts_.get("params", {})
    except (KeyError, TypeError, ValueError):
        text = gettext(text)
    return {"id": facts_["id"], "kind": facts_["kind"], "text": text, "url": facts_.get("url", ""), "label": gettext(label),
            "post": facts_["kind"] in POST_KINDS}


def recent(*, user) -> list[Notice]:
    return list(Notice.objects.filter(recipient=user)[:RECENT])


def unread_count(*, user_id: int) -> int:
    return Notice.objects.filter(recipient_id=user_id, read_at__isnull=True).count()


def mark_read(*, user, ids: list[int] | None = None) -> int:
    """Mark ``user``'s notices read (``ids``: only those of his; None: all); how many changed."""
    rows = Notice.objects.filter(recipient=user, read_at__isnull=True)
    if ids is not None:
        rows = rows.filter(pk__in=ids)
    return rows.update(read_at=timezone.now())


# --- presence ---------------------------------------------------------------------------------

STALE_SECONDS = 75  # a socket pings every 25 s (static/js/common/live.js): three missed, and he is gone


def socket_opened(*, user_id: int) -> None:
    now = timezone.now()
    updated = LivePresence.objects.filter(user_id=user_id).update(sockets=Greatest(F("sockets") + 1, Value(1)),
                                                                   seen_at=now)
    if not updated:
        try:
            with transaction.atomic():
                LivePresence.objects.create(user_id=user_id, sockets=1, seen_at=now)
        except IntegrityError:  # another socket of his made the row meanwhile
            LivePresence.objects.filter(user_id=user_id).update(sockets=F("sockets") + 1, seen_at=now)


def socket_seen(*, user_id: int) -> None:
    LivePresence.objects.filter(user_id=user_id).update(seen_at=timezone.now())


def socket_closed(*, user_id: int) -> None:
    LivePresence.objects.filter(user_id=user_id).update(sockets=Greatest(F("sockets") - 1, Value(0)))


def online_user_ids(*, user_ids) -> set[int]:
    """Those of ``user_ids`` with a page open now (one query)."""
    cutoff = timezone.now() - timedelta(seconds=STALE_SECONDS)
    return set(LivePresence.objects.filter(user_id__in=user_ids, sockets__gt=0, seen_at__gte=cutoff)
               .values_list("user_id", flat=True))
