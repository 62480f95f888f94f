"""Read-only admin: the ledger is append-only, corrections are new transactions (adjustments)."""

from django.contrib import admin

from .models import Account, Entry, LeaderboardBucket, Transaction


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    can_delete = False
    readonly_fields = ("account", "amount", "kind", "seat")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ("idempotency_key", "club", "kind", "memo", "created_at")
    list_filter = ("kind",)
    search_fields = ("idempotency_key", "memo")
    inlines = [EntryInline]


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "club", "kind", "user", "balance")
    list_filter = ("kind",)


admin.site.register(Entry, ReadOnlyAdmin)
admin.site.register(LeaderboardBucket, ReadOnlyAdmin)
