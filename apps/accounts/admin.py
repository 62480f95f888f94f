from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils.translation import gettext_lazy as _

from .models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = BaseUserAdmin.fieldsets + ((_("Profile"), {"fields": ("display_name",)}),)
    add_fieldsets = BaseUserAdmin.add_fieldsets + ((_("Profile"), {"fields": ("display_name",)}),)
    list_display = ("username", "display_name", "email", "is_staff", "is_active", "date_joined")
    search_fields = ("username", "display_name", "email")
