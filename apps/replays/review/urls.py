from django.urls import path

from . import views

app_name = "review"

urlpatterns = [
    path("hands/<int:hand_id>/review/", views.review_ask, name="ask"),
    path("hands/<int:hand_id>/review.json", views.review_state, name="state"),
]
