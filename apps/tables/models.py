"""Tables, their seats, hands and the hash-chained event log.

State lives here, not in a process: a restarted server rebuilds every table from these rows.
``Hand.state`` (the engine's ``to_json``) and ``Hand.seed`` before the end are server-side only;
nothing in them may reach a socket except through the engine's ``view``/``for_viewer``.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.clubs.models import FeePayer, RuleSnapshot
from apps.engine.records.chain import GENESIS_HASH
from apps.tables.phrasebook import MAX_ID_LENGTH as MAX_PHRASE_ID
from apps.tables.phrasebook import PHRASE_IDS


class TableStatus(models.TextChoices):
    WAITING = "waiting", _("Waiting")
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")
    DISSOLVED = "dissolved", _("Dissolved")


# A table that can still be joined or played at, and one whose session is over.
OPEN_TABLE_STATUSES = (TableStatus.WAITING, TableStatus.PLAYING)
ENDED_TABLE_STATUSES = (TableStatus.FINISHED, TableStatus.DISSOLVED)


class Stage(models.TextChoices):
    """Where a table is inside its session (status says whether the session runs at all)."""

    SEATING = "seating", _("Seating")  # waiting for players / ready
    PIAO = "piao", _("Choosing piao")
    HAND = "hand", _("In a hand")
    SETTLE = "settle", _("Between hands")  # settlement shown, waiting for ready
    OVER = "over", _("Over")


class BotLevel(models.TextChoices):
    """The levels of the engine's bots (apps/engine/bots/choose.py LEVELS) a practice table's creator picks."""

    EASY = "easy", _("Easy")
    NORMAL = "normal", _("Normal")
    HARD = "hard", _("Hard")


# What a seat's ``bot`` may hold besides "": the levels, and the engine's older kinds (greedy is
# normal; random plays any legal action).
BOT_KINDS = (*BotLevel.values, "greedy", "random")
# The level that plays for a player on 托管 (at a practice, open or match table): the strongest.
TUOGUAN_LEVEL = BotLevel.HARD.value

PIAO_SECONDS = 15  # a piao window's time to choose
# An arranged table's first piao window waits for its players to arrive (they are moved there from
# another page): each gets PIAO_SECONDS from his arrival, but a player still away after this long is
# no longer waited for (his piao is the default, RULES.md §11.6).
PIAO_ARRIVAL_SECONDS = 60
# A table whose next hand starts by itself (a match table: ``session_policy`` auto_ready) shows the
# hand's result this long first, unless every player taps 下一局 sooner.
NEXT_HAND_SECONDS = 10
DISSOLVE_SECONDS = 60  # a 解散 vote's time to answer


def table_group(table_id: int) -> str:
    """The channel-layer group of a table's updates (a server process joins it once: hub.py)."""
    return f"table.{table_id}"


# 桌号: six digits a player reads out or pastes to reach a table; unique among the tables not yet
# ended (a DB constraint), so an ended table's number may come back on a later table.
TABLE_CODE_LENGTH = 6
TABLE_CODE_CONSTRAINT = "tables_code_unique_open"
_CODE_TRIES = 8


def new_table_code() -> str:
    """A random 桌号 (no leading zero, so it reads and types the same everywhere).

    >>> len(new_table_code()), new_table_code()[0] != "0"
    (6, True)
    """
    low = 10 ** (TABLE_CODE_LENGTH - 1)
    return str(low + secrets.randbelow(9 * low))


