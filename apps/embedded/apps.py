from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EmbeddedConfig(AppConfig):
    name = "apps.embedded"
    label = "embedded"
    verbose_name = _("Embedded server")
