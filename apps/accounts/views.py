"""Sign-up, profile, e-mail, password change and reset; sign-in/out are Django's views with our
templates.

Sign-in is throttled by django-axes (apps.accounts.signin); sign-up, password change, reset
requests and e-mail verification mails are rate-limited here (settings.ACCOUNTS_RATES,
apps.accounts.ratelimit, per address key: IPv6 by its /64): over the limit the form is shown
again, empty, with when to try again, status 429, and nothing is changed or sent.

Password reset: by e-mail to a verified address (Django's reset views, our templates), or through
a one-time link a club's owner made (accounts.reset_links). Both lift the member's sign-in
lockouts and sign him in.
"""

import math
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from . import emails, notices, ratelimit, reset_links, signin
from .forms import EmailForm, ProfileForm, ResetRequestForm, SignUpForm
from .services import client_address_key


def _safe_next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _over_rate(request: HttpRequest, name: str, ident: str | None = None) -> tuple[str, int] | None:
    """Count this POST against ACCOUNTS_RATES[name]: (message, seconds to wait) when over it.

    Counted per user, per address key, and per ``ident`` (what was typed: a username or e-mail)."""
    rate = settings.ACCOUNTS_RATES[name]
    user_id = request.user.pk if request.user.is_authenticated else None
    retry = ratelimit.hit(f"accounts:{name}", window=int(rate["window"]), limits=[
        (kind, value, rate[kind])
        for kind, value in (("user", user_id), ("ip", client_address_key(request.META)), ("ident", ident))
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
    return signup_page(request, next_url=next_url)


def signup_page(request: HttpRequest, *, template_name: str = "accounts/signup.html", context: dict | None = None,
                next_url: str = "", created: Callable[[object], str | None] | None = None) -> HttpResponse:
    """The sign-up form, rate-limited, for this view and for the pages that sign up for something
    more (an invite: apps.clubs). On a valid POST the account is made and ``created(user)`` runs in
    the same transaction (a ValidationError from it undoes the account and is shown on the form);
    the new user is signed in and sent where ``created`` says, else to ``next_url``."""
    context = {"next": next_url, **(context or {})}
    if request.method == "POST" and (over := _over_rate(request, "signup")):
        return _throttled(render(request, template_name, {**context, "form": SignUpForm(), "throttled": over[0]}),
                          over)
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
                target = created(user) if created else None
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome, %(name)s!") % {"name": user.name})
            return redirect(target or next_url or "clubs:list")
    return render(request, template_name, {**context, "form": form})


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
    email_form = EmailForm(prefix="e", initial={"email": request.user.email if request.user.email_verified else ""})
    return render(request, "accounts/profile.html", {"form": form, "email_form": email_form})


@login_required
@require_POST
def email_change(request: HttpRequest) -> HttpResponse:
    """Mail a verification link to the address typed (it is stored only when the link is
    followed); an empty address removes the stored one."""
    form = EmailForm(request.POST, prefix="e")
    context = {"form": ProfileForm(instance=request.user), "email_form": form}
    if not form.is_valid():
        return render(request, "accounts/profile.html", context)
    email = form.cleaned_data["email"]
    user = request.user
    if not email:
        if user.email:
            emails.clear(user)
            messages.success(request, _("E-mail removed."))
        return redirect("accounts:profile")
    if user.email_verified and email.lower() == user.email.lower():
        messages.info(request, _("This e-mail is already confirmed."))
        return redirect("accounts:profile")
    if over := _over_rate(request, "email_verify"):
        return _throttled(render(request, "accounts/profile.html", {**context, "email_throttled": over[0]}), over)
    emails.send_verification(request, request.user, email)
    messages.success(request, _("We sent a link to %(email)s. Open it to confirm the address.") % {"email": email})
    return redirect("accounts:profile")


def email_verify(request: HttpRequest, token: str) -> HttpResponse:
    user = emails.confirm(token)
    if user is None:
        return render(request, "accounts/link_invalid.html", {
            "title": _("This confirmation link is no longer valid"),
            "text": _("It has expired or was replaced. Add your e-mail on your profile again to get a new one.")},
            status=400)
    messages.success(request, _("Your e-mail %(email)s is confirmed.") % {"email": user.email})
    return redirect("accounts:profile" if request.user.is_authenticated else "accounts:login")


# --- password reset by e-mail -----------------------------------------------------------------


class PasswordResetView(auth_views.PasswordResetView):
    """Django's, asked for a username or e-mail, mailing only verified addresses, rate-limited per
    address and per what was typed; the same answer whether or not an account matches."""

    form_class = ResetRequestForm
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/email/reset_body.txt"
    subject_template_name = "accounts/email/reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def post(self, request, *args, **kwargs):
        typed = (request.POST.get("email") or "").strip().lower()[:254] or None
        if over := _over_rate(request, "password_reset", ident=typed):
            form = self.get_form_class()()
            return _throttled(self.render_to_response(self.get_context_data(form=form, throttled=over[0])), over)
        return super().post(request, *args, **kwargs)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's (its token works once: it depends on the password); lifts the user's sign-in
    lockouts and signs him in."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")
    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"

    def form_valid(self, form):
        response = super().form_valid(form)
        signin.unlock(username=form.user.username, reason="by a password reset")
        return response


# --- one-time links made by a club's owner ----------------------------------------------------

RESET_LINK_SESSION_KEY = "_member_reset_link"


def reset_link(request: HttpRequest, token: str) -> HttpResponse:
    """The link's address: keep the token in the session and move to a URL without it (so it is
    not leaked in the Referer of what that page loads), as Django's reset views do."""
    if reset_links.usable(token) is None:
        return _link_invalid(request)
    request.session[RESET_LINK_SESSION_KEY] = token
    return redirect("accounts:reset_link_set")


def _link_invalid(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/link_invalid.html", {
        "title": _("This password link is no longer valid"),
        "text": _("It was used already or has expired. Ask your club's owner for a new one."),
    }, status=410)


def reset_link_set(request: HttpRequest) -> HttpResponse:
    token = request.session.get(RESET_LINK_SESSION_KEY)
    link = reset_links.usable(token)
    if link is None:
        return _link_invalid(request)
    form = SetPasswordForm(link.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = reset_links.use(token, password=form.cleaned_data["new_password1"])
        request.session.pop(RESET_LINK_SESSION_KEY, None)
        if user is None:
            return _link_invalid(request)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Your new password is set. You are signed in."))
        return redirect("clubs:list")
    response = render(request, "accounts/reset_link_set.html", {"form": form, "member": link.user})
    add_never_cache_headers(response)
    return response


@login_required
def notice_list(request: HttpRequest) -> HttpResponse:
    """The bell's list: his latest notices, worded in his language; opening it marks them read
    (those unread until now stay marked as new on this page)."""
    shown = notices.recent(user=request.user)
    items = [{**notices.render(notices.facts(n)), "created": n.created_at, "new": n.read_at is None} for n in shown]
    notices.mark_read(user=request.user, ids=[n.pk for n in shown if n.read_at is None])
    response = render(request, "accounts/notices.html", {"items": items})
    add_never_cache_headers(response)
    return response
