"""Double-entry ledger of club points: accounts, immutable transactions and entries, leaderboard buckets.

Invariants (ARCHITECTURE.md "Money-like state"):
- every Transaction's entries sum to zero (posting service; on PostgreSQL also a deferred
  constraint trigger, see migration 0002; `ledger_audit` checks it everywhere);
- transactions and entries are never updated or deleted: corrections are new transactions
  (refused by the model, the queryset and, on PostgreSQL, by triggers);
- one transaction per idempotency key, e.g. ``hand:<id>`` (a unique index decides, not a lock);
- ``Account.balance`` is a cache, updated in the same database transaction as the posting.
"""

from __future__ import annotations

from datetime import date

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ImmutableError(RuntimeError):
    """Ledger rows are append-only: post a correcting transaction instead."""


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableError(f"{self.model.__name__} rows are append-only")

    def delete(self):
        raise ImmutableError(f"{self.model.__name__} rows are append-only")

    # bulk_update would bypass update(); refuse it too.
    def bulk_update(self, objs, fields, batch_size=None):
        raise ImmutableError(f"{self.model.__name__} rows are append-only")


class AppendOnlyModel(models.Model):
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ImmutableError(f"{type(self).__name__} rows are append-only")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError(f"{type(self).__name__} rows are append-only")


class AccountKind(models.TextChoices):
    MEMBER = "member", _("Member")
    CLUB = "club", _("Club")
    # Points held for something else of the club (a match's entry fees: key "match:<id>"). Another
    # app owns what it is for (the ledger never imports it); ``closed`` is set once it is settled,
    # and ``ledger_audit`` checks that every closed escrow account is exactly zero.
    ESCROW = "escrow", _("Escrow")


class Account(models.Model):
    """One per (club, member), plus one club account (the 'house': 上分/下分 come from it), plus
    escrow accounts (no user, a unique ``key``)."""

    club = models.ForeignKey("clubs.Club", on_delete=models.PROTECT, related_name="ledger_accounts")
    kind = models.CharField(_("kind"), max_length=10, choices=AccountKind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    balance = models.BigIntegerField(_("balance"), default=0)
    key = models.CharField(_("key"), max_length=80, null=True, blank=True, unique=True)  # escrow only
    closed = models.BooleanField(_("closed"), default=False)  # escrow only: settled, must stay at 0
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("account")
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "user"], condition=Q(kind="member"), name="ledgers_one_account_per_member"
            ),
            models.UniqueConstraint(fields=["club"], condition=Q(kind="club"), name="ledgers_one_club_account"),
            models.CheckConstraint(
                condition=(Q(kind="member", user__isnull=False, key__isnull=True)
                           | Q(kind="club", user__isnull=True, key__isnull=True)
                           | (Q(kind="escrow", user__isnull=True, key__isnull=False) & ~Q(key=""))),
                name="ledgers_account_kind_user",
            ),
            models.CheckConstraint(condition=Q(closed=False) | Q(kind="escrow"), name="ledgers_only_escrow_closes"),
        ]

    def __str__(self) -> str:
        return f"{self.club_id}:{self.kind}:{self.user_id or '-'}"


class TransactionKind(models.TextChoices):
    HAND = "hand", _("Hand settlement")
    ADJUSTMENT = "adjustment", _("Adjustment")
    MATCH = "match", _("Match")  # entry fees into a match escrow, refunds and prizes out of it


class Transaction(AppendOnlyModel):
    club = models.ForeignKey("clubs.Club", on_delete=models.PROTECT, related_name="ledger_transactions")
    kind = models.CharField(_("kind"), max_length=12, choices=TransactionKind.choices)
    idempotency_key = models.CharField(max_length=80, unique=True)
    hand = models.ForeignKey(
        "tables.Hand", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_transactions"
    )
    memo = models.CharField(_("memo"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Frozen facts of a settled hand for leaderboards: {"seats": {seat: user_id|null},
    # "winner": seat|null, "huxi": int|null, "draw": bool; an escape (§8.6) adds "escape": seat and
    # "penalty", a capped win (§9.6) "cap"}. Empty for adjustments.
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("transaction")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["club", "created_at"], name="ledgers_txn_club_time")]

    def __str__(self) -> str:
        return self.idempotency_key


class EntryKind(models.TextChoices):
    SCORE = "score", _("Score")
    PIAO = "piao", _("Piao")
    ADJUSTMENT = "adjustment", _("Adjustment")
    FEE = "fee", _("Fee")
    ENTRY_FEE = "entry_fee", _("Entry fee")  # a match's 报名费, member <-> escrow
    REFUND = "refund", _("Refund")
    PRIZE = "prize", _("Prize")


class Entry(AppendOnlyModel):
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField(_("amount"))
    kind = models.CharField(_("kind"), max_length=12, choices=EntryKind.choices)
    seat = models.SmallIntegerField(null=True, blank=True)

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["id"]
        indexes = [models.Index(fields=["account", "transaction"], name="ledgers_entry_account_txn")]

    def __str__(self) -> str:
        return f"{self.transaction_id}/{self.account_id}: {self.amount} {self.kind}"


class Period(models.TextChoices):
    TODAY = "today", _("Today")
    WEEK = "week", _("This week")
    MONTH = "month", _("This month")
    ALL = "all", _("All time")


class Span(models.TextChoices):
    """What a leaderboard bucket covers: one local day, one local month, or all time."""

    DAY = "day", _("Day")
    MONTH = "month", _("Month")
    ALL = "all", _("All time")


ALL_TIME_DAY = date(1970, 1, 1)  # the ``day`` of every all-time bucket


class LeaderboardBucket(models.Model):
    """One member's game results in one club over one span, kept incrementally.

    The settlement of a hand adds to its players' day, month and all-time buckets in the same
    database transaction as the posting (``leaderboards``); ``manage.py rebuild_leaderboards``
    recomputes them from the ledger (a repair; it must agree). ``day`` is the local date the span
    starts (the 1st for a month, ``ALL_TIME_DAY`` for all time). Boards: today = the day bucket,
    this week = the sum of its day buckets, this month and all time = one bucket each.
    """

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="leaderboard_buckets")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    span = models.CharField(max_length=5, choices=Span.choices)
    day = models.DateField()
    points = models.BigIntegerField(default=0)  # score + piao (game points; no fees, no adjustments)
    hands = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    best_hand = models.BigIntegerField(null=True, blank=True)  # null: no hand with points yet (draws only)
    best_huxi = models.PositiveIntegerField(default=0)
    last_at = models.DateTimeField()  # the last counted hand (the points chart's x for this bucket)
    fees = models.BigIntegerField(default=0)  # table fees paid (the club ledger's fee income; not points)

    class Meta:
        ordering = ["club", "span", "day", "-points"]
        constraints = [
            models.UniqueConstraint(fields=["club", "span", "day", "user"], name="ledgers_bucket_unique"),
            models.CheckConstraint(
                condition=Q(span="day") | Q(span="month", day__day=1) | Q(span="all", day=ALL_TIME_DAY),
                name="ledgers_bucket_span_day",
            ),
            models.CheckConstraint(condition=Q(hands__gte=1) & Q(wins__lte=F("hands")) & Q(fees__gte=0),
                                   name="ledgers_bucket_counts"),
        ]


class SweepMark(models.Model):
    """How far an outbox sweep over finished hands has got (``apps.ledgers.sweeps``): every
    finished hand of ``finished_at`` before ``mark`` (less the overlap) was found done."""

    name = models.CharField(max_length=40, primary_key=True)  # e.g. "ledgers.unsettled"
    mark = models.DateTimeField()
