from django.urls import path

from . import views

app_name = "audit"

urlpatterns = [
    path("clubs/<int:club_id>/collusion/", views.collusion, name="collusion"),
    path("clubs/<int:club_id>/collusion.csv", views.collusion_csv, name="collusion_csv"),
    path("clubs/<int:club_id>/collusion/<int:user_a>/<int:user_b>/", views.collusion_pair, name="collusion_pair"),
    path("clubs/<int:club_id>/fairplay/ask/", views.fairplay_ask, name="fairplay_ask"),
    path("clubs/<int:club_id>/fairplay/<int:result_id>/", views.fairplay_page, name="fairplay"),
    path("clubs/<int:club_id>/fairplay/<int:result_id>/state/", views.fairplay_state, name="fairplay_state"),
    path("clubs/<int:club_id>/disputes/", views.disputes, name="disputes"),
    path("clubs/<int:club_id>/disputes/<int:dispute_id>/", views.dispute_detail, name="dispute"),
    path("clubs/<int:club_id>/disputes/<int:dispute_id>/review/", views.dispute_review, name="dispute_review"),
    path("clubs/<int:club_id>/disputes/<int:dispute_id>/resolve/", views.dispute_resolve, name="dispute_resolve"),
    path("disputes/", views.my_disputes, name="my_disputes"),
    path("disputes/new/<int:hand_id>/", views.dispute_create, name="dispute_create"),
]
