"""Leaderboards, kept incrementally: per member, a day, a month and an all-time bucket per club.

Points are game points: the score and piao lines of hands (``GAME_KINDS``). Table fees (桌费) are
left out on purpose: a fee is what the club charges for a seat, not a result of play, and counting
it would rank players by how few hands they played. Adjustments (上分/下分, dispute corrections) and
match money (entry fees, refunds, prizes) are not results of play either, and practice tables (match
tables among them) count for nothing. Balances, of course, include all of it.

The settlement of a hand adds its players' results to their buckets (``settlement_rows``) in the
same database transaction as the posting: on PostgreSQL inside the settlement's one statement
(``posting.post_settlement``), elsewhere through ``apply_rows`` inside its atomic block. So a
hand is counted exactly once, when and only when its ``hand:<id>`` transaction exists.

``rebuild_club`` (``manage.py rebuild_leaderboards``) recomputes a club's buckets from the ledger,
the repair for a bug or a manual fix; it must agree with the incremental result (tested). It holds
an exclusive advisory lock of the club on PostgreSQL; every settlement takes the shared one, so a
rebuild never misses nor double-counts a hand settled while it runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from .models import ALL_TIME_DAY, AccountKind, EntryKind, LeaderboardBucket, Span, TransactionKind
from .selectors import GAME_KINDS

# pg_advisory_xact_lock(LOCK_NAMESPACE, club_id): exclusive for a rebuild, shared for a settlement.
LOCK_NAMESPACE = 0x1EAD


@dataclass
class Stats:
    points: int = 0
    hands: int = 0
    wins: int = 0
    best_hand: int | None = None  # None: no hand with points (draws only)
    best_huxi: int = 0
    last_at: object = None  # datetime of the last counted hand
    fees: int = 0  # table fees (桌费) paid: not points, kept here for the club ledger's fee income

    def add(self, other: Stats) -> None:
        self.points += other.points
        self.hands += other.hands
        self.wins += other.wins
        if other.best_hand is not None:
            self.best_hand = other.best_hand if self.best_hand is None else max(self.best_hand, other.best_hand)
        self.best_huxi = max(self.best_huxi, other.best_huxi)
        self.fees += other.fees
        if self.last_at is None or (other.last_at is not None and other.last_at > self.last_at):
            self.last_at = other.last_at


def hand_stats(*, detail: dict, amounts: dict[int, int], has_amounts: bool, at, fees=None) -> dict[int, Stats]:
    """One settled hand's contribution per member: ``{user_id: Stats}``.

    ``detail`` is the transaction's frozen facts (seats, winner seat, 胡息, practice);
    ``amounts`` the member's game points of the hand (score + piao); ``has_amounts``: the hand has
    any game line of a member at all (a draw has none: it counts as a hand, not as a best hand);
    ``fees`` what each member paid in table fees.
    """
    if (detail or {}).get("practice"):
        return {}
    seats = {int(s): u for s, u in (detail.get("seats") or {}).items()}
    winner = detail.get("winner")
    winner_user = seats.get(int(winner)) if winner is not None else None
    huxi = int(detail.get("huxi") or 0)
    out: dict[int, Stats] = {}
    for user_id in seats.values():
        if user_id is None:  # a bot seat: the club account plays it
            continue
        st = Stats(last_at=at)
        st.hands = 1
        if has_amounts:
            st.points = st.best_hand = amounts.get(user_id, 0)
        if user_id == winner_user:
            st.wins = 1
            st.best_huxi = huxi
        st.fees = (fees or {}).get(user_id, 0)
        if user_id in out:  # one user in two seats (never in play): counted per seat
            out[user_id].add(st)
        else:
            out[user_id] = st
    return out


def spans(at) -> list[tuple[str, object]]:
    """The (span, day) keys of the buckets a hand settled at ``at`` adds to (local dates)."""
    day = timezone.localdate(at)
    return [(Span.DAY, day), (Span.MONTH, day.replace(day=1)), (Span.ALL, ALL_TIME_DAY)]


Row = tuple  # (user_id, span, day, points, hands, wins, best_hand, best_huxi, last_at, fees)


def _rows(per_user: dict[int, Stats], at) -> list[Row]:
    keys = spans(at)
    return sorted(
        (user_id, span, day, st.points, st.hands, st.wins, st.best_hand, st.best_huxi, st.last_at, st.fees)
        for user_id, st in per_user.items()
        for span, day in keys
    )


def settlement_rows(*, detail: dict, lines: Iterable, at) -> list[Row]:
    """The bucket increments of a hand's settlement (``settlement.hand_settlement``'s lines and
    detail), sorted by (user, span, day): the lock order of concurrent settlements."""
    seats = {int(s): u for s, u in ((detail or {}).get("seats") or {}).items()}
    amounts: dict[int, int] = defaultdict(int)
    fees: dict[int, int] = defaultdict(int)
    has_amounts = False
    for line in lines:
        user_id = seats.get(line.seat) if line.seat is not None else None
        if user_id is None:  # a bot seat's lines go to the club account
            continue
        if line.kind in GAME_KINDS:
            amounts[user_id] += line.amount
            has_amounts = True
        elif line.kind == EntryKind.FEE and line.amount < 0:  # the payer's −fee (the club's +fee has his seat too)
            fees[user_id] -= line.amount
    return _rows(hand_stats(detail=detail, amounts=amounts, has_amounts=has_amounts, at=at, fees=fees), at)


_TABLE = LeaderboardBucket._meta.db_table
_COLUMNS = "club_id, user_id, span, day, points, hands, wins, best_hand, best_huxi, last_at, fees"
# Adding a hand to an existing bucket; portable (PostgreSQL and SQLite): no GREATEST/MAX(a, b),
# whose handling of NULL differs.
_ON_CONFLICT = """
ON CONFLICT (club_id, span, day, user_id) DO UPDATE SET
    points = b.points + excluded.points,
    hands = b.hands + excluded.hands,
    wins = b.wins + excluded.wins,
    fees = b.fees + excluded.fees,
    best_hand = CASE WHEN excluded.best_hand IS NULL
                       OR (b.best_hand IS NOT NULL AND b.best_hand >= excluded.best_hand)
                     THEN b.best_hand ELSE excluded.best_hand END,
    best_huxi = CASE WHEN b.best_huxi >= excluded.best_huxi THEN b.best_huxi ELSE excluded.best_huxi END,
    last_at = CASE WHEN b.last_at >= excluded.last_at THEN b.last_at ELSE excluded.last_at END
