from django.contrib import admin

from .models import ShareCode


@admin.register(ShareCode)
class ShareCodeAdmin(admin.ModelAdmin):
    list_display = ("code", "hand", "created_by", "created_at", "expires_at", "revoked_at")
    search_fields = ("code",)
    raw_id_fields = ("hand", "created_by", "revoked_by")
    readonly_fields = ("code", "created_at")
