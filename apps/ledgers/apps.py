from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgersConfig(AppConfig):
    name = "apps.ledgers"
    label = "ledgers"
    verbose_name = _("Ledgers")

    def ready(self) -> None:
        # tables never imports ledgers (the import-linter contracts in pyproject.toml): we listen to
        # its ``hand_finished`` signal instead.
        from . import receivers

        receivers.connect()
