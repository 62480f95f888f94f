"""Running a match: start it when its time comes, record each finished table, seat the next round
or finish and pay the prizes. The format (``formats.of(match)``) decides seating, who goes out
and the order; this module only reads the rows the format needs and stores what it decided.

Every move runs in one transaction under the match row lock; new rounds and tables are unique in
the database (one round per (match, number), one table per (round, number)), so ``advance`` may
be called from anywhere, any number of times at once.

Hands at match tables are played for match standings only: the tables are arranged practice
tables (no club points move; the ledger still posts an empty settlement per hand). A player who
made no move of his own at a table and was put on 托管 by time-outs (or started it still on 托管
from being absent) was absent that round; absent two rounds in a row → withdrawn (托管 finishes
his table; he keeps his place in the standings below those still playing).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from apps.clubs.models import Membership
from apps.tables.models import ENDED_TABLE_STATUSES, OPEN_TABLE_STATUSES
from apps.tables.read import selectors as table_selectors
from apps.tables.transaction.context import TableError
from apps.tables.verbs import arranged

from .. import formats, selectors, standings
from ..models import (
    BEFORE_START,
    BEFORE_START_STATES,
    Entrant,
    EntrantStatus,
    Match,
    MatchRound,
    MatchState,
    MatchTable,
    RoundKind,
    RoundState,
)
from . import clock, escrow, reminders
from .base import lock, now_or
from .definition import cancel

log = logging.getLogger(__name__)


# ---- start ------------------------------------------------------------------------------------------


def start_due(now=None) -> list[int]:
    """Move every match whose time has come (open/close registration, start); the ids moved."""
    now = now_or(now)
    due = list(
        Match.objects.filter(state__in=BEFORE_START_STATES, registration_opens_at__lte=now)
        .exclude(state=MatchState.REGISTERING, registration_closes_at__gt=now, starts_at__gt=now)
        .exclude(state=MatchState.CHECKING_IN, starts_at__gt=now)
        .values_list("pk", flat=True)
    )
    moved = []
    for match_id in due:
        try:
            with transaction.atomic():
                match = lock(match_id)
                before = match.state
                clock.apply(match, now)
                if match.state in (MatchState.REGISTERING, MatchState.CHECKING_IN) and now >= match.starts_at:
                    if match.state == MatchState.REGISTERING:
                        clock.close_registration(match)
                    _start(match, now)
                if match.state != before:
                    moved.append(match_id)
        except Exception:  # noqa: BLE001 - one broken match must not stop the others
            log.exception("starting match %s failed", match_id)
    return moved


def _start(match: Match, now) -> None:
    entrants = list(Entrant.objects.filter(match=match).order_by("registered_order"))
    field = [e for e in entrants if e.status == EntrantStatus.CHECKED_IN]
    for entrant in entrants:  # checked-in waitlisted entrants take places nobody checked in for
        if entrant.status == EntrantStatus.WAITLISTED and entrant.checked_in_at and len(field) < match.max_entrants:
            field.append(entrant)
    chosen = {e.pk for e in field}
    for entrant in entrants:
        if entrant.pk not in chosen and entrant.status in BEFORE_START:
            entrant.status = EntrantStatus.DROPPED
            escrow.refund(match, entrant, reason="not_checked_in")
            entrant.save(update_fields=["status", "refunded"])
    needed = max(match.min_entrants, match.players)
    if len(field) < needed:
        cancel(match, reason=_("Too few entrants: %(n)s checked in, %(min)s needed. Every fee was refunded.")
               % {"n": len(field), "min": needed})
        return
    fmt = formats.of(match)
    for entrant in field:
        entrant.status = EntrantStatus.ACTIVE
        entrant.chips = fmt.start_chips()
    Entrant.objects.bulk_update(field, ["status", "chips"])
    match.state, match.started_at = MatchState.RUNNING, now
    match.save(update_fields=["state", "started_at"])
    plan = fmt.first_round([e.user_id for e in field], seed=bytes.fromhex(match.seed_secret),
                           avoid=lambda ids: _avoid(match, ids))
    _open_round(match, number=1, plan=plan, entrants={e.user_id: e for e in field}, play=True)
    match.seed = match.seed_secret  # revealed: round 1 is seated
    match.save(update_fields=["seed"])


def _avoid(match: Match, user_ids) -> set[frozenset[int]]:
    """Pairs never to seat together when avoidable: shared IP in the last 30 days ∪ the club's list."""
    return set(selectors.avoid_reasons(match=match, user_ids=user_ids))


