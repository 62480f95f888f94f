from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubsConfig(AppConfig):
    name = "apps.clubs"
    label = "clubs"
    verbose_name = _("Clubs")

    def ready(self) -> None:
        from apps.accounts import live as accounts_live

        from . import live

        accounts_live.FOLLOWS["club"] = live.follow  # the club page follows its club (members only)
