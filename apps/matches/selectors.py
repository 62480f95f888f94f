"""Read side of matches: lists, live standings, round seatings, prize preview, permissions.

Every function runs a fixed number of queries, whatever the number of entrants or rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Case, QuerySet, Value, When

from apps.tables.models import OPEN_TABLE_STATUSES, Seat

from . import formats
from . import standings as standing_order
from .models import (
    BEFORE_START_STATES,
    HOLDING_PLACE,
    Entrant,
    EntrantStatus,
    Match,
    MatchRound,
    MatchState,
    MatchTable,
)


def club_matches(*, club) -> QuerySet[Match]:
    """The club's matches, newest start first (pages group them by ``state``)."""
    return Match.objects.filter(club=club).order_by("-starts_at", "-id")


ANNOUNCED_STATES = (*BEFORE_START_STATES, MatchState.RUNNING)
ANNOUNCED_MAX = 4


def club_announced(*, club, user=None, limit: int = ANNOUNCED_MAX) -> tuple[list[Match], dict[int, Entrant]]:
    """The club's running and coming matches for its page (running first, then the soonest start),
    and the viewer's entries in them by match id: two queries, whatever the club's history (a third
    when he plays a running one: does he sit its round out? ``match.round_byes``)."""
    matches = list(
        Match.objects.filter(club=club, state__in=ANNOUNCED_STATES)
        .annotate(running_first=Case(When(state=MatchState.RUNNING, then=Value(0)), default=Value(1)))
        .order_by("running_first", "starts_at", "id")[:limit]
    )
    entries: dict[int, Entrant] = {}
    if matches and user is not None and user.is_authenticated:
        entries = {e.match_id: e for e in Entrant.objects.filter(match__in=matches, user=user)}
    running = {m.pk: m for m in matches if m.state == MatchState.RUNNING}
    for m in running.values():
        m.round_byes = frozenset()
    between = [pk for pk, e in entries.items() if pk in running and e.status == EntrantStatus.ACTIVE
               and not e.current_table_id]
    if between:
        for match_id, number, byes in MatchRound.objects.filter(match_id__in=between).values_list(
                "match_id", "number", "byes"):
            if number == running[match_id].current_round:
                running[match_id].round_byes = frozenset(byes or ())
    return matches, entries


def my_matches(*, user) -> QuerySet[Entrant]:
    """The user's entrants across clubs (with their match and club), newest start first."""
    return (Entrant.objects.filter(user=user).select_related("match", "match__club", "current_table")
            .order_by("-match__starts_at", "-match_id"))


