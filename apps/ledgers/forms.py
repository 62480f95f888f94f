from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.clubs.models import Membership

from .memos import ENTRY_KIND_LABELS
from .services import MAX_ADJUSTMENT


class MemberChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Membership) -> str:
        return obj.user.name


class LedgerFilterForm(forms.Form):
    member = MemberChoiceField(queryset=Membership.objects.none(), required=False, label=_("Member"))
    date_from = forms.DateField(required=False, label=_("From"), widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label=_("To"), widget=forms.DateInput(attrs={"type": "date"}))
    kind = forms.ChoiceField(required=False, label=_("Kind"), choices=[("", _("All kinds")), *ENTRY_KIND_LABELS.items()])

    def __init__(self, *args, club, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["member"].queryset = Membership.objects.filter(club=club).select_related("user")

    def filters(self) -> dict:
        data = self.cleaned_data
        return {
            "user_id": data["member"].user_id if data.get("member") else None,
            "date_from": data.get("date_from"),
            "date_to": data.get("date_to"),
            "kind": data.get("kind") or None,
        }


class AdjustmentForm(forms.Form):
    DIRECTIONS = [("up", _("Add points")), ("down", _("Remove points"))]

    member = MemberChoiceField(queryset=Membership.objects.none(), label=_("Member"))
    direction = forms.ChoiceField(choices=DIRECTIONS, label=_("Direction"))
    amount = forms.IntegerField(min_value=1, max_value=MAX_ADJUSTMENT, label=_("Points"))
    reason = forms.CharField(max_length=200, label=_("Reason"))
    token = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, club, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["member"].queryset = Membership.objects.filter(club=club).select_related("user")

    def clean(self):
        data = super().clean()
        if data.get("amount"):
            data["signed_amount"] = data["amount"] if data.get("direction") == "up" else -data["amount"]
        return data
