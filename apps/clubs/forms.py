"""Forms for the club pages; the rules themselves are checked by services.template_validate."""

from __future__ import annotations

import json

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from . import rules_text
from .models import Club, FeePayer, RuleTemplate


def preset_choices() -> list[tuple[str, str]]:
    """The presets by their names in the user's language (the slug is only the submitted value)."""
    from apps.engine.rules import PRESETS

    return [(name, rules_text.preset_label(name)) for name in PRESETS]


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


def option_field_name(preset: str, option: str) -> str:
    """Each preset has its own option fields (with that preset's defaults), so that a page without
    JavaScript, which shows them all, still submits sensible values for the preset chosen."""
    return f"opt_{preset}_{option}"


def _option_form_field(preset: str, option: rules_text.Option) -> forms.Field:
    from apps.engine.rules import PRESETS

    default = getattr(PRESETS[preset], option.name)
    common = {"label": option.label, "help_text": option.help, "required": False, "initial": default}
    if option.kind == "bool":
        return forms.BooleanField(**common)
    if option.kind == "int":
        return forms.IntegerField(min_value=option.min, max_value=option.max, **common)
    coerce = int if isinstance(default, int) else str
    return forms.TypedChoiceField(choices=option.choices, coerce=coerce, empty_value=None, **common)


# Form fields shown above the per-preset options, in this order.
MAIN_FIELDS = ("name", "preset", "players", "base_score", "hands_per_session", "turn_seconds", "claim_seconds",
               "piao_choices", "fee", "fee_payer")
MODEL_FIELDS = (*MAIN_FIELDS, "options")


def _json_type_error(name: str, value, default) -> str | None:
    """A message in the user's language when ``value`` has not the type of option ``name``."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else _('"%(name)s" must be true or false.') % {"name": name}
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            return _('"%(name)s" must be a whole number.') % {"name": name}
        return None
    if not isinstance(value, str):
        return _('"%(name)s" must be a text value such as "%(example)s".') % {"name": name, "example": default}
    return None


def rule_error_message(error: Exception, *, preset: str, players) -> tuple[str, str]:
    """The option an engine ``RuleError`` names, and a message for it in the user's language (the
    engine's own text is English and technical)."""
    from apps.engine.rules import PRESET_PLAYERS

    name = str(error).split(":", 1)[0].strip()
    label = rules_text.option_label(name)
    preset_name = rules_text.preset_label(preset)
    if name == "players":
        allowed = "、".join(str(n) for n in PRESET_PLAYERS.get(preset, ()))
        return name, _("%(preset)s is played by %(allowed)s players.") % {"preset": preset_name, "allowed": allowed}
    if name == "min_huxi":
        if preset == "chenzhou":
            return name, _("Chenzhou plays from 9, 6 or 3 huxi (or 15).")
        return name, _("The minimum huxi to win must be between 0 and 30.")
    if name == "pao_pays":
        return name, _("Who pays on a discard win only applies when a win on a discard is allowed.")
    if name in ("tun_mode", "mao_hu", "hong_hei_dian_2x", "kai_di_you_xi"):
        return name, _("%(option)s is not an option of %(preset)s.") % {"option": label, "preset": preset_name}
    if name in ("zimo_fan", "hong_hu_fan", "fang_pao_fan"):
        return name, _("Fans must be whole numbers of 1 or more (fang pao: 0 or more).")
    return name, _("The option %(option)s has a value that %(preset)s does not accept.") % {
        "option": label, "preset": preset_name}


