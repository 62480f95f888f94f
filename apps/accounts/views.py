"""Sign-up, profile and password change; sign-in/out are Django's views with our templates.

Sign-in is throttled by django-axes (apps.accounts.signin); sign-up and password change are
rate-limited here (settings.ACCOUNTS_RATES, apps.accounts.ratelimit): over the limit the form is
shown again, empty, with when to try again, status 429, and nothing is changed.
"""

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import ratelimit
from .forms import ProfileForm, SignUpForm
from .services import client_ip


def _safe_next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _over_rate(request: HttpRequest, name: str) -> tuple[str, int] | None:
    """Count this POST against ACCOUNTS_RATES[name]: (message, seconds to wait) when over it."""
    rate = settings.ACCOUNTS_RATES[name]
    user_id = request.user.pk if request.user.is_authenticated else None
    retry = ratelimit.hit(f"accounts:{name}", window=int(rate["window"]), limits=[
        (kind, ident, rate[kind]) for kind, ident in (("user", user_id), ("ip", client_ip(request.META)))
        if kind in rate])
    if retry is None:
        return None
    minutes = max(1, math.ceil(retry / 60))
    return ngettext("Too many attempts. Please try again in %(minutes)d minute.",
                    "Too many attempts. Please try again in %(minutes)d minutes.", minutes) % {"minutes": minutes}, retry


def _throttled(response: HttpResponse, message_retry: tuple[str, int]) -> HttpResponse:
    response.status_code = 429
    response["Retry-After"] = str(message_retry[1])
    return response


def signup(request: HttpRequest) -> HttpResponse:
    next_url = _safe_next(request)
    if request.user.is_authenticated:
        return redirect(next_url or "clubs:list")
    if request.method == "POST" and (over := _over_rate(request, "signup")):
        return _throttled(render(request, "accounts/signup.html",
                                 {"form": SignUpForm(), "next": next_url, "throttled": over[0]}), over)
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome, %(name)s!") % {"name": user.name})
        return redirect(next_url or "clubs:list")
    return render(request, "accounts/signup.html", {"form": form, "next": next_url})


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's, rate-limited: the old-password field must not become a guessing oracle."""

    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def post(self, request, *args, **kwargs):
        if over := _over_rate(request, "password_change"):
            form = self.get_form_class()(request.user)
            return _throttled(self.render_to_response(self.get_context_data(form=form, throttled=over[0])), over)
        return super().post(request, *args, **kwargs)


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Profile saved."))
        return redirect("accounts:profile")
    return render(request, "accounts/profile.html", {"form": form})
