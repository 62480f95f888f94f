"""Forms of the match pages. The form checks what a person can get wrong while typing (dates in
the past, max < min, percentages not adding up to 100, negative fees) with messages in the user's
language; the services check everything again (and the database constraints after them), so a
hand-made POST cannot get around the form."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.clubs.models import RuleTemplate

from .formats import DEFAULT_POINTS_BY_RANK
from .models import DEFAULT_CHECKIN_MINUTES, Format, Match

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


# The fields the services take (match_create / match_update keyword arguments).
SERVICE_FIELDS = (
    "name", "description", "template", "format", "starts_at", "registration_opens_at",
    "registration_closes_at", "checkin_opens_at", "min_entrants", "max_entrants", "entry_fee",
    "prize_scheme", "hands_per_round", "rounds", "points_by_rank", "elim_start_chips", "elim_line",
    "elim_rise_every", "elim_rise_by", "knockout_top", "final_hands",
)


class MatchForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    description = forms.CharField(
        label=_("Description"), required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
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
    checkin_minutes = forms.IntegerField(
        label=_("Check-in window (minutes before the start)"), initial=DEFAULT_CHECKIN_MINUTES,
        min_value=1, max_value=24 * 60,
        help_text=_("Entrants who have not checked in when the match starts are dropped and refunded."),
    )
    min_entrants = forms.IntegerField(label=_("Minimum entrants"), initial=3, min_value=2, max_value=1000,
                                      help_text=_("Fewer at the start: the match is cancelled and every fee refunded."))
    max_entrants = forms.IntegerField(label=_("Maximum entrants"), initial=30, min_value=2, max_value=1000,
                                      help_text=_("Later registrations go on the waitlist."))
    entry_fee = forms.IntegerField(label=_("Entry fee (club points)"), initial=0, max_value=10**9,
                                   help_text=_("0: free. Held by the match until refunded or paid out as prizes."))
    prize_kind = forms.ChoiceField(label=_("Prizes"), choices=PrizeKind.CHOICES, initial=PrizeKind.PERCENT)
    prize_values = forms.CharField(
        label=_("Prize per place"), required=False, initial="50,30,20",
        help_text=_("Best place first, separated by commas: points (e.g. 100,50,20) or percentages adding up to 100 (e.g. 50,30,20)."),
    )
    hands_per_round = forms.IntegerField(label=_("Hands per round"), initial=4, min_value=1, max_value=50)
    rounds = forms.IntegerField(label=_("Rounds"), initial=3, min_value=1, max_value=30)
    points_by_rank = forms.CharField(
        label=_("Match points per table place"), required=False,
        help_text=_("Best first, one per seat, e.g. 4,2,0. Empty: 4/2/0 for three seats (6/4/2/0 for four, 2/0 for two)."),
    )
    elim_start_chips = forms.IntegerField(label=_("Starting chips"), initial=1000, min_value=1, max_value=10**9)
    elim_line = forms.IntegerField(label=_("Elimination line"), initial=900, min_value=0, max_value=10**9)
    elim_rise_every = forms.IntegerField(label=_("Raise the line every N hands"), initial=1, min_value=1, max_value=100)
    elim_rise_by = forms.IntegerField(label=_("Raise the line by"), initial=20, min_value=0, max_value=10**9)
    knockout_top = forms.IntegerField(label=_("Players advancing per table"), initial=1, min_value=1, max_value=3)
    final_hands = forms.IntegerField(label=_("Final table hands"), initial=4, min_value=1, max_value=50)

    # Which fieldset of the page each format's settings go to (templates/matches/form.html).
    FORMAT_FIELDS = {
        "fixed": ("rounds", "points_by_rank"),
        "elimination": ("elim_start_chips", "elim_line", "elim_rise_every", "elim_rise_by", "final_hands"),
        "knockout": ("knockout_top", "final_hands"),
    }

    def __init__(self, *args, club, match: Match | None = None, now=None, **kwargs):
        self.club = club
        self.match = match
        self.now = now or timezone.now()
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

    # --- fields -------------------------------------------------------------------------------

    def clean_entry_fee(self) -> int:
        fee = self.cleaned_data.get("entry_fee")
        if fee is not None and fee < 0:
            raise ValidationError(_("The entry fee cannot be negative."))
        return fee

    def clean_starts_at(self):
        starts_at = self.cleaned_data.get("starts_at")
        if starts_at is not None and starts_at <= self.now:
            raise ValidationError(_("The start time must be in the future."))
        return starts_at

    def clean_prize_values(self) -> list[int]:
        values = parse_int_list(
            self.cleaned_data.get("prize_values", ""),
            message=_("Prizes must be whole numbers separated by commas."),
        )
        if any(v < 0 for v in values):
            raise ValidationError(_("Prizes cannot be negative."))
        return values

    def clean_points_by_rank(self) -> list[int]:
        values = parse_int_list(
            self.cleaned_data.get("points_by_rank", ""),
            message=_("Match points must be whole numbers separated by commas."),
        )
        if any(v < 0 for v in values):
            raise ValidationError(_("Match points cannot be negative."))
        if any(a < b for a, b in zip(values, values[1:], strict=False)):
            raise ValidationError(_("Match points never rise from one place to the next (e.g. 4,2,0)."))
        return values

    def table_size(self) -> int:
        template = self.cleaned_data.get("template")
        if template is not None:
            return template.players
        return self.match.players if self.match is not None else 3

    def clean(self):
        cleaned = super().clean()
        if self.match is None and not cleaned.get("template") and "template" not in self.errors:
            self.add_error("template", _("Choose a rule template."))
        lo, hi = cleaned.get("min_entrants"), cleaned.get("max_entrants")
        if lo is not None and hi is not None and hi < lo:
            self.add_error("max_entrants", _("The maximum number of entrants cannot be below the minimum."))
        size = self.table_size()
        if lo is not None and lo < size and "min_entrants" not in self.errors:
            self.add_error("min_entrants", _("At least %(n)s entrants are needed to fill one table.") % {"n": size})
        self._clean_schedule(cleaned)
        self._clean_prizes(cleaned)
        self._clean_format(cleaned, size)
        return cleaned

    def _clean_schedule(self, cleaned) -> None:
        starts_at = cleaned.get("starts_at")
        if starts_at is None:
            return
        minutes = cleaned.get("checkin_minutes") or DEFAULT_CHECKIN_MINUTES
        checkin_opens = starts_at - timedelta(minutes=minutes)
        opens = cleaned.get("registration_opens_at")
        closes = cleaned.get("registration_closes_at") or checkin_opens
        if opens is None:
            opens = min(self.now, closes) if self.match is None else self.match.registration_opens_at
        if closes > starts_at:
            self.add_error("registration_closes_at", _("Registration must close before the start time."))
        elif opens > closes:
            self.add_error("registration_opens_at", _("Registration must open before it closes."))
        cleaned["registration_opens_at"] = opens
        cleaned["registration_closes_at"] = closes
        cleaned["checkin_opens_at"] = checkin_opens

    def _clean_prizes(self, cleaned) -> None:
        kind, values = cleaned.get("prize_kind"), cleaned.get("prize_values")
        if kind is None or values is None:
            return
        if kind == PrizeKind.PERCENT:
            if not values:
                self.add_error("prize_values", _("Give at least one percentage, e.g. 100 or 50,30,20."))
                return
            if sum(values) != 100:
                self.add_error(
                    "prize_values",
                    _("Prize percentages must add up to 100 (these add up to %(sum)s).") % {"sum": sum(values)},
                )
                return
            cleaned["prize_scheme"] = {"kind": "percent", "percents": values}
        else:
            cleaned["prize_scheme"] = {"kind": "fixed", "amounts": values}
        hi = cleaned.get("max_entrants")
        if hi is not None and len(values) > hi:
            self.add_error("prize_values", _("More prize places than the maximum number of entrants."))

    def _clean_format(self, cleaned, size: int) -> None:
        points = cleaned.get("points_by_rank")
        if points is not None:
            if not points:
                points = list(DEFAULT_POINTS_BY_RANK.get(size, []))
            elif len(points) != size:
                self.add_error(
                    "points_by_rank",
                    _("Give one value per seat: %(n)s values, e.g. %(example)s.")
                    % {"n": size, "example": ",".join(str(v) for v in DEFAULT_POINTS_BY_RANK.get(size, []))},
                )
            cleaned["points_by_rank"] = points
        top = cleaned.get("knockout_top")
        if cleaned.get("format") == Format.KNOCKOUT and top is not None and top >= size:
            self.add_error("knockout_top", _("Fewer players than a table's %(n)s seats must advance.") % {"n": size})
        if cleaned.get("format") != Format.KNOCKOUT and top is not None and top >= size:
            cleaned["knockout_top"] = max(1, size - 1)  # not used by this format; keep the constraint true
        start, line = cleaned.get("elim_start_chips"), cleaned.get("elim_line")
        if cleaned.get("format") == Format.ELIMINATION and start is not None and line is not None and line >= start:
            self.add_error("elim_line", _("The elimination line must start below the starting chips."))

    def match_fields(self) -> dict:
        """The cleaned values as the services' keyword arguments."""
        data = {name: self.cleaned_data.get(name) for name in SERVICE_FIELDS}
        if data["template"] is None:
            data.pop("template")
        return data


class CancelForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), max_length=300, widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Shown on the match page. Every entry fee is refunded."),
    )


class ReseatForm(forms.Form):
    user = forms.IntegerField(label=_("Player"), min_value=1)
    table_number = forms.IntegerField(label=_("Table"), min_value=1, max_value=10_000)


class PairForm(forms.Form):
    user_a = forms.IntegerField(label=_("Player"), min_value=1)
    user_b = forms.IntegerField(label=_("Player"), min_value=1)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("user_a") and cleaned.get("user_a") == cleaned.get("user_b"):
            raise ValidationError(_("Choose two different players."))
        return cleaned
