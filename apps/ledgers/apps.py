from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgersConfig(AppConfig):
    name = "apps.ledgers"
    label = "ledgers"
    verbose_name = _("Ledgers")

    def ready(self) -> None:
        # tables never imports ledgers: we listen to its signal (CONTRACTS.md).
        from . import receivers

        receivers.connect()
