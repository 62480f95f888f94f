from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    name = "apps.replays.audit"
    label = "audit"
    verbose_name = _("Audit")

    def ready(self) -> None:
        from . import receivers

        receivers.connect()
