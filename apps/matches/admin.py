from django.contrib import admin

from .models import Entrant, Match, MatchRound, MatchTable, NeverTogether


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "club", "format", "state", "paused", "starts_at", "entry_fee")
    list_filter = ("state", "format")
    search_fields = ("name",)
    # Money-like and life-cycle state moves only through the services: read-only here.
    readonly_fields = ("state", "paused", "escrow", "seed_hash", "seed", "current_round", "stage_hands",
                       "in_final", "started_at", "finished_at", "cancel_reason")
    exclude = ("seed_secret",)


@admin.register(Entrant)
class EntrantAdmin(admin.ModelAdmin):
    list_display = ("id", "match", "user", "status", "registered_order", "match_points", "game_points", "rank")
    list_filter = ("status",)
    readonly_fields = [f.name for f in Entrant._meta.fields]


admin.site.register(MatchRound)
admin.site.register(MatchTable)
admin.site.register(NeverTogether)
