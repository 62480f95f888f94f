from django.contrib import admin

from .models import AuditLog, Ban, Club, Invite, JoinRequest, Membership, RuleTemplate


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "owner", "created_at")
    search_fields = ("name", "owner__username")
    raw_id_fields = ("owner",)
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("club", "user", "role", "joined_at")
    list_filter = ("role",)
    raw_id_fields = ("club", "user")


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ("code", "club", "created_by", "expires_at", "revoked_at", "uses", "max_uses")
    raw_id_fields = ("club", "created_by")


@admin.register(JoinRequest)
class JoinRequestAdmin(admin.ModelAdmin):
    list_display = ("club", "user", "status", "created_at", "decided_by")
    list_filter = ("status",)
    raw_id_fields = ("club", "user", "invite", "decided_by")


@admin.register(Ban)
class BanAdmin(admin.ModelAdmin):
    list_display = ("club", "user", "by", "created_at")
    raw_id_fields = ("club", "user", "by")


@admin.register(RuleTemplate)
class RuleTemplateAdmin(admin.ModelAdmin):
    list_display = ("club", "name", "preset", "players", "base_score", "hands_per_session", "turn_seconds", "fee",
                    "fee_payer")
    raw_id_fields = ("club", "created_by")


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ("created_at", "club", "actor", "action", "target_user")
    list_filter = ("action",)
    raw_id_fields = ("club", "actor", "target_user")

    def has_change_permission(self, request, obj=None):
        return False  # the audit trail is append-only
