from django.urls import path

from apps.tables import views, views_phrases, views_record

app_name = "tables"

urlpatterns = [
    path("<int:table_id>/", views.table_detail, name="detail"),
    path("number/", views.table_by_number, name="by_number"),
    path("record/", views_record.my_record, name="record"),
    path("record/club/<int:club_id>/member/<int:user_id>/", views_record.member_record, name="member_record"),
    path("club/<int:club_id>/open/", views.table_open, name="open"),
    path("club/<int:club_id>/phrases/", views_phrases.club_phrase_log, name="phrase_log"),
    path("<int:table_id>/join/", views.table_verb, {"verb": "join"}, name="join"),
    path("<int:table_id>/leave/", views.table_verb, {"verb": "leave"}, name="leave"),
    path("<int:table_id>/bot/", views.table_verb, {"verb": "bot"}, name="bot"),
    path("<int:table_id>/nearby/", views.table_verb, {"verb": "nearby"}, name="nearby"),
    path("<int:table_id>/dissolve/", views.table_verb, {"verb": "dissolve"}, name="dissolve"),
    path("<int:table_id>/rematch/", views.table_rematch, name="rematch"),
    path("<int:table_id>/invite/", views.table_invite, name="invite"),
]
