"""Defining a match: the one validator (the form and the services read their limits from ``LIMITS``
and their checks from ``validate``), create, edit, cancel."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.clubs import access
from apps.clubs.models import AuditAction, RuleTemplate
from apps.clubs.services import audit_log
from apps.tables.models import OPEN_TABLE_STATUSES
from apps.tables.verbs import arranged

from .. import formats
from ..models import IN_MATCH, Entrant, EntrantStatus, Format, Match, MatchState, MatchTable
from . import clock, escrow
from .base import is_int, lock, now_or

# The fields of a definition (match_create / match_update keyword arguments).
MATCH_FIELDS = (
    "name", "description", "template", "format", "starts_at", "registration_opens_at",
    "registration_closes_at", "checkin_opens_at", "min_entrants", "max_entrants", "entry_fee",
    "prize_scheme", "hands_per_round", "rounds", "points_by_rank", "elim_start_chips", "elim_line",
    "elim_rise_every", "elim_rise_by", "knockout_top", "final_hands",
)

# (lowest, highest) of every number a definition holds; the form's inputs show the same bounds.
LIMITS: dict[str, tuple[int, int]] = {
    "min_entrants": (2, 1000),
    "max_entrants": (2, 1000),
    "entry_fee": (0, 10**9),
    "hands_per_round": (1, 64),
    "rounds": (1, 50),
    "final_hands": (1, 64),
    "elim_start_chips": (1, 10**9),
    "elim_line": (0, 10**9),
    "elim_rise_every": (1, 100),
    "elim_rise_by": (1, 10**9),
    "knockout_top": (1, 3),
    "checkin_minutes": (1, 24 * 60),
}
NAME_MAX = 80
DESCRIPTION_MAX = 2000
DEFAULTS = {"hands_per_round": 4, "rounds": 3, "final_hands": 4, "elim_start_chips": 1000, "elim_line": 900,
            "elim_rise_every": 1, "elim_rise_by": 20, "knockout_top": 1, "entry_fee": 0, "max_entrants": 60}
RULE_SNAPSHOT = ("template", "preset", "options", "players", "base_score", "piao_choices", "turn_seconds",
                 "claim_seconds", "ruleset")


def _within(value: Any, key: str) -> bool:
    lo, hi = LIMITS[key]
    return is_int(value) and lo <= value <= hi


def validate(*, club, fields: dict[str, Any], now) -> dict[str, Any]:
    """Check every field of a definition at once; the model values (with the rule snapshot), or
    ``ValidationError`` with one message per wrong field, in the user's language."""
    errors: dict[str, str] = {}
    out: dict[str, Any] = {}
    name = str(fields.get("name") or "").strip()
    if not name:
        errors["name"] = _("A match needs a name.")
    elif len(name) > NAME_MAX:
        errors["name"] = _("The name is too long (80 characters at most).")
    out["name"] = name
    out["description"] = str(fields.get("description") or "").strip()[:DESCRIPTION_MAX]

    template = fields.get("template")
    size = 3
    if not isinstance(template, RuleTemplate) or template.club_id != club.pk:
        errors["template"] = _("Choose a rule template of this club.")
    else:
        snapshot = Match()
        snapshot.copy_rules(template)
        snapshot.drop_escape()  # a match's tables never offer 逃跑 (RULES.md §8.6)
        out.update({name: getattr(snapshot, name) for name in RULE_SNAPSHOT if name != "template"},
                   template=template)
        size = template.players

    fmt = fields.get("format", Format.FIXED)
    if fmt not in formats.FORMATS:
        errors["format"] = _("Choose a format.")
    out["format"] = fmt

    _validate_schedule(fields, now, out, errors)

    lo, hi = fields.get("min_entrants", size), fields.get("max_entrants", DEFAULTS["max_entrants"])
    if not _within(lo, "min_entrants") or lo < size:
        errors["min_entrants"] = _("At least %(n)s entrants are needed to fill one table.") % {"n": size}
    elif not is_int(hi) or hi < lo:
        errors["max_entrants"] = _("The maximum number of entrants cannot be below the minimum.")
    elif hi > LIMITS["max_entrants"][1]:
        errors["max_entrants"] = _("At most %(n)s entrants.") % {"n": LIMITS["max_entrants"][1]}
    out.update(min_entrants=lo, max_entrants=hi)

    fee = fields.get("entry_fee", 0)
    if not is_int(fee) or fee < 0:
        errors["entry_fee"] = _("The entry fee cannot be negative.")
    elif fee > LIMITS["entry_fee"][1]:
        errors["entry_fee"] = _("The entry fee is too large.")
    out["entry_fee"] = fee

    _validate_prizes(fields, out, errors)
    for key, message in (
        ("hands_per_round", _("Hands per round must be from 1 to %(n)s.")),
        ("rounds", _("Rounds must be from 1 to %(n)s.")),
        ("final_hands", _("Final table hands must be from 1 to %(n)s.")),
    ):
        value = fields.get(key, DEFAULTS[key])
        if not _within(value, key):
            errors[key] = message % {"n": LIMITS[key][1]}
        out[key] = value

    _validate_points(fields, size, out, errors)
    _validate_format_settings(fields, fmt, size, out, errors)
    if errors:
        raise ValidationError(errors)
    return out