class Table(RuleSnapshot):
    """A table's rules are a snapshot of its template at opening (``RuleSnapshot``)."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="tables")
    template = models.ForeignKey(
        "clubs.RuleTemplate", on_delete=models.SET_NULL, null=True, blank=True, related_name="tables"
    )
    name = models.CharField(_("name"), max_length=60)
    hands_per_session = models.PositiveIntegerField(_("hands per session"), default=8)
    # The template's table fee (桌费) as it was when the table opened; the ledger charges it per hand.
    fee = models.PositiveIntegerField(_("table fee per hand"), default=0)
    fee_payer = models.CharField(_("fee paid by"), max_length=8, choices=FeePayer.choices, default=FeePayer.EACH)
    status = models.CharField(max_length=10, choices=TableStatus.choices, default=TableStatus.WAITING)
    stage = models.CharField(max_length=10, choices=Stage.choices, default=Stage.SEATING)
    practice = models.BooleanField(_("practice"), default=False)
    # Opened by a service with its players already seated (arranged.py: a match's round), not by a
    # player: no 再来一局, each next hand may start by itself (``session_policy``).
    arranged = models.BooleanField(_("arranged"), default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    hands_played = models.PositiveIntegerField(default=0)
    dealer = models.PositiveSmallIntegerField(default=0)
    consecutive_draws = models.PositiveSmallIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    deadline_kind = models.CharField(max_length=10, blank=True, default="")
    deadline_info = models.JSONField(default=dict, blank=True)  # {"seats": [...], "mark": n}
    dissolve_by = models.SmallIntegerField(null=True, blank=True)
    dissolve_votes = models.JSONField(default=dict, blank=True)  # {"seat": bool}
    dissolve_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    seq = models.PositiveIntegerField(default=0)
    # The number of the last update each viewer ("0".."3" for seats, "spectator") was sent. Updates
    # are numbered per viewer, by what that viewer sees: an event hidden from a viewer (another
    # seat's pass) sends him nothing and leaves no gap, yet a lost update still shows as one.
    view_seqs = models.JSONField(default=dict, blank=True)
    # Bumped by every table transaction (``Ctx.save``), events or not: the key that tells a server
    # process whether its cached seats and engine hand (hand_cache.py) are still the rows' state.
    rev = models.PositiveBigIntegerField(default=0)
    last_hash = models.CharField(max_length=64, default=GENESIS_HASH)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # 再来一局: the ended table this one is the rematch of. One-to-one (a unique column): however
    # many players ask, an ended table has at most one rematch (rematch.py).
    rematch_of = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematch"
    )
    code = models.CharField(_("table number"), max_length=TABLE_CODE_LENGTH, default=new_table_code)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(players__gte=2) & Q(players__lte=4), name="tables_players_2_4"),
            models.CheckConstraint(condition=Q(base_score__gte=1), name="tables_base_score_gte_1"),
            models.CheckConstraint(condition=Q(hands_per_session__gte=1), name="tables_hands_gte_1"),
            models.CheckConstraint(condition=Q(fee__gte=0), name="tables_fee_gte_0"),
            models.CheckConstraint(condition=Q(claim_seconds__gte=3) & Q(claim_seconds__lte=120),
                                   name="tables_claim_seconds_3_120"),
            models.CheckConstraint(condition=Q(fee_payer__in=FeePayer.values), name="tables_fee_payer_valid"),
            models.CheckConstraint(
                condition=Q(status__in=["waiting", "playing", "finished", "dissolved"]), name="tables_status_valid"
            ),
            models.CheckConstraint(condition=Q(hands_played__lte=models.F("hands_per_session")),
                                   name="tables_hands_played_lte_session"),
            # A 桌号 names one table among those not yet ended (and serves the lookup by number).
            models.UniqueConstraint(fields=["code"], condition=Q(status__in=["waiting", "playing"]),
                                    name=TABLE_CODE_CONSTRAINT),
        ]
        # A club page's table list (tables.selectors.club_tables): the open ones, the last closed ones.
        indexes = [
            models.Index(fields=["club", "created_at"], condition=Q(status__in=["waiting", "playing"]),
                         name="tables_club_open"),
            models.Index(fields=["club", "created_at"], condition=Q(status__in=["finished", "dissolved"]),
                         name="tables_club_closed"),
            # The compaction job's range scan (apps/replays/retention.py): ended tables by end time.
            models.Index(fields=["finished_at"], condition=Q(status__in=["finished", "dissolved"]),
                         name="tables_ended_finished_at"),
        ]

    def __str__(self) -> str:
        return f"{self.name} #{self.pk}"

    def save(self, *args, **kwargs) -> None:
        """A new table whose random 桌号 is already taken by an open table draws another (in a
        savepoint, so the caller's transaction goes on); anything else is raised as ever."""
        if not self._state.adding or self.pk is not None:
            return super().save(*args, **kwargs)
        for attempt in range(_CODE_TRIES):
            try:
                with transaction.atomic():
                    return super().save(*args, **kwargs)
            except IntegrityError as exc:
                text = str(exc)
                if attempt == _CODE_TRIES - 1 or (TABLE_CODE_CONSTRAINT not in text
                                                   and "tables_table.code" not in text):
                    raise
                self.code = new_table_code()
        return None

    @property
    def group_name(self) -> str:
        return table_group(self.pk)

    # The columns a table transaction (``Ctx.save``) may change; the rest is fixed when the table
    # opens (name, rules, seats' count...). Saving only these keeps the per-move UPDATE small.
    LIVE_FIELDS = (
        "status", "stage", "hands_played", "dealer", "consecutive_draws", "deadline", "deadline_kind",
        "deadline_info", "dissolve_by", "dissolve_votes", "dissolve_deadline", "seq", "view_seqs", "rev",
        "last_hash", "finished_at",
    )

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_TABLE_STATUSES


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="table_seats"
    )
    # "" (a player), or the engine's bot that plays the seat: a level players choose (easy, normal,
    # hard: apps/engine/bots/choose.py LEVELS), or the older kinds random and greedy (= normal).
    bot = models.CharField(max_length=10, blank=True, default="")
    piao = models.SmallIntegerField(null=True, blank=True)
    ready = models.BooleanField(default=False)
    online = models.BooleanField(default=False)
    # When a server process last saw this seat's player on a socket (watch.py, every few seconds).
    # A seat online but unseen for a while lost its socket with a killed process: presence.py.
    seen_at = models.DateTimeField(null=True, blank=True)
    tuoguan = models.BooleanField(default=False)
    timeouts = models.PositiveSmallIntegerField(default=0)
    score = models.IntegerField(default=0)  # running session total (score + piao lines)
    wins = models.PositiveSmallIntegerField(default=0)

    # What a table transaction (``Ctx.save``) writes of a seat: not ``seen_at``, which the sockets'
    # processes update on their own (a cached seat's older value must not overwrite it).
    LIVE_FIELDS = ("user", "bot", "piao", "ready", "online", "tuoguan", "timeouts", "score", "wins")

    class Meta:
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="tables_one_seat_per_index"),
            models.UniqueConstraint(
                fields=["table", "user"], condition=Q(user__isnull=False), name="tables_one_seat_per_user"
            ),
            models.CheckConstraint(condition=Q(bot__in=["", *BOT_KINDS]), name="tables_seat_bot_kind"),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(bot=""), name="tables_seat_user_or_bot"
            ),
        ]
        # A player's 战绩 (read/record.py): his seats by table, newest first, a keyset page each.
        indexes = [models.Index(fields=["user", "table"], name="tables_seat_user_table")]

    @property
    def taken(self) -> bool:
        return self.user_id is not None or bool(self.bot)

    @property
    def autoplay(self) -> bool:
        """The engine's bot decides for this seat (a bot seat, or a player on 托管)."""
        return bool(self.bot) or self.tuoguan


