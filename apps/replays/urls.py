from django.urls import path

from . import views

app_name = "replays"

urlpatterns = [
    path("hands/<int:hand_id>/", views.hand_page, name="hand"),
    path("hands/<int:hand_id>/frames.json", views.hand_frames, name="frames"),
    path("hands/<int:hand_id>/export.json", views.hand_export, name="export"),
    path("hands/<int:hand_id>/share/", views.share_create, name="share_create"),
    path("share/<int:share_id>/revoke/", views.share_revoke, name="share_revoke"),
    path("tables/<int:table_id>/", views.table_hands, name="table_hands"),
    path("tables/<int:table_id>/<int:number>/", views.table_hand, name="table_hand"),
    path("tables/<int:table_id>/export.json", views.table_export, name="table_export"),
    path("s/", views.share_enter, name="share_enter"),
    path("s/<str:code>/", views.share_open, name="share_open"),
    path("s/<str:code>/export.json", views.share_export, name="share_export"),
]