"""

# PostgreSQL: part of posting.post_settlement's one statement (between its head and tail), run only if the
# transaction row was inserted; parameters: LOCK_NAMESPACE, club_id, club_id, then the rows as
# arrays (user, span, day, points, hands, wins, best_hand, best_huxi, last_at, fees).
PG_SETTLEMENT_CTE = f"""
, lb_lock AS (
    SELECT pg_advisory_xact_lock_shared(%s, %s) WHERE EXISTS (SELECT 1 FROM txn)
), lb AS (
    INSERT INTO {_TABLE} AS b ({_COLUMNS})
    SELECT %s, r.user_id, r.span, r.day, r.points, r.hands, r.wins, r.best_hand, r.best_huxi, r.last_at, r.fees
    FROM unnest(%s::bigint[], %s::varchar[], %s::date[], %s::bigint[], %s::int[], %s::int[], %s::bigint[],
                %s::int[], %s::timestamptz[], %s::bigint[]) WITH ORDINALITY AS r(user_id, span, day, points, hands,
                wins, best_hand, best_huxi, last_at, fees, n)
    WHERE EXISTS (SELECT 1 FROM lb_lock)
    ORDER BY r.n
    {_ON_CONFLICT}
)
"""


def pg_params(club_id: int, rows: list[Row]) -> list:
    columns = list(zip(*rows, strict=True)) if rows else [()] * 10
    return [LOCK_NAMESPACE, club_id, club_id, *[list(c) for c in columns]]


def apply_rows(*, club_id: int, rows: list[Row]) -> None:
    """Add ``settlement_rows`` to the buckets (inside the caller's transaction)."""
    if not rows:
        return
    ops = connection.ops
    params = [
        (club_id, user_id, span, ops.adapt_datefield_value(day), points, hands, wins, best_hand, best_huxi,
         ops.adapt_datetimefield_value(last_at), fees)
        for user_id, span, day, points, hands, wins, best_hand, best_huxi, last_at, fees in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {_TABLE} AS b ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) {_ON_CONFLICT}",
            params,
        )


