"""Audit rows: collusion statistics kept up to date per finished hand, and disputes.

Statistics are written only by ``services.record_hand`` (the Celery task ``audit.record_hand``),
exactly once per hand: ``ProcessedHand`` has one row per hand (a unique key) inserted in the same
transaction as the counters, so a retry or a duplicate delivery adds nothing. Reports only read
these rows; a report for any period sums the month rows of its whole months and the day rows of
the rest (at most two partial months), so a long period costs its months, not its days.

Directions: in ``PairDay`` and ``PairHand`` the pair is ordered — ``giver`` is the player whose
cards, points or passed wins went the way of ``taker``. Counters that have no direction (hands
together, shared addresses, joining/leaving together) are stored on both directions alike.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class ProcessedHand(models.Model):
    """The exactly-once marker: a hand's statistics were recorded (in the same transaction)."""

    hand = models.OneToOneField("tables.Hand", on_delete=models.CASCADE, related_name="audit_processed")
    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    # False when the hand's record could not be re-run by the engine: points and presence were
    # counted, card signals (feeding, declined 胡) were not. ``verify_hands`` names the problem.
    replayed = models.BooleanField(default=True)
    processed_at = models.DateTimeField(default=timezone.now)


class PairCounts(models.Model):
    """The counters of one ordered pair of players of a club (``giver`` → ``taker``) over a span."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    giver = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    taker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    hands = models.PositiveIntegerField(default=0)  # finished hands both sat in (both directions)
    # Points of taker's winnings paid by giver: in each hand, taker's gain × giver's share of all losses.
    points = models.FloatField(default=0)
    # Σ over hands of (giver→taker − taker→giver)²: the scale of the net flow (both directions).
    points_sq = models.FloatField(default=0)
    discards = models.PositiveIntegerField(default=0)  # giver's discards while taker sat at the table
    discards_taken = models.PositiveIntegerField(default=0)  # ... of which taker took (吃/碰/胡)
    # The part of the two above where taker sat right after giver (his 下家, who alone may 吃 a
    # discard): the baseline compares like with like, so seating alone does not look like feeding.
    next_discards = models.PositiveIntegerField(default=0)
    next_discards_taken = models.PositiveIntegerField(default=0)
    shows = models.PositiveIntegerField(default=0)  # giver's shown stock cards while taker sat
    shows_taken = models.PositiveIntegerField(default=0)  # ... of which taker took (吃/碰/胡)
    wins = models.PositiveIntegerField(default=0)  # taker's 胡 on a card of giver (included above)
    declined = models.PositiveIntegerField(default=0)  # 胡 giver did not take while taker sat
    declined_then_won = models.PositiveIntegerField(default=0)  # ... in hands taker went on to win
    declined_points = models.IntegerField(default=0)  # taker's totals in the hands with such a decline
    shared_ip_hands = models.PositiveIntegerField(default=0)  # hands together while sharing an address
    joins_together = models.PositiveIntegerField(default=0)  # sat down at one table within the window
    leaves_together = models.PositiveIntegerField(default=0)  # left one table within the window

    class Meta:
        abstract = True


class PairDay(PairCounts):
    """One day of one ordered pair of players of a club (``giver`` → ``taker``)."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "day", "giver", "taker"], name="audit_pairday_unique"),
            models.CheckConstraint(condition=~Q(giver=F("taker")), name="audit_pairday_two_players"),
            models.CheckConstraint(condition=Q(discards_taken__lte=F("discards")), name="audit_pairday_discards"),
            models.CheckConstraint(condition=Q(shows_taken__lte=F("shows")), name="audit_pairday_shows"),
            models.CheckConstraint(condition=Q(next_discards__lte=F("discards")), name="audit_pairday_next"),
        ]
        indexes = [models.Index(fields=["club", "day"], name="audit_pairday_club_day")]


