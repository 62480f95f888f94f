"""Forms for the club pages; the rules themselves are checked by services.template_validate."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from . import rules_text
from .models import Club, FeePayer, Invite, RuleTemplate


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


class InviteCodeForm(forms.Form):
    """An invite code typed by hand (a friend read it out), or its whole link pasted: the code's
    invite if it is there and still usable (``cleaned_data["code"]``), else a reason to show."""

    code = forms.CharField(label=_("Invite code"), max_length=200,
                           widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters",
                                                         "spellcheck": "false", "placeholder": "ABCD2345"}))

    def clean_code(self) -> Invite:
        raw = self.cleaned_data["code"]
        if "/join/" in raw:  # a pasted link: its code is what follows /join/
            raw = raw.split("/join/", 1)[1].split("/", 1)[0]
        code = "".join(raw.split()).replace("-", "").upper()
        invite = Invite.objects.filter(code=code).first() if code and len(code) <= 16 else None
        if invite is None:
            raise ValidationError(_("There is no invite with this code. Check it with the friend who gave it."))
        if invite.status == "used_up":
            raise ValidationError(
                _("This invite has been used as many times as it allows. Ask the club for a new one."))
        if not invite.is_usable():
            raise ValidationError(_("This invite has expired or was revoked. Ask the club for a new one."))
        return invite


def option_field_name(preset: str, option: str) -> str:
    """Each preset has its own option fields (with that preset's defaults), so that a page without
    JavaScript, which shows them all, still submits sensible values for the preset chosen."""
    return f"opt_{preset}_{option}"


def _option_form_field(preset: str, option: rules_text.Option) -> forms.Field:
    from apps.engine.rules import PRESETS

    default = getattr(PRESETS[preset], option.name)
    common = {"label": option.label, "help_text": option.help, "required": False, "initial": default}
    field: forms.Field
    if option.kind == "bool":
        field = forms.BooleanField(**common)
    elif option.kind == "int":
        field = forms.IntegerField(min_value=option.min, max_value=option.max, **common)
    else:
        coerce = int if isinstance(default, int) and not isinstance(default, bool) else str
        field = forms.TypedChoiceField(choices=option.choices, coerce=coerce, empty_value=None, **common)
    if option.players:
        # template_form.js offers the field only at these player counts (and bottom_shown only
        # with one seat sitting out); the engine refuses the others on the server.
        field.widget.attrs["data-players"] = ",".join(str(n) for n in option.players)
    return field


# Form fields shown above the per-preset options, in this order.
MAIN_FIELDS = ("name", "preset", "players", "base_score", "hands_per_session", "turn_seconds", "claim_seconds",
               "piao_choices", "fee", "fee_payer", "forbid_same_network", "forbid_near", "no_phrases")
MODEL_FIELDS = (*MAIN_FIELDS, "options")


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
    if name == "bottom_shown":
        return name, _("The last stock card can be shown only with 4 players, one sitting out.")
    if name == "remove_cards":
        return name, _("Set-aside cards are only for 2 players.")
    if name in ("zimo_fan", "hong_hu_fan", "fang_pao_fan"):
        return name, _("Fans must be whole numbers of 1 or more (fang pao: 0 or more).")
    return name, _("The option %(option)s has a value that %(preset)s does not accept.") % {
        "option": label, "preset": preset_name}


class RuleTemplateForm(forms.Form):
    """A rule template: the preset by name and each of its options as a field (no JSON).
    ``clean`` builds the ``options`` dict (the overrides of the preset's defaults) that the engine
    validates and ``services.template_create`` stores, and reports every error at once."""

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

    forbid_same_network = forms.BooleanField(
        label=_("No two players from one network"), required=False,
        help_text=_("Refuse a seat to a player who signed in from the same IP address as someone seated "
                    "in the last 7 days."),
    )
    forbid_near = forms.BooleanField(
        label=_("No two players close together"), required=False,
        help_text=_("Refuse a seat to a player who shared a location within 100 m of someone seated."),
    )

    no_phrases = forms.BooleanField(
        label=_("Turn off quick phrases and reactions"), required=False,
        help_text=_("Players at these tables cannot send quick phrases or reactions."),
    )

    def __init__(self, *args, stored_options: dict | None = None, **kwargs):
        """``stored_options``: the overrides of the template being edited (``kept_options``)."""
        from apps.engine.rules import PRESETS

        super().__init__(*args, **kwargs)
        self.stored_options = dict(stored_options or {})
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
            "forbid_same_network": template.forbid_same_network,
            "forbid_near": template.forbid_near,
            "no_phrases": template.no_phrases,
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
        return initial

    # ---- cleaning ------------------------------------------------------------------------------

    def kept_options(self) -> dict:
        """Overrides of the edited template that no field shows (set through the JSON field the
        form once had): kept as they are, so saving the form changes only what it shows. Piao
        follows the piao choices."""
        return {k: v for k, v in self.stored_options.items()
                if k not in rules_text.FIELD_OPTIONS and k not in ("piao", "players")}

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
        flag that the piao choices need, and the kept older overrides; only overrides are kept."""
        from apps.engine.rules import PRESETS, RuleError, resolve_ruleset

        defaults = PRESETS[preset]
        values = dict(self.kept_options())
        for option in rules_text.PRESET_OPTIONS.get(preset, ()):
            value = self.cleaned_data.get(option_field_name(preset, option.name))
            values[option.name] = getattr(defaults, option.name) if value is None else value
        values["piao"] = bool(self.cleaned_data.get("piao_choices"))
        out = {k: v for k, v in values.items() if k != "bottom_shown" and getattr(defaults, k, None) != v}
        if "bottom_shown" in values:
            # Its default depends on the player count and the 4-player mode (luzhou with 4, one
            # sitting out: on, §3.8): an unchecked box there is an override that stays.
            mode = {"four_player_mode": out["four_player_mode"]} if "four_player_mode" in out else {}
            try:
                default = resolve_ruleset(preset, mode, players=self.cleaned_data.get("players")).bottom_shown
            except RuleError:
                default = defaults.bottom_shown
            if values["bottom_shown"] != default:
                out["bottom_shown"] = values["bottom_shown"]
        return out

    def clean(self):
        """Every error at once: each field's own, the numbers the service checks (a negative fee
        with a missing name), the player counts the preset supports, then the rules by the engine
        (which needs the preset, the players and the preset's option fields to be valid)."""
        from apps.engine.rules import PRESET_PLAYERS, RuleError, resolve_ruleset

        from . import services

        cleaned = super().clean()
        preset = cleaned.get("preset")
        mine = f"opt_{preset}_"
        for field in [f for f in self._errors if f.startswith("opt_") and not f.startswith(mine)]:
            del self._errors[field]  # another preset's options: not used, so not checked
        present = {name: cleaned[name] for name in MODEL_FIELDS if name in cleaned and name not in self._errors}
        for field, message in services.template_field_errors(present).items():
            if field in present:  # (a field that did not clean has its own error already)
                self.add_error(field, message)
        if not preset:
            return cleaned
        players = cleaned.get("players")
        if players is not None and players not in PRESET_PLAYERS.get(preset, ()):
            allowed = "、".join(str(n) for n in PRESET_PLAYERS.get(preset, ()))
            self.add_error("players", _("%(preset)s is played by %(allowed)s players.") % {
                "preset": rules_text.preset_label(preset), "allowed": allowed})
            return cleaned
        if players is None or any(f.startswith(mine) for f in self._errors):
            return cleaned
        options = self._options_from_fields(preset)
        try:
            resolve_ruleset(preset, options, players=players)
        except RuleError as exc:
            name, message = rule_error_message(exc, preset=preset, players=players)
            field = option_field_name(preset, name)
            self.add_error(field if field in self.fields else None, message)
            return cleaned
        cleaned["options"] = options
        return cleaned

    def template_fields(self) -> dict:
        """What ``services.template_create``/``template_update`` take (the model's fields)."""
        return {name: self.cleaned_data[name] for name in MODEL_FIELDS}
