"""Tables listen to clubs: a member who is removed, banned or leaves gives up his seats at waiting
tables (clubs never imports tables, so this is a ``post_delete`` receiver on Membership)."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete


def on_membership_deleted(sender, instance, **kwargs) -> None:
    from apps.tables.verbs.services import seats_vacate

    user_id, club_id = instance.user_id, instance.club_id
    # Inside the clubs transaction: the seats go with the membership, or neither does.
    if transaction.get_connection().in_atomic_block:
        seats_vacate(user_id=user_id, club_id=club_id)
    else:
        with transaction.atomic():
            seats_vacate(user_id=user_id, club_id=club_id)


def connect() -> None:
    from apps.clubs.models import Membership

    post_delete.connect(on_membership_deleted, sender=Membership, dispatch_uid="tables.vacate_on_membership_end")
