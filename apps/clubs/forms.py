"""Forms for the club pages; the rules themselves are checked by services.template_validate."""

from __future__ import annotations

import json

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from .models import Club, FeePayer, RuleTemplate


def preset_choices() -> list[tuple[str, str]]:
    from apps.engine.rules import PRESETS

    return [(name, name) for name in PRESETS]


class ClubForm(forms.ModelForm):
    class Meta:
        model = Club
        fields = ("name",)
        labels = {"name": _("Club name")}


class InviteForm(forms.Form):
    valid_hours = forms.TypedChoiceField(
        label=_("Valid for"),
        coerce=int,
        initial=24 * 7,
        choices=[(1, _("1 hour")), (24, _("1 day")), (24 * 7, _("7 days")), (24 * 30, _("30 days"))],
    )
    max_uses = forms.IntegerField(
        label=_("Maximum uses"), required=False, min_value=1, help_text=_("Empty: unlimited.")
    )


class RuleTemplateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=60)
    preset = forms.ChoiceField(label=_("Preset"))
    players = forms.TypedChoiceField(
        label=_("Players"), coerce=int, choices=[(2, "2"), (3, "3"), (4, "4")], initial=3
    )
    base_score = forms.IntegerField(label=_("Base score"), initial=1)
    hands_per_session = forms.IntegerField(label=_("Hands per session"), initial=8)
    turn_seconds = forms.IntegerField(label=_("Turn time limit (seconds)"), initial=15)
    piao_choices = forms.CharField(
        label=_("Piao choices"),
        required=False,
        help_text=_("Comma-separated, e.g. 1,2,3. Empty: no piao."),
    )
    fee = forms.IntegerField(
        label=_("Table fee per hand"),
        required=False,
        initial=0,
        help_text=_("Points paid to the club account each hand. 0 or empty: no fee."),
    )
    fee_payer = forms.ChoiceField(
        label=_("Fee paid by"),
        required=False,
        choices=FeePayer.choices,
        initial=FeePayer.EACH,
        help_text=_(
            "Every player: each playing seat pays every hand, draws included (the seat sitting out "
            "in 4-player sit-out does not pay). Winner only: only the winner pays; nothing on a "
            "draw. Practice tables never pay."
        ),
    )
    options = forms.CharField(
        label=_("Option overrides (JSON)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false", "class": "mono"}),
        help_text=_('A JSON object, e.g. {"min_huxi": 10}. Empty: the preset as it is.'),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = preset_choices()

    @classmethod
    def initial_from(cls, template: RuleTemplate) -> dict:
        return {
            "name": template.name,
            "preset": template.preset,
            "players": template.players,
            "base_score": template.base_score,
            "hands_per_session": template.hands_per_session,
            "turn_seconds": template.turn_seconds,
            "fee": template.fee,
            "fee_payer": template.fee_payer,
            "piao_choices": ",".join(str(v) for v in template.piao_choices),
            "options": json.dumps(template.options, ensure_ascii=False) if template.options else "",
        }

    def clean_options(self) -> dict:
        text = (self.cleaned_data.get("options") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(_("Not valid JSON: %(error)s") % {"error": exc.msg}) from exc
        if not isinstance(value, dict):
            raise ValidationError(_('Options must be a JSON object such as {"min_huxi": 10}.'))
        return value

    def clean_fee(self) -> int:
        fee = self.cleaned_data.get("fee")
        return 0 if fee is None else fee  # the sign and the bound: services.template_validate

    def clean_fee_payer(self) -> str:
        return self.cleaned_data.get("fee_payer") or FeePayer.EACH

    def clean_piao_choices(self) -> list[int]:
        text = (self.cleaned_data.get("piao_choices") or "").replace("，", ",").strip()
        if not text:
            return []
        try:
            values = [int(part) for part in text.split(",") if part.strip()]
        except ValueError as exc:
            raise ValidationError(_("Piao choices must be whole numbers separated by commas.")) from exc
        return values

    def clean(self):
        from . import services

        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            services.template_validate(fields=self.template_fields())
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                for message in messages:
                    self.add_error(field if field in self.fields else None, message)
        return cleaned

    def template_fields(self) -> dict:
        return {name: self.cleaned_data[name] for name in self.fields}