class HandStatus(models.TextChoices):
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")
    DISSOLVED = "dissolved", _("Dissolved")


# A hand that has ended (its seed revealed): replayable, exportable, verifiable.
ENDED_HAND_STATUSES = (HandStatus.FINISHED, HandStatus.DISSOLVED)


class Hand(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    seed_hash = models.CharField(max_length=64)
    seed = models.CharField(max_length=64, blank=True, default="")
    ruleset = models.JSONField(default=dict)
    state = models.JSONField(default=dict)
    piao = models.JSONField(default=dict, blank=True)
    # Who sat where when the hand was dealt ({seat: user id, or null for a bot}): settlement pays
    # these players even if a seat changes hands before the ledger posts.
    players = models.JSONField(default=dict, blank=True)
    # The seats that play the hand (the engine's active seats: all but a 4-player sit_out sitter),
    # frozen at the deal: with ``players`` and ``totals`` everything the ledger posts.
    playing = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=HandStatus.choices, default=HandStatus.PLAYING)
    result = models.JSONField(null=True, blank=True)  # the engine's h.result
    totals = models.JSONField(null=True, blank=True)  # engine settle(): {"score", "piao", "total"} per seat
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    # What ending a hand writes (finished or dissolved): the rest of the row is written when it is
    # dealt, and a move inside the hand is kept by its ``action`` event (context.py, ``Ctx.save``).
    END_FIELDS = ("status", "finished_at", "seed", "result", "totals", "state")

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tables_one_hand_per_number"),
            models.CheckConstraint(
                condition=Q(status="playing") | ~Q(seed=""), name="tables_seed_revealed_when_over"
            ),
            models.CheckConstraint(
                condition=~Q(status="playing") | Q(seed=""), name="tables_seed_hidden_while_playing"
            ),
        ]
        # The outbox sweeps' range scans (apps.ledgers.sweeps): finished hands by finish time.
        indexes = [models.Index(fields=["finished_at"], condition=Q(status="finished"), name="tables_hand_finished_at")]

    def __str__(self) -> str:
        return f"{self.table_id}/{self.number}"


