"""Recompute a club's leaderboard buckets from its ledger (the repair; settlements keep them)."""

from django.core.management.base import BaseCommand, CommandError

from apps.clubs.models import Club
from apps.ledgers import leaderboards
from apps.ledgers.models import Transaction, TransactionKind


class Command(BaseCommand):
    help = ("Recompute the leaderboard buckets of one club (--club ID) or of every club (--all) from the "
            "ledger; --check only reports what differs (exit 1 if anything does).")

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--club", type=int, help="the club's id")
        target.add_argument("--all", action="store_true", help="every club with settled hands")
        parser.add_argument("--check", action="store_true", help="compare only, change nothing")

    def handle(self, *args, **opts):
        if opts["all"]:
            club_ids = sorted(set(Transaction.objects.filter(kind=TransactionKind.HAND).order_by()
                                  .values_list("club_id", flat=True).distinct()))
        else:
            if not Club.objects.filter(pk=opts["club"]).exists():
                raise CommandError(f"no club with id {opts['club']}")
            club_ids = [opts["club"]]
        differing = 0
        for club_id in club_ids:
            if opts["check"]:
                problems = leaderboards.compare_club(club_id=club_id)
                differing += bool(problems)
                for line in problems[:20]:
                    self.stdout.write(f"  {line}")
                state = f"{len(problems)} bucket(s) differ" if problems else "agrees with the ledger"
                self.stdout.write(f"club {club_id}: {state}")
            else:
                n = leaderboards.rebuild_club(club_id=club_id)
                self.stdout.write(f"club {club_id}: {n} buckets rebuilt from the ledger")
        if differing:
            raise SystemExit(1)