class PairMonth(PairCounts):
    """The sum of a pair's ``PairDay`` rows of one month (``day`` is the 1st), kept with them by
    ``services.record_hand``: a report over a long period reads whole months here, not every day."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "day", "giver", "taker"], name="audit_pairmonth_unique"),
            models.CheckConstraint(condition=Q(day__day=1), name="audit_pairmonth_first_day"),
            models.CheckConstraint(condition=~Q(giver=F("taker")), name="audit_pairmonth_two_players"),
        ]


class PlayerCounts(models.Model):
    """One player's claims on everyone's cards in a club over a span (the baseline of a pair)."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    hands = models.PositiveIntegerField(default=0)
    discards_seen = models.PositiveIntegerField(default=0)  # other players' discards while he sat
    discards_taken = models.PositiveIntegerField(default=0)  # ... that he took (吃/碰/胡)
    next_seen = models.PositiveIntegerField(default=0)  # the part of them his 上家 discarded
    next_taken = models.PositiveIntegerField(default=0)
    shows_seen = models.PositiveIntegerField(default=0)
    shows_taken = models.PositiveIntegerField(default=0)
    hu_chances = models.PositiveIntegerField(default=0)  # decisions where 胡 was among his options
    declined = models.PositiveIntegerField(default=0)  # ... where he chose something else

    class Meta:
        abstract = True


class PlayerDay(PlayerCounts):
    """One day of one player of a club: his claims on everyone's cards (the baseline of a pair)."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "day", "user"], name="audit_playerday_unique"),
            models.CheckConstraint(condition=Q(discards_taken__lte=F("discards_seen")),
                                   name="audit_playerday_discards"),
            models.CheckConstraint(condition=Q(declined__lte=F("hu_chances")), name="audit_playerday_declined"),
        ]
        indexes = [models.Index(fields=["club", "day"], name="audit_playerday_club_day")]


class PlayerMonth(PlayerCounts):
    """The sum of a player's ``PlayerDay`` rows of one month (``day`` is the 1st)."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "day", "user"], name="audit_playermonth_unique"),
            models.CheckConstraint(condition=Q(day__day=1), name="audit_playermonth_first_day"),
        ]


class PairHand(models.Model):
    """One hand two players sat in together (ordered like PairDay): the drill-down's rows."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    hand = models.ForeignKey("tables.Hand", on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField()
    giver = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    taker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    points = models.FloatField(default=0)
    taken = models.PositiveSmallIntegerField(default=0)  # giver's discards and shown cards taker took
    wins = models.PositiveSmallIntegerField(default=0)
    declined = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "giver", "taker"], name="audit_pairhand_unique"),
        ]
        indexes = [models.Index(fields=["club", "giver", "taker", "finished_at"], name="audit_pairhand_pair")]


class PairAddress(models.Model):
    """An IP address two players of a club were both seen at (accounts.SeenAddress), giver < taker."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    user_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_b = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ip = models.GenericIPAddressField()
    first_seen = models.DateTimeField()  # the first finished hand together where it was shared
    last_seen = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user_a", "user_b", "ip"], name="audit_pairaddress_unique"),
            models.CheckConstraint(condition=Q(user_a__lt=F("user_b")), name="audit_pairaddress_ordered"),
        ]


class DisputeStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("dispute status", "Open")
    REVIEWING = "reviewing", pgettext_lazy("dispute status", "Reviewing")
    RESOLVED = "resolved", pgettext_lazy("dispute status", "Resolved")


class DisputeKind(models.TextChoices):
    """What a dispute is about, as players put it (the queue sorts and counts by it)."""

    SCORE = "score", pgettext_lazy("dispute kind", "Scoring error")
    TIMEOUT = "timeout", pgettext_lazy("dispute kind", "Timed out")
    DISCONNECT = "disconnect", pgettext_lazy("dispute kind", "Disconnected")
    COLLUSION = "collusion", pgettext_lazy("dispute kind", "Collusion")
    RULES = "rules", pgettext_lazy("dispute kind", "Rule applied wrongly")
    OTHER = "other", pgettext_lazy("dispute kind", "Other")


