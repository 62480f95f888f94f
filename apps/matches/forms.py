"""Forms of the match pages. The form only parses what a person types (dates, comma lists, the
check-in window in minutes) into the services' fields; every check is the services' one validator
(``services.definition.validate``), so the page and the API can never disagree, and every error is
reported at once, on its field. Number inputs show the same bounds (``LIMITS``)."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.clubs.models import RuleTemplate

from . import formats
from .models import DEFAULT_CHECKIN_MINUTES, Format, Match
from .services.definition import DESCRIPTION_MAX, LIMITS, MATCH_FIELDS, NAME_MAX, validate

DATETIME_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"]


class DateTimeLocalInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs):
        super().__init__(format="%Y-%m-%dT%H:%M", **kwargs)


def _datetime_field(label, **kwargs) -> forms.DateTimeField:
    return forms.DateTimeField(label=label, input_formats=DATETIME_FORMATS, widget=DateTimeLocalInput(), **kwargs)


def parse_int_list(text: str, *, message) -> list[int]:
    """"50,30,20" (also Chinese commas, spaces or 、) -> [50, 30, 20]; ValidationError otherwise."""
    cleaned = (text or "").replace("，", ",").replace("、", ",").replace(" ", ",")
    parts = [p for p in cleaned.split(",") if p.strip()]
    try:
        return [int(p) for p in parts]
    except ValueError as exc:
        raise ValidationError(message) from exc


class PrizeKind:
    FIXED = "fixed"
    PERCENT = "percent"
    CHOICES = [(FIXED, _("Fixed points per place")), (PERCENT, _("Percentage of the fee pool"))]


def _number(label, key: str, **kwargs) -> forms.IntegerField:
    """An integer input showing the validator's bounds; the validator says what is wrong."""
    lo, hi = LIMITS[key]
    return forms.IntegerField(label=label, widget=forms.NumberInput(attrs={"min": lo, "max": hi}), **kwargs)


# Where a service error goes on the form.
ERROR_FIELDS = {"prize_scheme": "prize_values", "checkin_opens_at": "checkin_minutes"}


class MatchForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=NAME_MAX)
    description = forms.CharField(
        label=_("Description"), required=False, max_length=DESCRIPTION_MAX, widget=forms.Textarea(attrs={"rows": 3})
    )
    template = forms.ModelChoiceField(
        label=_("Rule template"), queryset=RuleTemplate.objects.none(),
        help_text=_("The rules are copied into the match when it is saved; editing the template later changes nothing."),
        error_messages={"invalid_choice": _("Choose one of this club's rule templates."),
                        "required": _("Choose a rule template.")},
    )
    format = forms.ChoiceField(label=_("Format"), choices=Format.choices, initial=Format.FIXED)
    starts_at = _datetime_field(_("Start time"))
    registration_opens_at = _datetime_field(_("Registration opens"), required=False,
                                            help_text=_("Empty: now."))
    registration_closes_at = _datetime_field(_("Registration closes"), required=False,
                                             help_text=_("Empty: at the start of check-in."))
    checkin_minutes = _number(
        _("Check-in window (minutes before the start)"), "checkin_minutes", initial=DEFAULT_CHECKIN_MINUTES,
        help_text=_("Entrants who have not checked in when the match starts are dropped and refunded."),
    )
    min_entrants = _number(_("Minimum entrants"), "min_entrants", initial=3,
                           help_text=_("Fewer at the start: the match is cancelled and every fee refunded."))
    max_entrants = _number(_("Maximum entrants"), "max_entrants", initial=30,
                           help_text=_("Later registrations go on the waitlist."))
    entry_fee = _number(_("Entry fee (club points)"), "entry_fee", initial=0,
                        help_text=_("0: free. Held by the match until refunded or paid out as prizes."))
    prize_kind = forms.ChoiceField(label=_("Prizes"), choices=PrizeKind.CHOICES, initial=PrizeKind.PERCENT)
    prize_values = forms.CharField(
        label=_("Prize per place"), required=False, initial="50,30,20",
        help_text=_("Best place first, separated by commas: points (e.g. 100,50,20) or percentages adding up to 100 (e.g. 50,30,20)."),
    )
    hands_per_round = _number(_("Hands per round"), "hands_per_round", initial=4)
    rounds = _number(_("Rounds"), "rounds", initial=3)
    points_by_rank = forms.CharField(
        label=_("Match points per table place"), required=False,
        help_text=_("Best first, one per seat, e.g. 4,2,0. Empty: 4/2/0 for three seats (6/4/2/0 for four, 2/0 for two)."),
    )
    elim_start_chips = _number(_("Starting chips"), "elim_start_chips", initial=1000)
    elim_line = _number(_("Elimination line"), "elim_line", initial=900)
    elim_rise_every = _number(_("Raise the line every N hands"), "elim_rise_every", initial=1)
    elim_rise_by = _number(_("Raise the line by"), "elim_rise_by", initial=20)
    knockout_top = _number(_("Players advancing per table"), "knockout_top", initial=1)
    final_hands = _number(_("Final table hands"), "final_hands", initial=4)

    def __init__(self, *args, club, match: Match | None = None, now=None, **kwargs):
        self.club = club
        self.match = match
        self.now = now or timezone.now()
        self.service_fields: dict = {}
        if match is not None and "initial" not in kwargs:
            kwargs["initial"] = self.initial_from(match)
        super().__init__(*args, **kwargs)
        self.fields["template"].queryset = RuleTemplate.objects.filter(club=club)
        if match is None and not self.is_bound:
            first = self.fields["template"].queryset.first()
            self.initial.setdefault("template", first.pk if first else None)
        if match is not None:
            # The template was snapshotted at creation; an edit may pick another one of the club's.
            self.fields["template"].required = False
            self.fields["template"].help_text = _("Empty: keep the rules copied when the match was created.")

    @property
    def when(self) -> dict[str, str]:
        """For each format setting, the formats that use it (the page shows it for those only):
        ``{"rounds": "format:fixed", "final_hands": "format:elimination knockout", ...}``."""
        users: dict[str, list[str]] = {}
        for key, cls in formats.FORMATS.items():
            for name in cls.settings:
                users.setdefault(name, []).append(key)
        return {name: "format:" + " ".join(keys) for name, keys in users.items()}

    @staticmethod
    def initial_from(match: Match) -> dict:
        local = timezone.localtime
        scheme = match.prize_scheme or {}
        values = scheme.get("amounts") if scheme.get("kind") == "fixed" else scheme.get("percents")
        return {
            "name": match.name,
            "description": match.description,
            "template": match.template_id,
            "format": match.format,
            "starts_at": local(match.starts_at),
            "registration_opens_at": local(match.registration_opens_at),
            "registration_closes_at": local(match.registration_closes_at),
            "checkin_minutes": max(1, int((match.starts_at - match.checkin_opens_at).total_seconds() // 60)),
            "min_entrants": match.min_entrants,
            "max_entrants": match.max_entrants,
            "entry_fee": match.entry_fee,
            "prize_kind": scheme.get("kind") or PrizeKind.PERCENT,
            "prize_values": ",".join(str(v) for v in values or []),
            "hands_per_round": match.hands_per_round,
            "rounds": match.rounds,
            "points_by_rank": ",".join(str(v) for v in match.points_by_rank or []),
            "elim_start_chips": match.elim_start_chips,
            "elim_line": match.elim_line,
            "elim_rise_every": match.elim_rise_every,
            "elim_rise_by": match.elim_rise_by,
            "knockout_top": match.knockout_top,
            "final_hands": match.final_hands,
        }

    # --- parsing ------------------------------------------------------------------------------

    def clean_prize_values(self) -> list[int]:
        return parse_int_list(self.cleaned_data.get("prize_values", ""),
                              message=_("Prizes must be whole numbers separated by commas."))

    def clean_points_by_rank(self) -> list[int]:
        return parse_int_list(self.cleaned_data.get("points_by_rank", ""),
                              message=_("Match points must be whole numbers separated by commas."))

    def clean(self):
        cleaned = super().clean()
        if self.match is None and not cleaned.get("template") and "template" not in self.errors:
            self.add_error("template", _("Choose a rule template."))
        fields = {name: cleaned.get(name) for name in MATCH_FIELDS if cleaned.get(name) is not None}
        if self.match is not None:
            merged = {name: getattr(self.match, name) for name in MATCH_FIELDS}
            merged.update(fields)
            fields = merged
            if fields.get("template") is None:
                fields["template"] = self.match.template
        starts_at = cleaned.get("starts_at")
        if starts_at is not None:
            minutes = cleaned.get("checkin_minutes") or DEFAULT_CHECKIN_MINUTES
            fields["checkin_opens_at"] = starts_at - timedelta(minutes=minutes)
            closes = cleaned.get("registration_closes_at") or fields["checkin_opens_at"]
            fields["registration_closes_at"] = closes
            opens = cleaned.get("registration_opens_at")
            if opens is None:
                opens = min(self.now, closes) if self.match is None else self.match.registration_opens_at
            fields["registration_opens_at"] = opens
        kind, values = cleaned.get("prize_kind"), cleaned.get("prize_values")
        if kind is not None and values is not None:
            fields["prize_scheme"] = ({"kind": "percent", "percents": values} if kind == PrizeKind.PERCENT
                                      else {"kind": "fixed", "amounts": values})
            if kind == PrizeKind.PERCENT and not values:
                fields["prize_scheme"] = {"kind": "percent", "percents": []}
        fields["points_by_rank"] = cleaned.get("points_by_rank") or []
        try:
            validate(club=self.club, fields=fields, now=self.now)
        except ValidationError as exc:
            self.add_service_errors(exc)
        self.service_fields = {k: v for k, v in fields.items() if k != "template"}
        if cleaned.get("template") is not None:  # an edit without one keeps the rules copied at creation
            self.service_fields["template"] = cleaned["template"]
        return cleaned

    def add_service_errors(self, exc: ValidationError) -> None:
        """Put the validator's errors on their fields (one each: a field the form already
        flagged keeps its own message)."""
        if not hasattr(exc, "error_dict"):
            for error in exc.messages:
                self.add_error(None, error)
            return
        for name, errors in exc.message_dict.items():
            target = ERROR_FIELDS.get(name, name)
            if target not in self.fields:
                target = None
            elif target in self.errors:
                continue
            for error in errors:
                self.add_error(target, error)

    def match_fields(self) -> dict:
        """The cleaned values as the services' keyword arguments."""
        return dict(self.service_fields)


class CancelForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), max_length=300, widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Shown on the match page. Every entry fee is refunded."),
    )
