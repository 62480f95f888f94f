"""The custom user (set before the first migration so it never has to move)."""

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    display_name = models.CharField(_("display name"), max_length=32, blank=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"

    @property
    def name(self) -> str:
        """What other players see: the display name (昵称), else the username."""
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.name


class SeenAddress(models.Model):
    """An IP address a user signed in or opened a table from: one row per (user, address).

    Audit reports and match seating read it ("shared an IP address in the last 30 days"); it is
    written by ``accounts.services.address_seen`` and nowhere else.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="seen_addresses")
    ip = models.GenericIPAddressField(_("IP address"))
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    count = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "ip"], name="accounts_one_row_per_user_ip")]
        indexes = [models.Index(fields=["ip", "last_seen"], name="accounts_seen_ip_last")]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.ip}"
