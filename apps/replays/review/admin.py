from django.contrib import admin

from .models import HandReview


@admin.register(HandReview)
class HandReviewAdmin(admin.ModelAdmin):
    """Read-only: a review is written by its task alone (apps/replays/review/services.py)."""

    list_display = ("hand", "seat", "user", "status", "decisions", "mistakes", "loss", "played_at", "finished_at")
    list_filter = ("status",)
    raw_id_fields = ("hand", "user", "requested_by")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
