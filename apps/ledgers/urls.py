from django.urls import path

from . import views, views_card

app_name = "ledgers"

urlpatterns = [
    path("<int:club_id>/", views.club_ledger, name="club"),
    path("<int:club_id>/me/", views.my_ledger, name="mine"),
    path("<int:club_id>/members/<int:user_id>/", views.member_ledger, name="member"),
    path("<int:club_id>/adjust/", views.adjust, name="adjust"),
    path("<int:club_id>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("tables/<int:table_id>/seats/<str:seat>/card/", views_card.seat_card, name="seat_card"),
]
