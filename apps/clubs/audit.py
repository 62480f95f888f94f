"""The club audit log as people read it: each entry's details in words, and the filters.

Entries are written by ``services.audit_log`` from every app (clubs, tables, ledgers, matches,
replays); their ``detail`` is a small JSON dict. ``detail_items`` turns the keys we know into
labelled values (an amount with its sign, a reason, a table, a template...) and shows any other
key as it is, so a new kind of entry is readable before anyone writes a label for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import AuditAction, AuditLog, Club

# detail key -> label; the order here is the order shown.
DETAIL_LABELS = {
    "amount": _("amount"),
    "reason": _("reason"),
    "table_name": _("table"),
    "table": _("table no."),
    "template": _("rule template"),
    "code": _("code"),
    "hand": _("hand"),
    "match": _("match"),
    "dispute": _("dispute"),
    "outcome": _("outcome"),
    "transaction": _("ledger transaction"),
    "hands_played": _("hands played"),
    "practice": _("practice"),
    "role": _("role"),
}
REASON_WORDS = {
    "admin": _("by an admin"),
    "owner": _("by its creator before the start"),
    "vote": _("all players agreed"),
}
SKIPPED = {"fee_payer"}  # shown through another key or not worth a line


@dataclass(frozen=True)
class Item:
    label: str
    value: str
    kind: str = ""  # "plus" / "minus" for amounts


def _value(key: str, value) -> tuple[str, str]:
    if key == "amount" and isinstance(value, int) and not isinstance(value, bool):
        return (f"+{value}" if value > 0 else str(value)), ("plus" if value > 0 else "minus")
    if key == "reason" and value in REASON_WORDS:
        return str(REASON_WORDS[value]), ""
    if isinstance(value, bool):
        return (str(_("yes")) if value else str(_("no"))), ""
    if key == "table":
        return f"#{value}", ""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items()), ""
    if isinstance(value, list):
        return ", ".join(map(str, value)), ""
    return str(value), ""


def detail_items(entry: AuditLog) -> list[Item]:
    detail = entry.detail if isinstance(entry.detail, dict) else {}
    known = [k for k in DETAIL_LABELS if k in detail]
    rest = sorted(k for k in detail if k not in DETAIL_LABELS and k not in SKIPPED)
    items = []
    for key in known + rest:
        value, kind = _value(key, detail[key])
        items.append(Item(str(DETAIL_LABELS.get(key, key)), value, kind))
    return items


@dataclass(frozen=True)
class AuditFilter:
    action: str = ""
    member: int | None = None  # the actor or the member acted on
    since: date | None = None
    until: date | None = None


def parse_filter(params) -> tuple[AuditFilter, list[str]]:
    """The filter from query parameters; malformed values are dropped, with a message each."""
    errors: list[str] = []
    action = (params.get("action") or "").strip()[:40]
    member = None
    if params.get("member"):
        try:
            member = int(params["member"])
        except ValueError:
            errors.append(str(_("Unknown member.")))
    dates = {}
    for key in ("since", "until"):
        raw = (params.get(key) or "").strip()
        if raw:
            try:
                dates[key] = date.fromisoformat(raw)
            except ValueError:
                errors.append(str(_("Dates are written YYYY-MM-DD.")))
    return AuditFilter(action=action, member=member, since=dates.get("since"), until=dates.get("until")), errors


def filtered(qs: QuerySet[AuditLog], f: AuditFilter) -> QuerySet[AuditLog]:
    if f.action:
        qs = qs.filter(action=f.action)
    if f.member is not None:
        qs = qs.filter(Q(actor_id=f.member) | Q(target_user_id=f.member))
    tz = timezone.get_current_timezone()
    if f.since:
        qs = qs.filter(created_at__gte=datetime.combine(f.since, time.min, tzinfo=tz))
    if f.until:
        qs = qs.filter(created_at__lt=datetime.combine(f.until + timedelta(days=1), time.min, tzinfo=tz))
    return qs


# The distinct kinds of a club's log without reading the log: a loose index scan of the
# (club, action, id) index, one seek per kind (a recursive CTE: PostgreSQL and SQLite alike).
_PRESENT_ACTIONS = """
WITH RECURSIVE kinds(action) AS (
    SELECT MIN(action) FROM {table} WHERE club_id = %s
    UNION ALL
    SELECT (SELECT MIN(l.action) FROM {table} l WHERE l.club_id = %s AND l.action > kinds.action)
    FROM kinds WHERE kinds.action IS NOT NULL
)
SELECT action FROM kinds WHERE action IS NOT NULL
"""


def action_choices(club: Club) -> list[tuple[str, str]]:
    """Every kind the club's log holds, labelled (one query, a seek per kind, whatever the log's length)."""
    with connection.cursor() as cursor:
        cursor.execute(_PRESENT_ACTIONS.format(table=connection.ops.quote_name(AuditLog._meta.db_table)),
                       [club.pk, club.pk])
        present = [row[0] for row in cursor.fetchall()]
    labels = dict(AuditAction.choices)
    return sorted(((a, str(labels.get(a, a))) for a in present), key=lambda pair: pair[1])