class RuleTemplateForm(forms.Form):
    """A rule template: the preset by name, each of its options as a field, and an optional JSON
    object of further overrides for power users. ``clean`` builds the ``options`` dict (the overrides
    of the preset's defaults) that the engine validates and ``services.template_create`` stores."""

    name = forms.CharField(label=_("Name"), max_length=60)
    preset = forms.ChoiceField(label=_("Preset"))
    players = forms.TypedChoiceField(
        label=_("Players"), coerce=int, choices=[(2, "2"), (3, "3"), (4, "4")], initial=3,
        help_text=_("Chenzhou and Luzhou: 2 to 4 players; the other presets: 3."),
    )
    base_score = forms.IntegerField(label=_("Base score"), initial=1, min_value=1)
    hands_per_session = forms.IntegerField(label=_("Hands per session"), initial=8, min_value=1)
    turn_seconds = forms.IntegerField(label=_("Turn time limit (seconds)"), initial=15, min_value=5)
    claim_seconds = forms.IntegerField(
        label=_("Claim time limit (seconds)"), initial=15, min_value=3, max_value=120, required=False,
        help_text=_("Time to answer a claim (hu, peng, chi or pass), 3 to 120 seconds."),
    )
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
        label=_("Advanced: more option overrides (JSON)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "class": "mono"}),
        help_text=_("For power users: a JSON object of rule options; it wins over the fields above. "
                    "Empty: only the fields above."),
    )

    def __init__(self, *args, **kwargs):
        from apps.engine.rules import PRESETS

        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = preset_choices()
        for preset in PRESETS:
            for option in rules_text.PRESET_OPTIONS.get(preset, ()):
                self.fields[option_field_name(preset, option.name)] = _option_form_field(preset, option)

    # ---- rendering -----------------------------------------------------------------------------

    def main_fields(self):
        return [self[name] for name in MAIN_FIELDS]

    def preset_sections(self) -> list[dict]:
        """Per preset: its name, description and option fields (the page shows the chosen one)."""
        from apps.engine.rules import PRESETS

        return [
            {"preset": preset, "label": rules_text.preset_label(preset),
             "description": rules_text.PRESET_DESCRIPTIONS[preset],
             "fields": [self[option_field_name(preset, o.name)] for o in rules_text.PRESET_OPTIONS[preset]]}
            for preset in PRESETS
        ]

    @classmethod
    def initial_from(cls, template: RuleTemplate) -> dict:
        from apps.engine.rules import PRESETS, RuleError

        initial = {
            "name": template.name,
            "preset": template.preset,
            "players": template.players,
            "base_score": template.base_score,
            "hands_per_session": template.hands_per_session,
            "turn_seconds": template.turn_seconds,
            "claim_seconds": template.claim_seconds,
            "fee": template.fee,
            "fee_payer": template.fee_payer,
            "piao_choices": ",".join(str(v) for v in template.piao_choices),
        }
        shown = {o.name for o in rules_text.PRESET_OPTIONS.get(template.preset, ())}
        try:
            rules = template.resolve_ruleset()
        except RuleError:
            rules = PRESETS.get(template.preset)
        if rules is not None:
            for name in shown:
                initial[option_field_name(template.preset, name)] = getattr(rules, name)
        # What the fields cannot show stays in the JSON field; piao follows the piao choices.
        rest = {k: v for k, v in (template.options or {}).items() if k not in shown and k != "piao"}
        initial["options"] = json.dumps(rest, ensure_ascii=False) if rest else ""
        return initial

    # ---- cleaning ------------------------------------------------------------------------------

    def clean_options(self) -> dict:
        """The advanced JSON overrides, checked for shape and types with messages in the user's
        language (never the JSON parser's English)."""
        from apps.engine.rules import OPTION_NAMES, RuleSet

        text = (self.cleaned_data.get("options") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                _('This is not valid JSON (line %(line)s, column %(column)s). Write it like {"min_huxi": 10}, '
                  "with double quotes around names.") % {"line": exc.lineno, "column": exc.colno}
            ) from exc
        if not isinstance(value, dict):
            raise ValidationError(_('Options must be a JSON object such as {"min_huxi": 10}.'))
        errors = []
        defaults = RuleSet()
        for name, item in value.items():
            if name == "players":
                errors.append(_('Set the number of players with the "Players" field, not in the JSON.'))
            elif name not in OPTION_NAMES:
                errors.append(_('"%(name)s" is not an option.') % {"name": name})
            else:
                message = _json_type_error(name, item, getattr(defaults, name))
                if message:
                    errors.append(message)
        if errors:
            raise ValidationError(errors)
        return value

    def clean_claim_seconds(self) -> int:
        value = self.cleaned_data.get("claim_seconds")
        return 15 if value is None else value  # empty: the model default

    def clean_fee(self) -> int:
        fee = self.cleaned_data.get("fee")
        return 0 if fee is None else fee  # the sign and the bound: services.template_validate

    def clean_fee_payer(self) -> str:
        return self.cleaned_data.get("fee_payer") or FeePayer.EACH

    def clean_piao_choices(self) -> list[int]:
        text = (self.cleaned_data.get("piao_choices") or "").replace("，", ",").replace("、", ",").strip()
        if not text:
            return []
        try:
            values = [int(part) for part in text.split(",") if part.strip()]
        except ValueError as exc:
            raise ValidationError(_("Piao choices must be whole numbers separated by commas.")) from exc
        if any(v < 0 for v in values):
            raise ValidationError(_("Piao choices must be whole numbers of 0 or more."))
        if len(set(values)) != len(values):
            raise ValidationError(_("Each piao choice may appear only once."))
        return values

    def _options_from_fields(self, preset: str) -> dict:
        """The chosen preset's option fields (an empty one keeps the preset's default), the piao
        flag that the piao choices need, then the advanced JSON on top; only overrides are kept."""
        from apps.engine.rules import PRESETS

        defaults = PRESETS[preset]
        values = {}
        for option in rules_text.PRESET_OPTIONS.get(preset, ()):
            value = self.cleaned_data.get(option_field_name(preset, option.name))
            values[option.name] = getattr(defaults, option.name) if value is None else value
        values["piao"] = bool(self.cleaned_data.get("piao_choices"))
        values.update(self.cleaned_data.get("options") or {})
        return {k: v for k, v in values.items() if getattr(defaults, k) != v}

    def clean(self):
        from apps.engine.rules import RuleError, resolve_ruleset

        from . import services

        cleaned = super().clean()
        preset = cleaned.get("preset")
        mine = f"opt_{preset}_"
        for field in [f for f in self._errors if f.startswith("opt_") and not f.startswith(mine)]:
            del self._errors[field]  # another preset's options: not used, so not checked
        if self.errors or not preset:
            return cleaned
        advanced = cleaned.get("options") or {}
        options = self._options_from_fields(preset)
        try:
            rules = resolve_ruleset(preset, options, players=cleaned["players"])
        except RuleError as exc:
            name, message = rule_error_message(exc, preset=preset, players=cleaned["players"])
            field = option_field_name(preset, name)
            if name in advanced:
                field = "options"
            elif name == "players":
                field = "players"
            elif field not in self.fields:
                field = "options"
            self.add_error(field, message)
            return cleaned
        if cleaned.get("piao_choices") and not rules.piao:
            self.add_error("options", _('The advanced options turn piao off ("piao": false): remove it, or '
                                        "leave the piao choices empty."))
            return cleaned
        cleaned["options"] = options
        try:
            services.template_validate(fields=self.template_fields())
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                for message in messages:
                    self.add_error(field if field in self.fields else None, message)
        return cleaned

    def template_fields(self) -> dict:
        """What ``services.template_create``/``template_update`` take (the model's fields)."""
        return {name: self.cleaned_data[name] for name in MODEL_FIELDS}
