from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    name = "apps.tables"
    label = "tables"
    verbose_name = _("Tables")

    def ready(self) -> None:
        from apps.accounts import notices
        from apps.tables import receivers
        from apps.tables.transaction import outbox

        receivers.connect()
        # Notices and club nudges go out as table updates do: deferred in a socket's thread.
        notices.publisher = outbox.send_group
