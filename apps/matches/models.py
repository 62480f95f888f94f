"""Scheduled matches (比赛): the match, its entries, rounds, tables and the never-together list.

Invariants live in the database (constraints below): sane numbers (fees ≥ 0, max ≥ min ≥ 2,
hands and rounds ≥ 1), registration before the start, one entry per (match, user), one
registration order number per match, one round per (match, number), one match table per
(round, number) and per tables.Table — so two processes advancing one match at once cannot create
two sets of tables: the second insert fails, whatever the timing. A seed is only revealed when its
commitment was published.

The match snapshots its rule template at creation (as ``apps.tables.verbs.services.table_open`` does),
so editing or deleting the template later changes nothing of a defined match.

Money: entry fees sit in the match's escrow account of the ledger (``Match.escrow``, an
``ledgers.Account`` of kind ``escrow``, key ``match:<id>``) until refunded or paid out as prizes;
see services/escrow.py.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.clubs.models import RuleSnapshot

DEFAULT_CHECKIN_MINUTES = 10


class Format(models.TextChoices):
    FIXED = "fixed", _("Fixed rounds (定局积分)")
    ELIMINATION = "elimination", _("Elimination by score (打立出局)")
    KNOCKOUT = "knockout", _("Table knockout (淘汰赛)")


class MatchState(models.TextChoices):
    DRAFT = "draft", _("Draft")
    REGISTERING = "registering", _("Registration open")
    CHECKING_IN = "checking_in", _("Checking in")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    CANCELLED = "cancelled", _("Cancelled")


# Before the start: the match can still be entered (or will be) and nobody is seated.
BEFORE_START_STATES = (MatchState.DRAFT, MatchState.REGISTERING, MatchState.CHECKING_IN)
ENDED_STATES = (MatchState.FINISHED, MatchState.CANCELLED)


class Match(RuleSnapshot):
    """A match plays by a snapshot of its rule template (``RuleSnapshot``: the same rule columns
    as a table, claim time included), taken when it is defined."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="matches")
    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True, default="")

    template = models.ForeignKey(
        "clubs.RuleTemplate", on_delete=models.SET_NULL, null=True, blank=True, related_name="matches"
    )

    # --- format -----------------------------------------------------------------------------
    format = models.CharField(_("format"), max_length=12, choices=Format.choices, default=Format.FIXED)
    hands_per_round = models.PositiveIntegerField(_("hands per round"), default=4)
    rounds = models.PositiveIntegerField(_("rounds"), default=3)  # fixed: the number of rounds
    # Match points per table rank, best first (fixed format), e.g. [4, 2, 0] for three seats.
    points_by_rank = models.JSONField(_("match points per rank"), default=list, blank=True)
    # 打立出局: everyone starts with elim_start_chips; the line starts at elim_line and rises by
    # elim_rise_by every elim_rise_every hands (涨底).
    elim_start_chips = models.IntegerField(_("starting chips"), default=1000)
    elim_line = models.IntegerField(_("elimination line"), default=900)
    elim_rise_every = models.PositiveIntegerField(_("raise the line every N hands"), default=1)
    elim_rise_by = models.PositiveIntegerField(_("raise the line by"), default=20)
    # 淘汰赛: the top T of each table advance.
    knockout_top = models.PositiveSmallIntegerField(_("advance per table"), default=1)
    # Elimination and knockout: the final table plays this many hands.
    final_hands = models.PositiveIntegerField(_("final table hands"), default=4)

    # --- schedule ---------------------------------------------------------------------------
    starts_at = models.DateTimeField(_("start time"))
    registration_opens_at = models.DateTimeField(_("registration opens"))
    registration_closes_at = models.DateTimeField(_("registration closes"))
    checkin_opens_at = models.DateTimeField(_("check-in opens"))  # check-in closes at the start

    # --- entrants, money --------------------------------------------------------------------
    min_entrants = models.PositiveIntegerField(_("minimum entrants"), default=3)
    max_entrants = models.PositiveIntegerField(_("maximum entrants"), default=60)
    entry_fee = models.PositiveIntegerField(_("entry fee"), default=0)  # 报名费, club points; 0: free
    # {"kind": "fixed", "amounts": [..]} or {"kind": "percent", "percents": [..]} (sum 100).
    prize_scheme = models.JSONField(_("prizes"), default=dict, blank=True)
    escrow = models.OneToOneField(
        "ledgers.Account", on_delete=models.PROTECT, null=True, blank=True, related_name="match"
    )

    # --- life -------------------------------------------------------------------------------
    state = models.CharField(_("state"), max_length=12, choices=MatchState.choices, default=MatchState.DRAFT)
    paused = models.BooleanField(_("paused"), default=False)
    current_round = models.PositiveIntegerField(default=0)
    # Elimination: hands played so far in the elimination stage (drives the rising line).
    stage_hands = models.PositiveIntegerField(default=0)
    in_final = models.BooleanField(default=False)  # elimination / knockout: the final table is on
    # sha256 (hex) of the seating seed, published when registration closes; the seed (hex) is
    # revealed once round 1 is seated, so anyone can recompute the seating.
    seed_hash = models.CharField(max_length=64, blank=True, default="")
    seed = models.CharField(max_length=64, blank=True, default="")  # public once revealed
    # The seed (hex) from the moment it is committed until it is revealed: server-side only, never
    # shown on a page or in an export (``seed`` is its public copy after round-1 seating).
    seed_secret = models.CharField(max_length=64, blank=True, default="")
    cancel_reason = models.CharField(_("cancel reason"), max_length=300, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-starts_at", "-id"]
        indexes = [models.Index(fields=["state", "starts_at"], name="matches_state_start")]
        constraints = [
            models.CheckConstraint(condition=Q(format__in=Format.values), name="matches_format_valid"),
            models.CheckConstraint(condition=Q(state__in=MatchState.values), name="matches_state_valid"),
            models.CheckConstraint(condition=Q(players__gte=2) & Q(players__lte=4), name="matches_players_2_4"),
            models.CheckConstraint(condition=Q(base_score__gte=1), name="matches_base_score_gte_1"),
            models.CheckConstraint(condition=Q(turn_seconds__gte=5), name="matches_turn_seconds_gte_5"),
            models.CheckConstraint(condition=Q(claim_seconds__gte=3) & Q(claim_seconds__lte=120),
                                   name="matches_claim_seconds_3_120"),
            models.CheckConstraint(condition=Q(hands_per_round__gte=1), name="matches_hands_gte_1"),
            models.CheckConstraint(condition=Q(rounds__gte=1), name="matches_rounds_gte_1"),
            models.CheckConstraint(condition=Q(final_hands__gte=1), name="matches_final_hands_gte_1"),
            models.CheckConstraint(condition=Q(elim_rise_every__gte=1), name="matches_rise_every_gte_1"),
            models.CheckConstraint(condition=Q(knockout_top__gte=1) & Q(knockout_top__lt=F("players")),
                                   name="matches_knockout_top_lt_players"),
            models.CheckConstraint(condition=Q(min_entrants__gte=2), name="matches_min_entrants_gte_2"),
            models.CheckConstraint(condition=Q(max_entrants__gte=F("min_entrants")),
                                   name="matches_max_gte_min"),
            models.CheckConstraint(condition=Q(entry_fee__gte=0), name="matches_entry_fee_gte_0"),
            models.CheckConstraint(
                condition=Q(registration_opens_at__lte=F("registration_closes_at"))
                & Q(registration_closes_at__lte=F("starts_at")),
                name="matches_registration_before_start",
            ),
            models.CheckConstraint(condition=Q(checkin_opens_at__lte=F("starts_at")),
                                   name="matches_checkin_before_start"),
            models.CheckConstraint(condition=Q(seed="") | ~Q(seed_hash=""), name="matches_seed_committed"),
            models.CheckConstraint(condition=Q(seed_secret="") | ~Q(seed_hash=""),
                                   name="matches_secret_committed"),
            models.CheckConstraint(condition=~Q(state="cancelled") | ~Q(cancel_reason=""),
                                   name="matches_cancel_has_reason"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def table_size(self) -> int:
        return self.players

    @property
    def checkin_closes_at(self):
        return self.starts_at

    @property
    def escrow_key(self) -> str:
        return f"match:{self.pk}"

    @property
    def is_ended(self) -> bool:
        return self.state in ENDED_STATES

    @staticmethod
    def default_checkin_opens(starts_at):
        return starts_at - timedelta(minutes=DEFAULT_CHECKIN_MINUTES)


class EntrantStatus(models.TextChoices):
    REGISTERED = "registered", _("Registered")
    WAITLISTED = "waitlisted", _("Waitlisted")
    CHECKED_IN = "checked_in", _("Checked in")
    ACTIVE = "active", _("Playing")
    OUT = "out", _("Out")
    WITHDRAWN = "withdrawn", _("Withdrawn")
    DROPPED = "dropped", _("Dropped (not checked in)")
    CANCELLED = "cancelled", _("Match cancelled")


# Entries that take a place in the field (counted against max_entrants) before the start.
HOLDING_PLACE = (EntrantStatus.REGISTERED, EntrantStatus.CHECKED_IN)
# Entrants still in the match before the start: holding a place or waiting for one.
BEFORE_START = (EntrantStatus.REGISTERED, EntrantStatus.WAITLISTED, EntrantStatus.CHECKED_IN)
# Entrants still in the match, before or after the start (they may withdraw).
IN_MATCH = (*BEFORE_START, EntrantStatus.ACTIVE)


class Entrant(models.Model):
    """A member's entry in a match (the ledger's lines are ``ledgers.Entry``: another thing)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="match_entrants")
    status = models.CharField(_("status"), max_length=12, choices=EntrantStatus.choices,
                              default=EntrantStatus.REGISTERED)
    registered_order = models.PositiveIntegerField()  # 1, 2, ... in order of registration
    registered_at = models.DateTimeField(default=timezone.now)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    fee_paid = models.PositiveIntegerField(default=0)  # the entry fee held in escrow for him
    refunded = models.BooleanField(default=False)
    # Match points scaled by formats.points_scale(table size) so split ties stay exact integers.
    match_points = models.BigIntegerField(default=0)
    game_points = models.BigIntegerField(default=0)  # sum of hand totals (score + piao) in the match
    best_hand = models.BigIntegerField(default=0)  # best single-hand total
    chips = models.BigIntegerField(default=0)  # 打立出局 chips
    hands_played = models.PositiveIntegerField(default=0)
    byes = models.PositiveIntegerField(default=0)
    absent_rounds = models.PositiveIntegerField(default=0)  # consecutive rounds played by 托管 only
    out_round = models.PositiveIntegerField(null=True, blank=True)  # the round he went out in
    rank = models.PositiveIntegerField(null=True, blank=True)  # final place
    prize = models.BigIntegerField(default=0)
    current_table = models.ForeignKey(
        "tables.Table", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("entrant")
        verbose_name_plural = _("entrants")
        ordering = ["match", "registered_order"]
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="matches_one_entry_per_user"),
            models.UniqueConstraint(fields=["match", "registered_order"], name="matches_entry_order_unique"),
            models.UniqueConstraint(fields=["match", "rank"], condition=Q(rank__isnull=False),
                                    name="matches_entry_rank_unique"),
            models.CheckConstraint(condition=Q(status__in=EntrantStatus.values), name="matches_entry_status_valid"),
            models.CheckConstraint(condition=Q(prize__gte=0), name="matches_entry_prize_gte_0"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}:{self.user_id} ({self.status})"


class RoundKind(models.TextChoices):
    ROUND = "round", _("Round")
    FINAL = "final", _("Final table")


class RoundState(models.TextChoices):
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")


class MatchRound(models.Model):
    """One seating of the field: a round (fixed, knockout), one hand of the elimination stage, or
    the final table. ``players`` is the field given to seating (standings order, best first)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="match_rounds")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=RoundKind.choices, default=RoundKind.ROUND)
    state = models.CharField(max_length=10, choices=RoundState.choices, default=RoundState.PLAYING)
    hands = models.PositiveIntegerField(default=1)  # hands each table of this round plays
    players = models.JSONField(default=list)  # the user ids given to seat_round, in order
    byes = models.JSONField(default=list)  # user ids with a bye this round
    repeats = models.PositiveIntegerField(default=0)
    avoid_broken = models.PositiveIntegerField(default=0)
    line = models.IntegerField(null=True, blank=True)  # elimination: the line applied after it
    reseated = models.BooleanField(default=False)  # an admin moved somebody (audited)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="matches_one_round_per_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="matches_round_number_gte_1"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}/R{self.number}"


class MatchTable(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="match_tables")
    round = models.ForeignKey(MatchRound, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField()  # 1, 2, ... within the round
    table = models.OneToOneField("tables.Table", on_delete=models.CASCADE, related_name="match_table")
    seats = models.JSONField(default=list)  # user ids in seat order, as seated
    # Filled once, when the table's session ended: {str(user_id): {"game_points", "best_hand",
    # "rank", "match_points", "absent"}}.
    results = models.JSONField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="matches_one_table_per_number"),
            models.UniqueConstraint(fields=["match", "table"], name="matches_table_once"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}/R{self.round_id}/T{self.number}"

    @staticmethod
    def title(match_name: str, *, final: bool, round_number: int, number: int) -> str:
        """A match table's name, in the active language: "周四晚快赛 · 第1轮 · 第1桌" (the table's
        stored name, given when the round is seated, and its page's heading)."""
        from django.utils.translation import gettext

        stage = gettext("Final table") if final else gettext("R%(n)s") % {"n": round_number}
        return f"{match_name} · {stage} · " + gettext("Table %(n)s") % {"n": number}


class NeverTogether(models.Model):
    """An admin's "never at one table" pair of a club (``user_a_id < user_b_id``)."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="never_together")
    user_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_b = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                   related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["club", "user_a", "user_b"]
        constraints = [
            models.UniqueConstraint(fields=["club", "user_a", "user_b"], name="matches_never_together_unique"),
            models.CheckConstraint(condition=Q(user_a__lt=F("user_b")), name="matches_never_together_ordered"),
        ]

    @property
    def pair(self) -> frozenset[int]:
        return frozenset((self.user_a_id, self.user_b_id))