class TableEvent(models.Model):
    """One entry of a table's append-only log; ``hash = sha256(prev_hash + canonical_json(payload))``.

    Types: ``engine`` (payload = the engine event's full audit wire dict), ``action`` (payload =
    ``{"seat", "action"}``, the player's choice fed to the engine), and table events named
    ``<noun>.<verb>`` (``seat.join``, ``hand.start``, ``hand.end``, ...), whose payloads are public.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="events")
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=24)
    payload = models.JSONField(default=dict)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["table", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="tables_event_seq_unique"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="tables_event_seq_gte_1"),
        ]


ARCHIVE_FORMAT = "paohuzi-log/1"


class TableArchive(models.Model):
    """The event log of a compacted table: what its ``TableEvent`` rows held, in one compressed value.

    An ended table whose last hand is old (apps/replays/retention.py) keeps its log here instead of
    one row per event: ``data`` is zlib of JSON lines, a header then one line per segment (a run of
    one hand's events, or of table events), each event ``[seq, created_at, type, payload, hash,
    hand_id]`` exactly as its row held it (payload keys in the order read, so an export is
    byte-identical; ``prev_hash`` is the previous event's hash), seqs 1 to ``last_seq`` without a
    gap: every hash of the chain from the genesis hash is kept and is checked again by every
    verification. ``digest`` is sha256 of the uncompressed value. Read only through
    ``apps.tables.storage.eventlog`` (apps/tables/storage/archive.py encodes and decodes it).
    """

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="archive")  # one per table
    format = models.CharField(max_length=20, default=ARCHIVE_FORMAT)
    last_seq = models.PositiveIntegerField()  # the log's events 1..last_seq are in ``data``
    events = models.PositiveIntegerField()
    hands = models.PositiveIntegerField(default=0)  # the table's hands with events in the archive
    last_hash = models.CharField(max_length=64)  # the hash of event ``last_seq``
    digest = models.CharField(max_length=64)  # sha256 hex of the uncompressed JSON
    raw_bytes = models.PositiveIntegerField()  # the uncompressed JSON's size
    data = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(last_seq__gte=1) & Q(events=models.F("last_seq")),
                                   name="tables_archive_whole_log"),
            models.CheckConstraint(condition=Q(format=ARCHIVE_FORMAT), name="tables_archive_format"),
            models.CheckConstraint(condition=Q(raw_bytes__gt=0), name="tables_archive_not_empty"),
        ]

    def __str__(self) -> str:
        return f"archive of table {self.table_id} ({self.events} events)"


class Closeness(models.TextChoices):
    """How far apart two seated players who both shared their location are: a class, never metres."""

    M100 = "m100", _("within 100 m")
    KM1 = "km1", _("within 1 km")
    FAR = "far", _("farther")


class SeatDistance(models.Model):
    """The distance class between two players seated at a table who both shared their location
    (issue #47). Only the class is kept, never a coordinate; the row goes when either leaves the
    table or the table ends (apps/tables/read/nearby.py)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="distances")
    user_low = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_high = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    closeness = models.CharField(max_length=4, choices=Closeness.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "user_low", "user_high"], name="tables_one_distance_per_pair"),
            models.CheckConstraint(condition=Q(user_low__lt=models.F("user_high")), name="tables_distance_ordered"),
        ]

    def __str__(self) -> str:
        return f"{self.user_low_id}~{self.user_high_id}@{self.table_id}: {self.closeness}"


class TablePhrase(models.Model):
    """A 快捷语 or reaction a seated player sent at a table (issue #47; apps/tables/verbs/phrases.py).

    Not game state: never in the hand's hash-chained log, written without the table's row lock.
    Only the phrase's id is stored (``phrasebook.PHRASE_IDS``, checked here), never free text. Kept
    ``phrasebook.KEEP_DAYS`` days for disputes about abuse (the club's managers read them: read/
    phrases.py), then purged by the daily retention job. ``club`` is the table's (a table never
    changes club): the managers' log is one index range per club."""

    # No foreign-key constraint on the table: its check takes ``FOR KEY SHARE`` on the table row,
    # which waits for a move's ``FOR UPDATE`` (tests/tables/test_phrase_lock.py). The row is
    # written only for a table just read; a deleted table's phrases go with it (Django's cascade).
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="phrases", db_constraint=False)
    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    phrase = models.CharField(max_length=MAX_PHRASE_ID, choices=[(p, p) for p in PHRASE_IDS])
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(phrase__in=PHRASE_IDS), name="tables_phrase_known"),
            models.CheckConstraint(condition=Q(seat__lte=3), name="tables_phrase_seat_index"),
        ]
        indexes = [
            models.Index(fields=["club", "-id"], name="tables_phrase_club_newest"),
            models.Index(fields=["sent_at"], name="tables_phrase_sent_at"),
        ]

    def __str__(self) -> str:
        return f"{self.phrase} by seat {self.seat} at table {self.table_id}"
