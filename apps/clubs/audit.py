"""The club audit log as people read it: one sentence per entry, and the filters.

Entries are written by ``services.audit_log`` from every app (clubs, tables, ledgers, matches,
replays); their ``detail`` is a small JSON dict. ``sentence`` says who did what to whom, with
amounts, names and local times, in the reader's language; raw keys, ids and JSON values are never
shown (a kind without a sentence yet is said with its label).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db import connection
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from .models import AuditAction, AuditLog, Club

# Why a table was dissolved (``apps.tables.transaction.transitions``' reasons).
REASON_WORDS = {
    "admin": gettext_lazy("by an admin"),
    "owner": gettext_lazy("by its creator before the start"),
    "vote": gettext_lazy("all players agreed"),
}


def local_time(value: datetime) -> str:
    """A moment in the site's time zone, as people write it: 12月3日 20:15 / Dec 3, 20:15."""
    return date_format(timezone.localtime(value), pgettext("audit time", "M j, H:i"))


@dataclass(frozen=True)
class Row:
    entry: AuditLog
    when: str
    sentence: SafeString


def _name(user) -> SafeString:
    return format_html("<strong>{}</strong>", user.name if user is not None else _("the system"))


def _quoted(text) -> SafeString:
    return format_html(pgettext("quoted name", "“{}”"), text)


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _say(sentence_: str, /, **values) -> SafeString:
    """A translated sentence with %(name)s places, its values escaped."""
    return mark_safe(sentence_ % {k: conditional_escape(v) for k, v in values.items()})


class _Names:
    """Names the sentences of one page refer to, looked up once for the page: members by id (a
    dispute's adjusted player, two members kept apart...) and matches and tables by id, from the
    log's own rows that named them (``match.create``/``match.update``, ``table.open``)."""

    def __init__(self, club_id: int, entries: list[AuditLog]):
        from django.contrib.auth import get_user_model

        user_ids, match_ids, table_ids = set(), set(), set()
        for e in entries:
            d = e.detail if isinstance(e.detail, dict) else {}
            for key in ("member", "swapped_with"):
                if _int(d.get(key)) is not None:
                    user_ids.add(d[key])
            if isinstance(d.get("users"), list):
                user_ids.update(u for u in d["users"] if _int(u) is not None)
            if _int(d.get("match")) is not None and not d.get("name"):
                match_ids.add(d["match"])
            if _int(d.get("table")) is not None and not d.get("table_name"):
                table_ids.add(d["table"])
        self.users = {u.pk: u.name for u in get_user_model().objects.filter(pk__in=user_ids)} if user_ids else {}
        self.matches: dict[int, str] = {}
        self.tables: dict[int, str] = {}
        if match_ids:
            for d in AuditLog.objects.filter(
                club_id=club_id, action__in=[AuditAction.MATCH_CREATE, AuditAction.MATCH_UPDATE],
                detail__match__in=sorted(match_ids),
            ).order_by("id").values_list("detail", flat=True):
                if isinstance(d, dict) and d.get("name"):
                    self.matches[d["match"]] = d["name"]
        if table_ids:
            for d in AuditLog.objects.filter(club_id=club_id, action=AuditAction.TABLE_OPEN,
                                             detail__table__in=sorted(table_ids)).values_list("detail", flat=True):
                if isinstance(d, dict) and d.get("table_name"):
                    self.tables[d["table"]] = d["table_name"]

    def user(self, user_id) -> SafeString:
        name = self.users.get(user_id)
        return format_html("<strong>{}</strong>", name) if name else mark_safe(_("a former member"))

    def match(self, d: dict) -> SafeString:
        name = d.get("name") or self.matches.get(d.get("match"))
        return _quoted(name) if name else mark_safe(pgettext("unknown name", " (name unknown)"))

    def table_name(self, d: dict) -> str:
        return d.get("table_name") or self.tables.get(d.get("table")) or ""

    def table(self, d: dict) -> SafeString:
        name = self.table_name(d)
        return _quoted(name) if name else mark_safe(pgettext("unknown name", " (name unknown)"))


def _points(amount: int) -> str:
    return str(abs(amount))


