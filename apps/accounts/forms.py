from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from .models import User


class SignUpForm(UserCreationForm):
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=32,
        required=False,
        help_text=_("The name other players see. Leave empty to use your username."),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("display_name",)
        labels = {"display_name": _("Display name")}
