from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.db.models import Q
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

    def _post_clean(self):
        """Every mistake in one answer (issue #46). Django's form checks the password's strength
        only when the two copies match, and against the username only when the username is free
        and valid: a taken name, then a weak password, then a password like the name took three
        rounds. Here the first copy is always checked, against the name as typed, and its
        problems are said on it; a mismatch is said on the second copy."""
        forms.ModelForm._post_clean(self)  # the model's checks, not BaseUserCreationForm's password pass
        password = self.cleaned_data.get("password1")
        if not password:
            return
        typed = User(username=(self.data.get(self.add_prefix("username")) or "").strip(),
                     display_name=(self.data.get(self.add_prefix("display_name")) or "").strip())
        try:
            password_validation.validate_password(password, typed)
        except ValidationError as error:
            self.add_error("password1", error)


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("display_name",)
        labels = {"display_name": _("Display name")}


class EmailForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail"),
        required=False,
        max_length=254,
        help_text=_("Optional. Used only to reset your password; we mail a link to confirm it. "
                    "Empty it and send to remove it."),
    )


class ResetRequestForm(PasswordResetForm):
    """Django's, asked for a username or an e-mail; mails go only to verified addresses.

    The answer is the same whether or not an account matches (the view shows the same page).
    """

    email = forms.CharField(label=_("Username or e-mail"), max_length=254,
                            widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}))

    def get_users(self, email):
        value = (email or "").strip()
        if not value:
            return []
        users = User._default_manager.filter(is_active=True, email_verified=True).exclude(email="")
        found = users.filter(Q(username=value) | Q(email__iexact=value))
        return [u for u in found if u.has_usable_password()]
