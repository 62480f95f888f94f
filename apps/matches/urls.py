from django.urls import path

from . import views

app_name = "matches"

urlpatterns = [
    path("mine/", views.match_mine, name="mine"),
    path("clubs/<int:club_id>/", views.match_list, name="list"),
    path("clubs/<int:club_id>/new/", views.match_form, name="create"),
    path("<int:match_id>/", views.match_detail, name="detail"),
    path("<int:match_id>/standings.json", views.standings_json, name="standings"),
    path("<int:match_id>/my-table.json", views.my_table_json, name="my_table"),
    path("<int:match_id>/edit/", views.match_form, name="edit"),
    path("<int:match_id>/register/", views.entry_action, {"action": "register"}, name="register"),
    path("<int:match_id>/withdraw/", views.entry_action, {"action": "withdraw"}, name="withdraw"),
    path("<int:match_id>/check-in/", views.entry_action, {"action": "check_in"}, name="check_in"),
    path("<int:match_id>/console/", views.console, name="console"),
    path("<int:match_id>/pause/", views.console_action, {"action": "pause"}, name="pause"),
    path("<int:match_id>/resume/", views.console_action, {"action": "resume"}, name="resume"),
    path("<int:match_id>/reseat/", views.console_action, {"action": "reseat"}, name="reseat"),
    path("<int:match_id>/cancel/", views.console_action, {"action": "cancel"}, name="cancel"),
    path("<int:match_id>/never-together/add/", views.console_action, {"action": "never_add"},
         name="never_add"),
    path("<int:match_id>/never-together/<int:pair_id>/remove/", views.console_action,
         {"action": "never_remove"}, name="never_remove"),
]
