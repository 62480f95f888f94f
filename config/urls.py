"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("accounts/", include("apps.accounts.urls")),
    path("clubs/", include("apps.clubs.urls")),
    path("tables/", include("apps.tables.urls")),
    path("ledgers/", include("apps.ledgers.urls")),
    path("matches/", include("apps.matches.urls")),
    path("replays/", include("apps.replays.urls")),
    path("replays/", include("apps.replays.review.urls")),
    path("audit/", include("apps.replays.audit.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