class Dispute(models.Model):
    """A player's complaint about a hand he played; managers who did not play it (or staff) review
    and resolve it."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="disputes")
    hand = models.ForeignKey("tables.Hand", on_delete=models.PROTECT, related_name="disputes")
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="disputes")
    reason = models.TextField(_("reason"), max_length=2000)
    kind = models.CharField(_("kind"), max_length=12, choices=DisputeKind.choices, default=DisputeKind.OTHER)
    # The replay step the player points at (0 = the deal, k = the k-th action), if any.
    step = models.PositiveIntegerField(_("step"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=DisputeStatus.choices,
                              default=DisputeStatus.OPEN)
    created_at = models.DateTimeField(_("filed at"), default=timezone.now)
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="+")
    reviewing_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")
    resolved_at = models.DateTimeField(null=True, blank=True)
    outcome = models.TextField(_("outcome"), max_length=2000, blank=True, default="")
    # The correcting adjustment posted on resolution (ledger key ``dispute:<id>``), if any.
    adjustment = models.ForeignKey("ledgers.Transaction", on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="+")
    adjustment_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                        blank=True, related_name="+")
    adjustment_amount = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=DisputeStatus.values), name="audit_dispute_status"),
            models.CheckConstraint(condition=Q(kind__in=DisputeKind.values), name="audit_dispute_kind"),
            models.CheckConstraint(
                condition=~Q(status="resolved") | (Q(resolved_at__isnull=False) & ~Q(outcome="")),
                name="audit_dispute_resolved_has_outcome",
            ),
            models.CheckConstraint(
                condition=Q(adjustment__isnull=True) | Q(status="resolved"), name="audit_dispute_adjust_on_resolve"
            ),
            # One dispute in progress per player and hand (a new one may follow a resolved one).
            models.UniqueConstraint(
                fields=["hand", "filed_by"], condition=~Q(status="resolved"), name="audit_one_open_dispute"
            ),
        ]
        # The dispute queue's keyset (newest id first), whole or by status.
        indexes = [models.Index(fields=["club", "status", "id"], name="audit_dispute_queue"),
                   models.Index(fields=["club", "id"], name="audit_dispute_club_id")]

    def __str__(self) -> str:
        return f"dispute #{self.pk} ({self.status})"

    @property
    def idempotency_key(self) -> str:
        return f"dispute:{self.pk}"


class FairPlayStatus(models.TextChoices):
    PENDING = "pending", pgettext_lazy("fair play status", "Waiting")
    RUNNING = "running", pgettext_lazy("fair play status", "Computing")
    DONE = "done", pgettext_lazy("fair play status", "Done")
    FAILED = "failed", pgettext_lazy("fair play status", "Failed")


class FairPlayResult(models.Model):
    """信息优势 (issue #44): does a player (or a pair, ``partner`` set) of a club play as if he saw
    cards he should not, over his finished hands of a period? Asked for once per (club, subject,
    period) — the partial unique constraints — and computed once by the ``review`` queue's task
    (fairplay.py). ``result`` holds the engine's score (both parts) and the hands with the most
    telling decisions; ``score``, ``p``... repeat its headline for the report's column."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # A pair: the other player (user < partner), each seat weighed with the other's hand revealed.
    partner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                                related_name="+")
    since = models.DateField()
    until = models.DateField()
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="+")  # None: the nightly sweep
    status = models.CharField(max_length=8, choices=FairPlayStatus.choices, default=FairPlayStatus.PENDING)
    seed = models.CharField(max_length=100)
    budget_ms = models.FloatField()
    max_hands = models.PositiveIntegerField()
    hands = models.PositiveIntegerField(default=0)  # hands counted (the most recent, at most max_hands)
    decisions = models.PositiveIntegerField(default=0)
    telling = models.PositiveIntegerField(default=0)
    score = models.FloatField(null=True, blank=True)  # z of the stronger part
    p = models.FloatField(null=True, blank=True)
    flagged = models.BooleanField(default=False)
    result = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=40, blank=True)  # a failure's kind (a code: the page words it)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user", "since", "until"], condition=Q(partner__isnull=True),
                                    name="audit_fairplay_one_per_player"),
            models.UniqueConstraint(fields=["club", "user", "partner", "since", "until"],
                                    condition=Q(partner__isnull=False), name="audit_fairplay_one_per_pair"),
            models.CheckConstraint(condition=Q(partner__isnull=True) | Q(user__lt=F("partner")),
                                   name="audit_fairplay_pair_ordered"),
            models.CheckConstraint(condition=Q(since__lte=F("until")), name="audit_fairplay_period"),
            models.CheckConstraint(condition=Q(status="done") | Q(result__isnull=True),
                                   name="audit_fairplay_result_only_when_done"),
        ]
        indexes = [models.Index(fields=["club", "user", "status", "finished_at"], name="audit_fairplay_latest")]

    def __str__(self) -> str:
        return f"fair play {self.user_id}{'+' + str(self.partner_id) if self.partner_id else ''} ({self.status})"