def _validate_points(fields, size, out, errors) -> None:
    default = formats.DEFAULT_POINTS_BY_RANK.get(size, [])
    points = list(fields.get("points_by_rank") or default)
    out["points_by_rank"] = points
    if any(not is_int(p) or p < 0 for p in points):
        errors["points_by_rank"] = _("Match points cannot be negative.")
    elif len(points) != size:
        errors["points_by_rank"] = _("Give one value per seat: %(n)s values, e.g. %(example)s.") % {
            "n": size, "example": ",".join(str(v) for v in default)}
    elif any(a < b for a, b in zip(points, points[1:], strict=False)):
        errors["points_by_rank"] = _("Match points never rise from one place to the next (e.g. 4,2,0).")


def _validate_schedule(fields, now, out, errors) -> None:
    starts_at = fields.get("starts_at")
    if starts_at is None:
        errors["starts_at"] = _("Give a start time.")
        return
    if starts_at <= now:
        errors["starts_at"] = _("The start time must be in the future.")
        return
    opens = fields.get("registration_opens_at") or now
    closes = fields.get("registration_closes_at") or starts_at
    checkin = fields.get("checkin_opens_at") or Match.default_checkin_opens(starts_at)
    if closes > starts_at:
        errors["registration_closes_at"] = _("Registration must close before the start time.")
    elif not opens < closes:
        errors["registration_opens_at"] = _("Registration must open before it closes.")
    if checkin > starts_at:
        errors["checkin_opens_at"] = _("Check-in must open before the start time.")
    out.update(starts_at=starts_at, registration_opens_at=opens, registration_closes_at=closes,
               checkin_opens_at=checkin)


def _validate_prizes(fields, out, errors) -> None:
    scheme = fields.get("prize_scheme") or {"kind": "percent", "percents": [100]}
    if isinstance(scheme, dict) and scheme.get("kind") == "percent" and not scheme.get("percents"):
        errors["prize_scheme"] = _("Give at least one percentage, e.g. 100 or 50,30,20.")
        return
    if isinstance(scheme, dict) and scheme.get("kind") == "fixed" and any(
            is_int(a) and a < 0 for a in scheme.get("amounts") or []):
        errors["prize_scheme"] = _("Prizes cannot be negative.")
        return
    try:
        out["prize_scheme"] = clean = formats.check_prize_scheme(scheme)
    except ValueError as exc:
        if isinstance(scheme, dict) and scheme.get("kind") == "percent" and "100" in str(exc):
            total = sum(p for p in scheme.get("percents") or [] if is_int(p))
            errors["prize_scheme"] = _(
                "Prize percentages must add up to 100 (these add up to %(sum)s).") % {"sum": total}
        elif isinstance(scheme, dict) and scheme.get("kind") == "fixed":
            errors["prize_scheme"] = _("Fixed prizes are whole numbers of 0 or more.")
        else:
            errors["prize_scheme"] = _("Prizes are fixed amounts per place or percentages of the pool.")
        return
    places = clean.get("amounts") or clean.get("percents") or []
    hi = fields.get("max_entrants", DEFAULTS["max_entrants"])
    if is_int(hi) and len(places) > hi:
        errors["prize_scheme"] = _("More prize places than the maximum number of entrants.")


def _validate_format_settings(fields, fmt, size, out, errors) -> None:
    values = {key: fields.get(key, DEFAULTS[key])
              for key in ("elim_start_chips", "elim_line", "elim_rise_every", "elim_rise_by", "knockout_top")}
    if fmt == Format.ELIMINATION:
        start, line = values["elim_start_chips"], values["elim_line"]
        if not _within(start, "elim_start_chips"):
            errors["elim_start_chips"] = _("Starting chips must be a positive whole number.")
        elif not _within(line, "elim_line") or line > start:
            errors["elim_line"] = _("The elimination line must not be above the starting chips.")
        if not _within(values["elim_rise_every"], "elim_rise_every"):
            errors["elim_rise_every"] = _("The line rises every 1 to %(n)s hands.") % {
                "n": LIMITS["elim_rise_every"][1]}
        if not _within(values["elim_rise_by"], "elim_rise_by"):
            errors["elim_rise_by"] = _("The line must rise by at least 1, or the match might never end.")
    top = values["knockout_top"]
    if not is_int(top) or not 1 <= top < size:
        if fmt == Format.KNOCKOUT:
            errors["knockout_top"] = _("Fewer players than a table's %(n)s seats must advance.") % {"n": size}
        values["knockout_top"] = 1  # not used by this format; keeps the constraint true
    out.update(values)


