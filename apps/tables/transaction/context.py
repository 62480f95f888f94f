"""The locked context of one table transaction, and the error every service raises.

``lock(table_id)`` takes the Table row lock (``select_for_update``) that serialises every write to
a table, then loads its seats and current hand; ``Ctx.save`` writes what changed. Verbs do not call
them directly: ``unit.table_action`` does, around the verb's body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.clubs import live as club_live
from apps.engine.play.hand import Action
from apps.engine.play.hand import Hand as EngineHand
from apps.tables import stages
from apps.tables.models import Hand, HandStatus, Seat, Table
from apps.tables.storage import hand_cache, rows
from apps.tables.storage.eventlog import hand_events, since
from apps.tables.transaction.outbox import Outbox

# Events that change what the club page lists of the table (seats taken, status, hands played).
CLUB_EVENTS = frozenset({"seat.join", "seat.leave", "seat.bot", "table.start", "hand.end", "table.end"})


class TableError(Exception):
    """A refused request: ``code`` for programs, ``message`` for people. Nothing was changed."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Ctx:
    """A locked table with its rows loaded; ``save`` writes what changed and the events."""

    table: Table
    seats: list[Seat]
    hand: Hand | None
    engine_hand: Any
    outbox: Outbox
    dirty_seats: set[int] = field(default_factory=set)
    hand_dirty: bool = False
    cache_gen: int = 0  # hand_cache generation seen under the lock (after our own invalidate)
    unchanged: bool = False  # set by ``nothing_changed``: the unit of work saves nothing
    club_changed: bool = False  # an event the club page shows (CLUB_EVENTS): its pages are nudged

    def nothing_changed(self) -> None:
        """The verb looked and found nothing to do: no write, no event, no rev bump."""
        self.unchanged = True

    def touch(self, *seats: Seat) -> None:
        self.dirty_seats.update(s.index for s in seats)

    def seat_of(self, user) -> Seat | None:
        uid = getattr(user, "pk", None)
        return next((s for s in self.seats if uid is not None and s.user_id == uid), None)

    def event(self, type_: str, payload: dict, **kwargs) -> None:
        """Append a table event; it belongs to the current hand while that hand is being played."""
        playing = self.hand if self.hand is not None and self.hand.status == HandStatus.PLAYING else None
        if type_ in CLUB_EVENTS:
            self.club_changed = True
        self.outbox.add(type_, payload, hand=kwargs.pop("hand", playing), **kwargs)

    def save(self) -> None:
        """Write the hand if it was dealt or ended here, then the events, the changed seats and
        the table (``Outbox.flush``, ``rows.write``: one statement on PostgreSQL)."""
        if self.hand is not None and self.hand_dirty and (
            self.hand.status != HandStatus.PLAYING or self.hand._state.adding
        ):
            # A move inside a hand is kept by its ``action`` event, written in this transaction:
            # ``state`` stays as dealt until the hand ends, and ``current_hand`` re-applies the
            # logged actions. (Rewriting the whole state on every move costs O(moves).)
            self.hand.state = self.engine_hand.to_json()
            if self.hand._state.adding:
                self.hand.save()
            else:
                rows.save_live(self.hand, Hand.END_FIELDS)
        self.table.rev += 1  # every table transaction: the hand cache's validity key
        if self.club_changed:  # once per transaction, after its commit (issue #47: pages keep true)
            club_id = self.table.club_id
            club_live.nudge_on_commit(club_id)
        dirty = [seat for seat in self.seats if seat.index in self.dirty_seats]
        if self.outbox.pending:
            self.outbox.flush(seats=self.seats, hand=self.hand, engine_hand=self.engine_hand, dirty=dirty)
        else:
            rows.write(self.table, [], dirty)
        self.keep_read()

    def keep_read(self) -> None:
        """Cache the rows as they stand once the transaction commits (``save``, or a read that
        changed nothing: the rows it loaded are the committed ones)."""
        table, hand, engine_hand, gen, seats = self.table, self.hand, self.engine_hand, self.cache_gen, self.seats
        hand_cache.expect(table)
        transaction.on_commit(lambda: hand_cache.store(table, hand, engine_hand, gen, seats=seats))

    def mutating(self) -> None:
        """Call before the engine hand changes: its cache entry is dropped until the commit."""
        self.cache_gen = hand_cache.invalidate(self.table.pk)

    @property
    def autoplay_due(self) -> bool:
        """A bot or 托管 seat must decide now (after ``save``): ``unit.autoplay`` has work."""
        hand = self.engine_hand
        return (hand is not None and not hand.finished and self.table.stage == "hand"
                and any(self.seats[s].autoplay for s in hand.to_act()))


