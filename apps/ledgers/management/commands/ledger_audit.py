"""Check the ledger's invariants; print every violation; exit 1 if there is any."""

from django.core.management.base import BaseCommand

from apps.ledgers import invariants
from apps.ledgers.models import Entry, Transaction


class Command(BaseCommand):
    help = "Check that transactions sum to zero, finished hands are settled once, balances match entries."

    def handle(self, *args, **options):
        report = invariants.run_all()
        problems = 0
        for check, lines in report.items():
            if lines:
                problems += len(lines)
                self.stdout.write(self.style.ERROR(f"FAIL {check}:"))
                for line in lines:
                    self.stdout.write(f"  {line}")
            else:
                self.stdout.write(f"ok   {check}")
        self.stdout.write(f"transactions: {Transaction.objects.count()}, entries: {Entry.objects.count()}")
        if problems:
            self.stderr.write(self.style.ERROR(f"ledger_audit: {problems} problem(s)"))
            raise SystemExit(1)
        self.stdout.write(self.style.SUCCESS("ledger_audit: clean"))