def _clean_fields(fields: dict[str, Any]) -> dict[str, Any]:
    unknown = set(fields) - set(MATCH_FIELDS)
    if unknown:
        raise TypeError(f"unknown match fields: {sorted(unknown)}")
    return dict(fields)


def _initial_state(registration_opens_at, now) -> str:
    return MatchState.REGISTERING if registration_opens_at <= now else MatchState.DRAFT


def _audit_detail(match: Match) -> dict[str, Any]:
    return {"match": match.pk, "name": match.name, "format": match.format, "entry_fee": match.entry_fee,
            "prize_scheme": match.prize_scheme, "starts_at": match.starts_at.isoformat()}


@transaction.atomic
def match_create(*, club, by, now=None, **fields: Any) -> Match:
    """Define a match (owner/admins). Registration opens at ``registration_opens_at`` (default:
    now), closes at ``registration_closes_at`` (default: the start)."""
    access.require_manager(club=club, user=by)
    now = now_or(now)
    values = validate(club=club, fields=_clean_fields(fields), now=now)
    match = Match.objects.create(club=club, created_by=by,
                                 state=_initial_state(values["registration_opens_at"], now), **values)
    escrow.open_escrow(match)
    audit_log(club=club, actor=by, action=AuditAction.MATCH_CREATE, detail=_audit_detail(match))
    return match


def check_edit(match: Match, now) -> str | None:
    """Why the definition can no longer be edited (None: it can)."""
    if clock.due_state(match, now) != MatchState.DRAFT:
        return _("A match can only be edited until registration opens.")
    return None


@transaction.atomic
def match_update(*, match: Match, by, now=None, **fields: Any) -> Match:
    """Edit a definition: only until registration opens (a draft)."""
    access.require_manager(club=match.club, user=by)
    now = now_or(now)
    match = lock(match.pk)
    clock.apply(match, now)
    refusal = check_edit(match, now)
    if refusal:
        raise ValidationError(refusal)
    merged = {name: getattr(match, name) for name in MATCH_FIELDS}
    merged.update(_clean_fields(fields))
    if "template" not in fields and match.template is None:
        raise ValidationError({"template": _("Choose a rule template of this club.")})
    values = validate(club=match.club, fields=merged, now=now)
    if "template" not in fields:  # keep the snapshot taken at creation
        for key in RULE_SNAPSHOT:
            values.pop(key, None)
    for key, value in values.items():
        setattr(match, key, value)
    match.state = _initial_state(match.registration_opens_at, now)
    match.save()
    audit_log(club=match.club, actor=by, action=AuditAction.MATCH_UPDATE, detail=_audit_detail(match))
    return match


@transaction.atomic
def match_cancel(*, match: Match, by, reason: str, now=None) -> Match:
    """Cancel until the match ends: open tables are dissolved, every fee still held refunded."""
    access.require_manager(club=match.club, user=by)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": _("Say why the match is cancelled.")})
    match = lock(match.pk)
    if match.is_ended:
        raise ValidationError(_("This match has already ended."))
    cancel(match, reason=reason[:300], by=by)
    audit_log(club=match.club, actor=by, action=AuditAction.MATCH_CANCEL,
              detail={"match": match.pk, "reason": reason[:300]})
    return match


def cancel(match: Match, *, reason: str, by=None) -> None:
    """End the match as cancelled (the caller holds the lock): tables dissolved, fees refunded."""
    open_tables = list(MatchTable.objects.filter(match=match, table__status__in=OPEN_TABLE_STATUSES)
                       .values_list("table_id", flat=True))
    match.state, match.cancel_reason, match.finished_at = MatchState.CANCELLED, reason, timezone.now()
    match.save(update_fields=["state", "cancel_reason", "finished_at"])
    for table_id in open_tables:
        arranged.arranged_dissolve(table_id=table_id, reason="match_cancelled", by_id=getattr(by, "pk", None))
    entrants = list(Entrant.objects.filter(match=match))
    for entrant in entrants:
        escrow.refund(match, entrant, reason="cancelled")
        if entrant.status in IN_MATCH:
            entrant.status = EntrantStatus.CANCELLED
        entrant.current_table = None
    Entrant.objects.bulk_update(entrants, ["refunded", "status", "current_table"])
    escrow.close(match)