def lock(table_id: int) -> Ctx:
    """Lock the table row and load it, its seats and current hand (the caller is in a transaction):
    from this process's cache when the row's key says it is current, else from the rows."""
    key = rows.lock_key(table_id)
    stages.locked()
    if key is None:
        raise TableError("no_table", "This table does not exist.")
    cached = hand_cache.get(table_id, key)
    if cached is not None:
        table, hand, engine_hand, seats = cached
    else:
        table = rows.read_table(table_id)
        seats = load_seats(table)
        hand, engine_hand = caught_up_hand(table) or current_hand(table)
    # Read after any catch-up dropped the older entry; only row-lock holders bump it, so it holds.
    gen = hand_cache.generation(table.pk)
    return Ctx(table, seats, hand, engine_hand, Outbox(table), cache_gen=gen)


# Events that may come between two moves of one hand without changing its hand row.
IN_HAND_EVENTS = frozenset({"action", "engine", "seat.online", "seat.timeout", "seat.tuoguan"})


def caught_up_hand(table: Table) -> tuple[Hand, object] | None:
    """This process's older cached hand, brought up to the table's ``seq`` by re-applying only the
    moves logged since (another process made them); None when that is not simply possible (the
    hand ended, a new one started, anything but moves happened) and the hand must be rebuilt."""
    older = hand_cache.take_older(table)
    if older is None:
        return None
    seq, hand, engine_hand = older
    if hand.status != HandStatus.PLAYING:
        return None
    rows = [(e.hand_id, e.type, e.payload) for e in since(table.pk, seq)]
    if len(rows) != table.seq - seq or any(h != hand.pk or t not in IN_HAND_EVENTS for h, t, _ in rows):
        return None
    before = len(engine_hand.events)
    try:
        apply_logged(engine_hand, [p for _, t, p in rows if t == "action"])
    except Exception:  # noqa: BLE001 - never trust a half-applied hand: rebuild it from the rows
        return None
    if len(engine_hand.events) - before != sum(t == "engine" for _, t, _ in rows):
        return None
    hand_cache.stats["caught_up"] += 1
    return hand, engine_hand


def load_seats(table: Table) -> list[Seat]:
    return list(Seat.objects.filter(table=table).select_related("user").order_by("index"))


def current_hand(table: Table) -> tuple[Hand | None, object]:
    """The table's last hand row and its engine hand: ``state`` as stored (as dealt, or as ended),
    then, while the hand is being played, every logged action after those already in ``state``."""
    hand = table.hands.order_by("-number").first()
    if hand is None:
        return None, None
    engine_hand = EngineHand.from_json(hand.state)
    if hand.status == HandStatus.PLAYING:
        done = len(hand.state.get("actions") or [])
        logged = [e.payload for e in hand_events(hand, types=("action",))]
        apply_logged(engine_hand, logged[done:])
    return hand, engine_hand


def now():
    return timezone.now()


def apply_logged(hand: EngineHand, payloads: list[dict]) -> None:
    """Re-apply logged ``action`` events (``{"seat", "action"}``) to a hand, in order."""
    for p in payloads:
        hand.apply(p["seat"], Action.from_wire(p["action"]))