def sentence(entry: AuditLog, names: _Names) -> SafeString:
    """Who did what to whom, in the reader's language."""
    d = entry.detail if isinstance(entry.detail, dict) else {}
    actor, target = _name(entry.actor), _name(entry.target_user) if entry.target_user_id else None
    a = entry.action
    A = AuditAction
    if a == A.CLUB_CREATE:
        return _say(_("%(actor)s created the club %(name)s."), actor=actor, name=_quoted(d.get("name", "")))
    if a == A.INVITE_CREATE:
        hours, uses = _int(d.get("valid_hours")), _int(d.get("max_uses"))
        text = _say(_("%(actor)s created an invite link."), actor=actor)
        if hours and hours % 24 == 0:
            text += _say(_(" Valid for %(days)s days."), days=hours // 24)
        elif hours:
            text += _say(_(" Valid for %(hours)s hours."), hours=hours)
        if uses:
            text += _say(_(" At most %(uses)s people can join with it."), uses=uses)
        return text
    if a == A.INVITE_REVOKE:
        return _say(_("%(actor)s revoked an invite link."), actor=actor)
    if a in (A.JOIN_APPROVE, A.JOIN_REJECT, A.MEMBER_REMOVE, A.MEMBER_BAN, A.MEMBER_UNBAN, A.MEMBER_PROMOTE,
             A.MEMBER_DEMOTE, A.OWNER_TRANSFER, A.MEMBER_RESET_LINK):
        templates = {
            A.JOIN_APPROVE: _("%(actor)s let %(target)s join the club."),
            A.JOIN_REJECT: _("%(actor)s turned down the join request of %(target)s."),
            A.MEMBER_REMOVE: _("%(actor)s removed %(target)s from the club."),
            A.MEMBER_BAN: _("%(actor)s banned %(target)s from the club."),
            A.MEMBER_UNBAN: _("%(actor)s lifted the ban on %(target)s."),
            A.MEMBER_PROMOTE: _("%(actor)s made %(target)s an admin."),
            A.MEMBER_DEMOTE: _("%(actor)s took the admin rights of %(target)s."),
            A.OWNER_TRANSFER: _("%(actor)s handed the club over to %(target)s."),
            A.MEMBER_RESET_LINK: _("%(actor)s made a one-time link for %(target)s to set a new password."),
        }
        return _say(templates[a], actor=actor, target=target or mark_safe(_("a former member")))
    if a == A.MEMBER_LEAVE:
        return _say(_("%(actor)s left the club."), actor=actor)
    if a in (A.TEMPLATE_CREATE, A.TEMPLATE_UPDATE, A.TEMPLATE_DELETE):
        templates = {
            A.TEMPLATE_CREATE: _("%(actor)s created the rule template %(template)s."),
            A.TEMPLATE_UPDATE: _("%(actor)s edited the rule template %(template)s."),
            A.TEMPLATE_DELETE: _("%(actor)s deleted the rule template %(template)s."),
        }
        text = _say(templates[a], actor=actor, template=_quoted(d.get("template", "")))
        fee = _int(d.get("fee"))
        if a != A.TEMPLATE_DELETE and fee is not None:
            text += _say(_(" Table fee: %(fee)s points.") if fee else _(" No table fee."), fee=fee)
        return text
    if a == A.ANNOUNCEMENT_SET:
        if not d.get("text"):
            return _say(_("%(actor)s cleared the announcement."), actor=actor)
        return _say(_("%(actor)s changed the announcement to %(text)s."), actor=actor, text=_quoted(d["text"]))
    if a == A.LEDGER_ADJUST:
        amount = _int(d.get("amount")) or 0
        template = (_("%(actor)s added %(points)s points to %(target)s.") if amount > 0
                    else _("%(actor)s removed %(points)s points from %(target)s."))
        text = _say(template, actor=actor, target=target or mark_safe(_("a former member")),
                    points=format_html('<span class="{}">{}</span>', "plus" if amount > 0 else "minus",
                                       _points(amount)))
        if d.get("reason"):
            text += _say(_(" Reason: %(reason)s"), reason=d["reason"])
        return text
    if a == A.TABLE_OPEN:
        template = (_("%(actor)s opened a practice table %(table)s.") if d.get("practice")
                    else _("%(actor)s opened a table %(table)s."))
        text = _say(template, actor=actor, table=names.table(d))
        if d.get("template"):
            text += _say(_(" Rule template: %(template)s."), template=_quoted(d["template"]))
        return text
    if a in (A.TABLE_DISSOLVE, A.TABLE_FORCE_DISSOLVE):
        template = (_("%(actor)s force-dissolved a table %(table)s.") if a == A.TABLE_FORCE_DISSOLVE
                    else _("%(actor)s dissolved a table %(table)s."))
        text = _say(template, actor=actor, table=names.table(d))
        if a == A.TABLE_DISSOLVE and d.get("reason") in REASON_WORDS:
            text += _say(_(" How: %(how)s."), how=str(REASON_WORDS[d["reason"]]))
        if _int(d.get("hands_played")) is not None:
            text += _say(_(" Hands played: %(n)s."), n=d["hands_played"])
        return text
    if a == A.REPLAY_VIEW:
        if d.get("route") == "session_export":
            return _say(_("%(actor)s downloaded every hand of the table %(table)s."), actor=actor,
                        table=names.table(d))
        if _int(d.get("number")) and names.table_name(d):
            return _say(_("%(actor)s watched the replay of hand %(number)s at the table %(table)s."),
                        actor=actor, number=d["number"], table=names.table(d))
        if _int(d.get("number")):
            return _say(_("%(actor)s watched the replay of hand %(number)s."), actor=actor, number=d["number"])
        return _say(_("%(actor)s watched a replay."), actor=actor)
    if a == A.DISPUTE_FILE:
        return _say(_("%(actor)s filed a dispute about a hand."), actor=actor)
    if a == A.DISPUTE_REVIEW:
        return _say(_("%(actor)s started reviewing the dispute of %(target)s."), actor=actor,
                    target=target or mark_safe(_("a former member")))
    if a == A.DISPUTE_RESOLVE:
        text = _say(_("%(actor)s resolved the dispute of %(target)s."), actor=actor,
                    target=target or mark_safe(_("a former member")))
        if d.get("outcome"):
            text += _say(_(" Outcome: %(outcome)s"), outcome=d["outcome"])
        amount = _int(d.get("amount"))
        if amount:
            template = (_(" %(points)s points added to %(member)s.") if amount > 0
                        else _(" %(points)s points removed from %(member)s."))
            text += _say(template, points=_points(amount), member=names.user(d.get("member")))
        return text
    if a == A.COLLUSION_EXPORT:
        return _say(_("%(actor)s exported the collusion report."), actor=actor)
    if a in (A.FAIRPLAY_REQUEST, A.FAIRPLAY_VIEW):
        template = (_("%(actor)s asked for the information advantage score of %(target)s.")
                    if a == A.FAIRPLAY_REQUEST else _("%(actor)s opened the information advantage score of %(target)s."))
        return _say(template, actor=actor, target=target or mark_safe(_("a former member")))
    if a in (A.MATCH_CREATE, A.MATCH_UPDATE):
        template = (_("%(actor)s created the match %(match)s.") if a == A.MATCH_CREATE
                    else _("%(actor)s edited the match %(match)s."))
        text = _say(template, actor=actor, match=names.match(d))
        starts = parse_datetime(d["starts_at"]) if isinstance(d.get("starts_at"), str) else None
        if starts is not None:
            text += _say(_(" Starts %(when)s."), when=local_time(starts))
        fee = _int(d.get("entry_fee"))
        if fee is not None:
            text += _say(_(" Entry fee: %(fee)s points.") if fee else _(" No entry fee."), fee=fee)
        return text
    if a in (A.MATCH_CANCEL, A.MATCH_PAUSE, A.MATCH_RESUME):
        templates = {
            A.MATCH_CANCEL: _("%(actor)s cancelled the match %(match)s."),
            A.MATCH_PAUSE: _("%(actor)s paused the match %(match)s."),
            A.MATCH_RESUME: _("%(actor)s resumed the match %(match)s."),
        }
        text = _say(templates[a], actor=actor, match=names.match(d))
        if d.get("reason"):
            text += _say(_(" Reason: %(reason)s"), reason=d["reason"])
        return text
    if a == A.MATCH_RESEAT:
        return _say(_("%(actor)s moved %(target)s in round %(round)s of the match %(match)s from table "
                      "%(source)s to table %(dest)s."),
                    actor=actor, target=target or mark_safe(_("a former member")), match=names.match(d),
                    round=d.get("round", "?"), source=d.get("from_table", "?"), dest=d.get("to_table", "?"))
    if a in (A.NEVER_TOGETHER_ADD, A.NEVER_TOGETHER_REMOVE):
        users = d.get("users") if isinstance(d.get("users"), list) and len(d["users"]) == 2 else [None, None]
        template = (_("%(actor)s keeps %(a)s and %(b)s at different tables in matches.")
                    if a == A.NEVER_TOGETHER_ADD
                    else _("%(actor)s lets %(a)s and %(b)s sit at one table in matches again."))
        return _say(template, actor=actor, a=names.user(users[0]), b=names.user(users[1]))
    # A kind without a sentence yet (another app's new action): its label, never its raw key.
    label = entry.action_label if entry.action in AuditAction.values else _("did something")
    return _say(_("%(actor)s %(what)s."), actor=actor, what=str(label))


def rows(club: Club, entries) -> list[Row]:
    """The page's entries as sentences, with local times (one query for the names they need)."""
    entries = list(entries)
    names = _Names(club.pk, entries)
    return [Row(e, local_time(e.created_at), sentence(e, names)) for e in entries]


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
    # Each kind once, by its label (a kind no sentence knows is offered under its label only if
    # it has one: a raw action key is never shown).
    choices = {a: str(labels[a]) for a in dict.fromkeys(present) if a in labels}
    return sorted(choices.items(), key=lambda pair: pair[1])