def _open_round(match: Match, *, number: int, plan: formats.NextRound, entrants: dict[int, Entrant],
                away: set[int] = frozenset(), play: bool) -> MatchRound:
    """Create the round and its tables (unique per (match, number) and (round, number): a second
    advancer fails here instead of seating twice). ``play``: let the new tables' 托管 seats play
    right after the commit (not when called from inside another table's move)."""
    seat = plan.seating
    final = plan.kind == formats.FINAL
    mround = MatchRound.objects.create(
        match=match, number=number, kind=RoundKind.FINAL if final else RoundKind.ROUND, hands=plan.hands,
        players=plan.players, byes=list(seat.byes), repeats=seat.repeats, avoid_broken=seat.avoid_broken,
    )
    users = get_user_model().objects.in_bulk([u for t in seat.tables for u in t])
    for i, ids in enumerate(seat.tables, start=1):
        # The stored name is in the site's language (zh-hans), whichever language the request or
        # task that seats the round happens to run in; pages build their heading in the viewer's.
        with translation.override(settings.LANGUAGE_CODE):
            name = MatchTable.title(match.name, final=final, round_number=number, number=i)
        table = arranged.arranged_open(
            club=match.club, users=[users[u] for u in ids], rules=match, hands=plan.hands,
            name=name, template=match.template, by=None, practice=True,
            tuoguan={u for u in ids if u in away}, hold=match.paused,
        )
        MatchTable.objects.create(match=match, round=mround, number=i, table=table, seats=list(ids))
        reminders.table_ready(match=match, round_number=number, table_id=table.pk, user_ids=ids)
        for u in ids:
            entrants[u].current_table = table
    bye_points = formats.of(match).bye_points()
    for u in seat.byes:
        entrants[u].byes += 1
        entrants[u].match_points += bye_points
        entrants[u].current_table = None
    Entrant.objects.bulk_update(list(entrants.values()), ["current_table", "byes", "match_points"])
    match.current_round = number
    match.in_final = match.in_final or final
    match.save(update_fields=["current_round", "in_final"])
    if play:
        table_ids = list(MatchTable.objects.filter(round=mround).values_list("table_id", flat=True))
        transaction.on_commit(lambda: play_tables(table_ids))
    return mround


def play_tables(table_ids: list[int]) -> None:
    """Let 托管 seats of these tables play what is due now (``unit.autoplay``: a no-op when bots
    are paced, then the deadline beat plays them)."""
    from apps.tables.transaction.unit import autoplay

    for table_id in table_ids:
        try:
            autoplay(table_id=table_id)
        except TableError:
            log.exception("autoplay of table %s failed", table_id)


# ---- advance ------------------------------------------------------------------------------------------


def advance(*, match_id: int, play: bool = True) -> bool:
    """Record finished tables of a running match and, when its round is over, seat the next round
    or finish. Idempotent and safe to call from anywhere, any number of times at once.
    ``play=False``: do not autoplay the new round's 托管 seats after the commit (receivers.py: we
    run inside another table's move; the beat or the deadlines play them)."""
    with transaction.atomic():
        match = lock(match_id)
        if match.state != MatchState.RUNNING:
            return False
        recorded = _record(match)
        mround = MatchRound.objects.filter(match=match, number=match.current_round).first()
        if mround is None or mround.state == RoundState.FINISHED:
            return recorded
        if MatchTable.objects.filter(round=mround, results__isnull=True).exists():
            return recorded
        mround.state, mround.finished_at = RoundState.FINISHED, timezone.now()
        _next(match, mround, play=play)
        mround.save(update_fields=["state", "finished_at", "line"])
        return True


def _record(match: Match) -> bool:
    """Write the results of the match's tables that ended and are not recorded yet (once: the
    ``results`` column is filled under the match lock)."""
    pending = list(MatchTable.objects.filter(match=match, results__isnull=True,
                                             table__status__in=ENDED_TABLE_STATUSES))
    if not pending:
        return False
    play = table_selectors.seat_play(table_ids=[mt.table_id for mt in pending])
    entrants = {e.user_id: e for e in Entrant.objects.filter(match=match)}
    fmt = formats.of(match)
    for mt in pending:
        game = {u: sum(play.hand_totals.get((mt.table_id, u), [])) for u in mt.seats}
        mpoints = fmt.table_points(game)
        order = sorted(mt.seats, key=lambda u: (-game[u], entrants[u].registered_order))
        results = {}
        for index, u in enumerate(mt.seats):
            entrant = entrants[u]
            hands = play.hand_totals.get((mt.table_id, u), [])
            best = max(hands) if hands else 0
            seat = (mt.table_id, index)
            absent = seat not in play.moved and (seat in play.timed_out or entrant.absent_rounds > 0)
            results[str(u)] = {"game_points": game[u], "best_hand": best, "rank": order.index(u) + 1,
                               "match_points": mpoints.get(u, 0), "absent": absent, "hands": len(hands),
                               "tuoguan": seat in play.tuoguan}
            entrant.game_points += game[u]
            entrant.best_hand = max(entrant.best_hand, best) if entrant.hands_played else best
            entrant.hands_played += len(hands)
            entrant.match_points += mpoints.get(u, 0)
            entrant.chips += fmt.chips_won(game[u])
            entrant.absent_rounds = entrant.absent_rounds + 1 if absent else 0
            if entrant.current_table_id == mt.table_id:
                entrant.current_table = None
            if entrant.status == EntrantStatus.ACTIVE and entrant.absent_rounds >= 2:
                entrant.status, entrant.out_round = EntrantStatus.WITHDRAWN, match.current_round
        mt.results, mt.finished_at = results, timezone.now()
        mt.save(update_fields=["results", "finished_at"])
    Entrant.objects.bulk_update(list(entrants.values()), [
        "game_points", "best_hand", "hands_played", "match_points", "chips", "absent_rounds",
        "current_table", "status", "out_round"])
    return True


