from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import DisputeKind
from .services import MAX_TEXT


class PeriodForm(forms.Form):
    since = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self):
        data = super().clean()
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise forms.ValidationError(_("The start of the period is after its end."))
        return data


class DisputeForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("What is it about?"), label_suffix="", choices=DisputeKind.choices, widget=forms.RadioSelect,
        error_messages={"required": _("Choose what the dispute is about."),
                        "invalid_choice": _("Choose what the dispute is about.")},
    )
    step = forms.IntegerField(
        label=_("Step of the replay (optional)"), required=False, min_value=0,
        help_text=_("The step number the replay shows above its board; 0 is the deal."),
        error_messages={"invalid": _("The step is a whole number."),
                        "min_value": _("The step is a whole number.")},
    )
    reason = forms.CharField(
        # The label is a question: its own punctuation, no ":" after it.
        label=_("What is wrong with this hand?"), label_suffix="", max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 4}),
        error_messages={"required": _("Say what is wrong with this hand.")},
    )


class ResolveForm(forms.Form):
    outcome = forms.CharField(
        label=_("Outcome (the player sees it)"), max_length=MAX_TEXT, widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": _("Write the outcome the player will see.")},
    )
    member = forms.TypedChoiceField(label=_("Correct the points of"), required=False, coerce=int, empty_value=None)
    amount = forms.IntegerField(
        label=_("Points (+ to give, − to take)"), required=False, min_value=-10**9, max_value=10**9,
        error_messages={"invalid": _("The amount must be a non-zero whole number.")},
    )

    def __init__(self, *args, players=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["member"].choices = [("", _("No adjustment"))] + [(u, name) for _s, u, name in players if u]

    def clean(self):
        data = super().clean()
        member, amount = data.get("member"), data.get("amount")
        if amount == 0:
            self.add_error("amount", _("The amount must be a non-zero whole number."))
        elif (member is None) != (amount is None) and "amount" not in self.errors:
            raise forms.ValidationError(_("An adjustment needs both a player and an amount."))
        return data


class FairPlayAskForm(forms.Form):
    """A manager asks for the 信息优势 of a member (or of a pair) of his club over a period."""

    user = forms.TypedChoiceField(label=_("Player"), coerce=int)
    partner = forms.TypedChoiceField(label=_("With partner (optional)"), coerce=int, required=False,
                                     empty_value=None)
    # ISO values: a browser's date input shows nothing for the localized "2026年12月7日"
    since = forms.DateField(label=_("From"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
    until = forms.DateField(label=_("To"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))

    def __init__(self, *args, players=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["user"].choices = list(players)
        self.fields["partner"].choices = [("", "—"), *players]

    def clean(self):
        data = super().clean()
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise forms.ValidationError(_("The start of the period is after its end."))
        if data.get("partner") is not None and data.get("partner") == data.get("user"):
            raise forms.ValidationError(_("Choose two different players."))
        return data
