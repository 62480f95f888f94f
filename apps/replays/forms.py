"""Forms of the replay pages: making a share code, typing one in."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .services import EXPIRY_CHOICES


class ShareCreateForm(forms.Form):
    expiry = forms.ChoiceField(
        label=_("Valid for"),
        initial="7d",
        choices=[("1d", _("1 day")), ("7d", _("7 days")), ("never", _("No expiry"))],
    )

    def clean_expiry(self) -> str:
        value = self.cleaned_data["expiry"]
        if value not in EXPIRY_CHOICES:  # the choices above and the services' table must agree
            raise forms.ValidationError(_("Choose how long the code stays valid."))
        return value


class CodeForm(forms.Form):
    code = forms.CharField(label=_("Replay code"), max_length=40)
