from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReviewConfig(AppConfig):
    name = "apps.replays.review"
    label = "review"
    verbose_name = _("Hand reviews")
