from django.urls import path

from . import views, views_manage

app_name = "clubs"

urlpatterns = [
    path("", views.club_list, name="list"),
    path("new/", views.club_create, name="create"),
    path("join/<str:code>/", views.club_join, name="join"),
    path("join/<str:code>/signup/", views.club_join_signup, name="join_signup"),
    path("<int:club_id>/", views.club_detail, name="detail"),
    path("<int:club_id>/live/", views.club_live, name="live"),
    path("<int:club_id>/leave/", views.club_leave, name="leave"),
    path("<int:club_id>/audit/", views.audit_log, name="audit"),
    path("<int:club_id>/announcement/", views_manage.announcement, name="announcement"),
    path("<int:club_id>/invites/", views_manage.invites, name="invites"),
    path("<int:club_id>/invites/<int:invite_id>/revoke/", views_manage.invite_revoke, name="invite_revoke"),
    path("<int:club_id>/requests/", views_manage.join_requests, name="requests"),
    path(
        "<int:club_id>/requests/<int:request_id>/approve/",
        views_manage.join_request_decide,
        {"decision": "approve"},
        name="request_approve",
    ),
    path(
        "<int:club_id>/requests/<int:request_id>/reject/",
        views_manage.join_request_decide,
        {"decision": "reject"},
        name="request_reject",
    ),
    path(
        "<int:club_id>/members/<int:user_id>/remove/",
        views_manage.member_action,
        {"action": "remove"},
        name="member_remove",
    ),
    path(
        "<int:club_id>/members/<int:user_id>/ban/",
        views_manage.member_action,
        {"action": "ban"},
        name="member_ban",
    ),
    path(
        "<int:club_id>/members/<int:user_id>/role/",
        views_manage.member_action,
        {"action": "role"},
        name="member_role",
    ),
    path(
        "<int:club_id>/members/<int:user_id>/transfer/",
        views_manage.member_action,
        {"action": "transfer"},
        name="member_transfer",
    ),
    path("<int:club_id>/members/<int:user_id>/reset-link/", views_manage.member_reset_link,
         name="member_reset_link"),
    path("<int:club_id>/bans/<int:user_id>/unban/", views_manage.member_unban, name="member_unban"),
    path("<int:club_id>/templates/new/", views_manage.template_form, name="template_create"),
    path("<int:club_id>/templates/<int:template_id>/edit/", views_manage.template_form, name="template_edit"),
    path(
        "<int:club_id>/templates/<int:template_id>/delete/",
        views_manage.template_delete,
        name="template_delete",
    ),
]