def entry_for(*, match, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    return Entrant.objects.filter(match=match, user=user).first()


@dataclass
class StandingRow:
    rank: int
    user_id: int
    name: str
    match_points: str  # display (formats.format_points)
    match_points_scaled: int
    game_points: int  # recorded tables + the running table's session total so far
    best_hand: int
    chips: int | None  # elimination only (live)
    current_table_id: int | None
    state: str  # "active" | "out" | "withdrawn"
    status: str  # the entry's status
    final_rank: int | None
    prize: int
    registered_order: int
    hands_played: int
    entrant: Entrant | None = None  # the row's entry (status.py derives the shown status from it)


def standings(*, match) -> list[StandingRow]:
    """Live standings: the final places once finished; while running, the format's one order
    (``standings.ordered``, as for the final places) with the running tables' scores. Three queries."""
    entrants = list(Entrant.objects.filter(match=match).select_related("user").order_by("registered_order"))
    if match.state in BEFORE_START_STATES:
        rows = [e for e in entrants if e.status in HOLDING_PLACE or e.status == EntrantStatus.WAITLISTED]
        return [_row(match, i, e, 0, "active") for i, e in enumerate(rows, start=1)]
    live: dict[int, int] = {}
    table_ids = [e.current_table_id for e in entrants if e.current_table_id]
    if table_ids:
        for user_id, score in Seat.objects.filter(
            table_id__in=table_ids, table__status__in=OPEN_TABLE_STATUSES, user__isnull=False,
        ).values_list("user_id", "score"):
            live[user_id] = score
    played = standing_order.played(entrants)
    if match.state == MatchState.FINISHED and all(e.rank for e in played):
        ordered = sorted(played, key=lambda e: e.rank)
    else:
        ordered = standing_order.ordered(match, played, live=live)
    out = []
    for i, e in enumerate(ordered, start=1):
        state = {"active": "active", "out": "out"}.get(e.status, "withdrawn")
        out.append(_row(match, i, e, live.get(e.user_id, 0) if e.current_table_id else 0, state))
    return out


def _row(match, i: int, e: Entrant, live: int, state: str) -> StandingRow:
    return StandingRow(
        rank=e.rank or i, user_id=e.user_id, name=getattr(e.user, "name", "") or e.user.username,
        match_points=formats.format_points(e.match_points, match.players),
        match_points_scaled=e.match_points, game_points=e.game_points + live, best_hand=e.best_hand,
        chips=(e.chips + live) if formats.FORMATS[match.format].uses_chips else None,
        current_table_id=e.current_table_id, state=state, status=e.status, final_rank=e.rank,
        prize=e.prize, registered_order=e.registered_order, hands_played=e.hands_played, entrant=e,
    )


@dataclass
class SeatingTable:
    number: int
    table_id: int
    seats: list[dict]  # [{"user_id", "name", "result": {...} | None}]
    finished: bool
    mine: bool = False  # the viewer (``round_seatings(viewer_id=...)``) sits at this table


@dataclass
class RoundSeating:
    number: int
    kind: str
    state: str
    hands: int
    tables: list[SeatingTable] = field(default_factory=list)
    byes: list[dict] = field(default_factory=list)
    repeats: int = 0
    avoid_broken: int = 0
    line: int | None = None
    reseated: bool = False
    players: list[int] = field(default_factory=list)


def round_seatings(*, match, viewer_id: int | None = None) -> list[RoundSeating]:
    """Every round's tables with names and results (three queries); ``mine`` marks the tables
    ``viewer_id`` sits at."""
    from django.contrib.auth import get_user_model

    rounds = list(MatchRound.objects.filter(match=match).order_by("number"))
    tables = list(MatchTable.objects.filter(match=match).order_by("round__number", "number"))
    ids = {u for t in tables for u in t.seats} | {u for r in rounds for u in r.byes}
    names = {u.pk: (u.name or u.username) for u in get_user_model().objects.filter(pk__in=ids)}
    by_round: dict[int, RoundSeating] = {}
    out = []
    for r in rounds:
        rs = RoundSeating(number=r.number, kind=r.kind, state=r.state, hands=r.hands,
                          byes=[{"user_id": u, "name": names.get(u, "")} for u in r.byes],
                          repeats=r.repeats, avoid_broken=r.avoid_broken, line=r.line, reseated=r.reseated,
                          players=list(r.players))
        by_round[r.pk] = rs
        out.append(rs)
    for t in tables:
        results = t.results or {}
        by_round[t.round_id].tables.append(SeatingTable(
            number=t.number, table_id=t.table_id, finished=t.results is not None, mine=viewer_id in t.seats,
            seats=[{"user_id": u, "name": names.get(u, ""), "result": results.get(str(u))} for u in t.seats],
        ))
    return out


SHARED_IP_DAYS = 30
SHARED_ADDRESS = "address"
ON_THE_LIST = "list"


def avoid_reasons(*, match, user_ids) -> dict[frozenset[int], set[str]]:
    """The pairs of these players seating keeps apart when it can, each with why: they shared an
    IP address in the last 30 days (``SHARED_ADDRESS``), or the club's never-together list has them
    (``ON_THE_LIST``). Two queries."""
    from datetime import timedelta

    from django.utils import timezone

    from apps.accounts.selectors import shared_address_pairs

    from .models import NeverTogether

    since = timezone.now() - timedelta(days=SHARED_IP_DAYS)
    out: dict[frozenset[int], set[str]] = {
        pair: {SHARED_ADDRESS} for pair in shared_address_pairs(user_ids=list(user_ids), since=since)}
    wanted = set(user_ids)
    for a, b in NeverTogether.objects.filter(club_id=match.club_id).values_list("user_a_id", "user_b_id"):
        if a in wanted and b in wanted:
            out.setdefault(frozenset((a, b)), set()).add(ON_THE_LIST)
    return out


@dataclass
class TogetherPair:
    round: int
    table: int
    names: tuple[str, str] | None  # None: not shown to this viewer (players see the reason only)
    shared_address: bool
    on_the_list: bool


def kept_together(*, match, seatings: list[RoundSeating] | None, names: bool) -> list[TogetherPair]:
    """The pairs that seating should have kept apart but could not (a round's ``avoid_broken``),
    with why; ``names``: with the players' names (managers). Two more queries, only when a round
    broke a pair."""
    seatings = round_seatings(match=match) if seatings is None else seatings
    if not any(r.avoid_broken for r in seatings):
        return []
    ids = {s["user_id"] for r in seatings for t in r.tables for s in t.seats}
    reasons = avoid_reasons(match=match, user_ids=ids)
    out = []
    for r in seatings:
        if not r.avoid_broken:
            continue
        for t in r.tables:
            for i, a in enumerate(t.seats):
                for b in t.seats[i + 1:]:
                    why = reasons.get(frozenset((a["user_id"], b["user_id"])))
                    if why:
                        out.append(TogetherPair(r.number, t.number, (a["name"], b["name"]) if names else None,
                                                SHARED_ADDRESS in why, ON_THE_LIST in why))
    return out


@dataclass
class PrizePreview:
    entrants: int
    pool: int
    amounts: list[int]  # places 1, 2, ...
    house: int  # > 0: the club account keeps it; < 0: the club pays it (fixed prizes beyond the pool)


def prize_preview(*, match) -> PrizePreview:
    """The prizes for the current number of entrants (before the start: those holding a place;
    then: everyone who played, with the pool actually held)."""
    from apps.ledgers.models import Account

    if match.state in BEFORE_START_STATES:
        entrants = Entrant.objects.filter(match=match, status__in=HOLDING_PLACE).count()
        pool = entrants * match.entry_fee
    elif match.state == MatchState.FINISHED:
        paid = list(Entrant.objects.filter(match=match, rank__isnull=False).order_by("rank")
                    .values_list("prize", flat=True))
        entrants = len(paid)
        amounts = list(paid)
        pool = sum(amounts)
        return PrizePreview(entrants, pool, amounts, 0)
    else:
        entrants = len(standing_order.played(list(Entrant.objects.filter(match=match).only(
            "status", "out_round"))))
        pool = Account.objects.filter(pk=match.escrow_id).values_list("balance", flat=True).first() or 0
    amounts = formats.prize_amounts(pool, match.prize_scheme, entrants) if entrants else []
    return PrizePreview(entrants, pool, amounts, pool - sum(amounts))


def not_checked_in(*, match) -> list[Entrant]:
    """The admin console's list: registered entrants who have not checked in yet."""
    return list(Entrant.objects.filter(match=match, status=EntrantStatus.REGISTERED).select_related("user")
                .order_by("registered_order"))


def never_together(*, club):
    from .models import NeverTogether

    return NeverTogether.objects.filter(club=club).select_related("user_a", "user_b")
