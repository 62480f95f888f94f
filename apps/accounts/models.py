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