def _met(match: Match) -> set[frozenset[int]]:
    met: set[frozenset[int]] = set()
    for seats in MatchTable.objects.filter(match=match).values_list("seats", flat=True):
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                met.add(frozenset((a, b)))
    return met


def _next(match: Match, mround: MatchRound, *, play: bool) -> None:
    """The round is over: seat the next one or finish (the caller holds the lock)."""
    entrants = {e.user_id: e for e in Entrant.objects.filter(match=match)}
    members = set(Membership.objects.filter(club_id=match.club_id, user_id__in=list(entrants))
                  .values_list("user_id", flat=True))
    for entrant in entrants.values():  # a player who left the club cannot be seated again
        if entrant.status == EntrantStatus.ACTIVE and entrant.user_id not in members:
            entrant.status, entrant.out_round = EntrantStatus.WITHDRAWN, mround.number
            entrant.save(update_fields=["status", "out_round"])
    tables = list(MatchTable.objects.filter(round=mround).order_by("number"))
    active = [e for e in entrants.values() if e.status == EntrantStatus.ACTIVE]
    fmt = formats.of(match)
    done = formats.RoundDone(
        number=mround.number, final=mround.kind == RoundKind.FINAL,
        active=[formats.Standing(user_id=e.user_id, registered_order=e.registered_order,
                                 match_points=e.match_points, game_points=e.game_points, best_hand=e.best_hand,
                                 chips=e.chips, had_bye=bool(e.byes), item=e) for e in active],
        tables=[list(t.seats) for t in tables],
        results=[{int(u): r for u, r in (t.results or {}).items()} for t in tables],
        byes=list(mround.byes), gone={u for u, e in entrants.items() if e.status != EntrantStatus.ACTIVE},
        met=_met(match), avoid=lambda ids: _avoid(match, ids), seed=bytes.fromhex(match.seed),
        stage_hands=match.stage_hands,
    )
    plan = fmt.next_round(done)
    if plan is None:
        _finish(match)
        return
    for u in plan.out:
        entrants[u].status, entrants[u].out_round = EntrantStatus.OUT, mround.number
        entrants[u].save(update_fields=["status", "out_round"])
    if plan.stage_hands is not None:
        match.stage_hands = plan.stage_hands
        match.save(update_fields=["stage_hands"])
    mround.line = plan.line
    # Players still on 托管 at the end of their table start the next round on 托管.
    away = {int(u) for t in tables for u, r in (t.results or {}).items() if r.get("tuoguan")}
    _open_round(match, number=mround.number + 1, plan=plan, entrants=entrants, away=away, play=play)


# ---- finish -------------------------------------------------------------------------------------------


def final_order(match: Match) -> list[Entrant]:
    """Everyone who played, best first (the final places): the format's one order."""
    return standings.ordered(match, standings.played(list(Entrant.objects.filter(match=match))))


def _finish(match: Match) -> None:
    order = final_order(match)
    for place, entrant in enumerate(order, start=1):
        entrant.rank = place
        entrant.current_table = None
    Entrant.objects.bulk_update(order, ["rank", "current_table"])
    escrow.pay_prizes(match, order)
    match.state, match.finished_at = MatchState.FINISHED, timezone.now()
    match.save(update_fields=["state", "finished_at"])


def running_match_ids() -> list[int]:
    return list(Match.objects.filter(state=MatchState.RUNNING).values_list("pk", flat=True))


def open_table_ids(*, match_id: int) -> list[int]:
    return list(MatchTable.objects.filter(match_id=match_id, table__status__in=OPEN_TABLE_STATUSES)
                .values_list("table_id", flat=True))
