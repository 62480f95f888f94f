"""`manage.py unlock_signin --username U [--address IP]`: lift a sign-in lockout now.

Removes the counted failed sign-ins of that username (at every address) and/or address (an IPv6
one: its /64) and closes their open lockouts in the audit trail as unlocked by an admin
(accounts.SignInLockout): the username's pairs and its daily ceiling, the address and its pairs.
`--list` shows the open lockouts instead.
"""

from __future__ import annotations

import ipaddress

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.accounts import signin
from apps.accounts.models import SignInLockout


class Command(BaseCommand):
    help = "Lift the sign-in lockout of a username and/or an address (or --list the open ones)."

    def add_arguments(self, parser):
        parser.add_argument("--username", help="the username as typed at sign-in")
        parser.add_argument("--address", help="the client IP address")
        parser.add_argument("--list", action="store_true", help="list the open lockouts and change nothing")

    def handle(self, *args, username: str | None, address: str | None, list: bool, **options):
        if list:
            signin.close_ended()
            rows = SignInLockout.objects.filter(ended_at__isnull=True).order_by("until")
            for row in rows:
                self.stdout.write(f"{row.scope:<8} {row.key:<40} until {timezone.localtime(row.until):%Y-%m-%d %H:%M:%S}")
            self.stdout.write(f"{len(rows)} open lockout(s).")
            return
        if not username and not address:
            raise CommandError("Give --username and/or --address (or --list).")
        if address:
            try:
                address = str(ipaddress.ip_address(address.strip()))
            except ValueError as exc:
                raise CommandError(f"Not an IP address: {address!r}") from exc
        removed, closed = signin.unlock(username=username, ip=address)
        self.stdout.write(self.style.SUCCESS(
            f"Unlocked {' and '.join(filter(None, [username and f'username {username}', address and f'address {address}']))}:"
            f" {removed} counted failure(s) removed, {closed} lockout(s) closed."))