# --- the repair: recompute from the ledger ------------------------------------------------------


def history_buckets(club_id: int, *, Transaction=None, Entry=None) -> dict[tuple, Stats]:
    """Every bucket of a club computed from its hand transactions and their member game entries:
    ``{(user_id, span, day): Stats}``. (Models can be passed in: a migration's historical ones.)"""
    if Transaction is None:
        from .models import Entry, Transaction
    amounts: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    fees: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    entries = Entry.objects.filter(
        transaction__club_id=club_id,
        transaction__kind=TransactionKind.HAND,
        account__kind=AccountKind.MEMBER,
        kind__in=[*GAME_KINDS, EntryKind.FEE],
    ).values_list("transaction_id", "account__user_id", "amount", "kind")
    for txn_id, user_id, amount, kind in entries.iterator(chunk_size=5000):
        if kind == EntryKind.FEE:
            fees[txn_id][user_id] -= amount
        else:
            amounts[txn_id][user_id] += amount
    buckets: dict[tuple, Stats] = defaultdict(Stats)
    txns = Transaction.objects.filter(club_id=club_id, kind=TransactionKind.HAND).values_list(
        "pk", "created_at", "detail"
    )
    for pk, created_at, detail in txns.iterator(chunk_size=2000):
        per_user = hand_stats(detail=detail or {}, amounts=amounts.get(pk, {}), has_amounts=pk in amounts,
                              at=created_at, fees=fees.get(pk))
        keys = spans(created_at)
        for user_id, st in per_user.items():
            for span, day in keys:
                buckets[(user_id, span, day)].add(st)
    return buckets


def _lock_exclusive(club_id: int) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, club_id])


def rebuild_club(*, club_id: int, Transaction=None, Entry=None, Bucket=None) -> int:
    """Replace a club's buckets by what its ledger says (one database transaction); the number of
    buckets. Settlements of the club wait while it runs (PostgreSQL advisory lock)."""
    Bucket = Bucket or LeaderboardBucket
    with transaction.atomic():
        _lock_exclusive(club_id)  # first: what we read next includes every settlement before us
        buckets = history_buckets(club_id, Transaction=Transaction, Entry=Entry)
        Bucket.objects.filter(club_id=club_id).delete()
        Bucket.objects.bulk_create(
            [
                Bucket(club_id=club_id, user_id=user_id, span=span, day=day, points=st.points, hands=st.hands,
                       wins=st.wins, best_hand=st.best_hand, best_huxi=st.best_huxi, last_at=st.last_at,
                       fees=st.fees)
                for (user_id, span, day), st in sorted(buckets.items())
            ],
            batch_size=2000,
        )
    return len(buckets)


def compare_club(*, club_id: int) -> list[str]:
    """What differs between a club's buckets and the ledger (empty: they agree). Read only."""
    want = history_buckets(club_id)
    have = {
        (b.user_id, b.span, b.day): Stats(b.points, b.hands, b.wins, b.best_hand, b.best_huxi, b.last_at, b.fees)
        for b in LeaderboardBucket.objects.filter(club_id=club_id)
    }
    problems = []
    for key in sorted(want.keys() | have.keys(), key=str):
        if want.get(key) != have.get(key):
            problems.append(f"club {club_id} bucket {key}: kept {have.get(key)}, ledger says {want.get(key)}")
    return problems
