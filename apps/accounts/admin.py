from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils.translation import gettext_lazy as _

from .models import PasswordResetLink, SignInLockout, User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = BaseUserAdmin.fieldsets + ((_("Profile"), {"fields": ("display_name", "email_verified")}),)
    add_fieldsets = BaseUserAdmin.add_fieldsets + ((_("Profile"), {"fields": ("display_name",)}),)
    list_display = ("username", "display_name", "email", "email_verified", "is_staff", "is_active", "date_joined")
    search_fields = ("username", "display_name", "email")


@admin.register(SignInLockout)
class SignInLockoutAdmin(admin.ModelAdmin):
    """The audit trail of sign-in lockouts: read only (written by accounts.signin)."""

    list_display = ("started_at", "scope", "key", "ip", "until", "cool_off_seconds", "ended_at", "end")
    list_filter = ("scope", "end")
    search_fields = ("key", "username", "ip")
    date_hierarchy = "started_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PasswordResetLink)
class PasswordResetLinkAdmin(admin.ModelAdmin):
    """One-time password links made by clubs' owners: read only (the token itself is not stored)."""

    list_display = ("created_at", "user", "created_by", "expires_at", "used_at")
    search_fields = ("user__username", "created_by__username")
    date_hierarchy = "created_at"
    exclude = ("token_hash",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
