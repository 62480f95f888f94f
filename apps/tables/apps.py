from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    name = "apps.tables"
    label = "tables"
    verbose_name = _("Tables")

    def ready(self) -> None:
        from apps.tables import receivers

        receivers.connect()
