"""Scheduled matches (比赛): formats, registration, fees in escrow, seating, rounds, standings and
prizes (ARCHITECTURE.md "Scheduled matches")."""
from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "apps.matches"
    label = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        # tables never imports matches: we listen to its signals (receivers.py).
        from . import receivers

        receivers.connect()
