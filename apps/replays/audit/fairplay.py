"""信息优势 (issue #44) on the platform: asking for a player's (or a pair's) fair-play score over a
period of a club, computing it once on the ``review`` queue, and the nightly sweep.

The engine's part is ``apps.engine.analysis.fairplay`` (README "Fair play"): per hand and seat it
weighs each decision from the seat's own view and from a better-informed one; ``score`` pools the
decisions of many hands into a z and a p-value.

- ``fairplay_request``: one row per (club, subject, period) whatever the number of parallel requests
  (the partial unique constraints decide); only the request that made the row (or revived a failed
  or lost one) enqueues the task, after commit. Asking again returns the stored row.
- ``fairplay_compute`` (the task's work): claims the row (pending → running) with one conditional
  UPDATE, runs the engine outside any transaction over the subject's most recent finished hands of
  the period (at most ``FAIRPLAY_MAX_HANDS``), and stores the result with another (running → done).
- ``fairplay_sweep`` (beat, nightly): asks for the players with at least ``FAIRPLAY_SWEEP_MIN_HANDS``
  finished hands since their last result, at most ``FAIRPLAY_SWEEP_MAX_PLAYERS`` a night.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from apps.clubs.models import Club, Membership
from apps.engine.analysis.fairplay import fairplay as engine_fairplay
from apps.engine.analysis.fairplay import score as engine_score
from apps.tables.models import Hand, HandStatus
from config.celery import send_on_commit

from ..export import hand_record
from .models import FairPlayResult, FairPlayStatus, PlayerDay

log = logging.getLogger(__name__)

# A run not finished after this long was lost (its worker died): the next request starts it again.
STALE_RUN = timedelta(hours=2)
TOP_HANDS = 10  # the hands with the most telling decisions kept for the page


@dataclass
class FairPlayError(Exception):
    """Bad input to a request: ``code`` is stable (the page words it), nothing was changed."""

    code: str


def _members(club: Club, user_ids: list[int]) -> bool:
    return Membership.objects.filter(club=club, user_id__in=user_ids).count() == len(set(user_ids))


def result_of(*, club: Club, user_id: int, partner_id: int | None, since: date, until: date) -> FairPlayResult | None:
    return FairPlayResult.objects.filter(club=club, user_id=user_id, partner_id=partner_id, since=since,
                                         until=until).first()


def fairplay_request(*, club: Club, user_id: int, partner_id: int | None = None, since: date, until: date,
                     by=None) -> FairPlayResult:
    """Ask for the score of a player (or of a pair) of ``club`` over [since, until] (dates, inclusive).

    FairPlayError("not_member") when the subject is not of the club, ("bad_period"), ("same_player")."""
    if partner_id is not None:
        if partner_id == user_id:
            raise FairPlayError("same_player")
        user_id, partner_id = min(user_id, partner_id), max(user_id, partner_id)
    if since > until:
        raise FairPlayError("bad_period")
    if not _members(club, [user_id] + ([partner_id] if partner_id else [])):
        raise FairPlayError("not_member")
    key = {"club": club, "user_id": user_id, "partner_id": partner_id, "since": since, "until": until}
    existing = result_of(**key)
    if existing is not None and existing.status in (FairPlayStatus.PENDING, FairPlayStatus.DONE):
        return existing  # asked for already: stored, or on its way
    try:
        with transaction.atomic():
            row = FairPlayResult.objects.create(
                **key, requested_by=by, status=FairPlayStatus.PENDING, seed=f"fairplay:{club.pk}",
                budget_ms=float(settings.FAIRPLAY_BUDGET_MS), max_hands=int(settings.FAIRPLAY_MAX_HANDS))
    except IntegrityError:  # made by an earlier or a parallel request: that one enqueued it
        row = FairPlayResult.objects.get(club=club, user_id=user_id, partner_id=partner_id, since=since, until=until)
        lost = Q(status=FairPlayStatus.RUNNING, started_at__lt=timezone.now() - STALE_RUN)
        revived = FairPlayResult.objects.filter(Q(status=FairPlayStatus.FAILED) | lost, pk=row.pk).update(
            status=FairPlayStatus.PENDING, error="", requested_by=by, started_at=None, finished_at=None)
        row.refresh_from_db()
        if not revived:
            return row
    from .tasks import compute_fairplay

    send_on_commit(compute_fairplay, row.pk)
    return row


def _seat_of(hand: Hand, user_id: int) -> int | None:
    for seat, uid in (hand.players or {}).items():
        if uid == user_id:
            return int(seat)
    return None


def subject_hands(row: FairPlayResult) -> list[tuple[Hand, dict[int, int]]]:
    """The subject's finished hands of the period in the club, most recent first (at most
    ``row.max_hands``), each with the seats to weigh: {seat: its user}."""
    start = timezone.make_aware(datetime.combine(row.since, time.min))  # local midnights: the index's range
    end = timezone.make_aware(datetime.combine(row.until + timedelta(days=1), time.min))
    hands = (Hand.objects.filter(table__club_id=row.club_id, table__practice=False, status=HandStatus.FINISHED,
                                 finished_at__gte=start, finished_at__lt=end)
             .exclude(seed="").select_related("table").order_by("-finished_at", "-pk"))
    subject = [row.user_id] + ([row.partner_id] if row.partner_id else [])
    out = []
    for hand in hands.iterator(chunk_size=200):
        seats = {_seat_of(hand, uid): uid for uid in subject}
        if None in seats:
            continue
        out.append((hand, seats))
        if len(out) >= row.max_hands:
            break
    return out


def _brief(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d.get(k) for k in ("index", "seat", "chosen", "own_best", "informed_best", "telling", "matched",
                                  "gain", "feed_telling", "feed_matched")}


def fairplay_compute(*, result_id: int) -> str:
    """The task's work: ``done``, ``failed``, or ``skipped`` (not pending: done, or another run has it)."""
    claimed = FairPlayResult.objects.filter(pk=result_id, status=FairPlayStatus.PENDING).update(
        status=FairPlayStatus.RUNNING, started_at=timezone.now())
    if not claimed:
        return "skipped"
    row = FairPlayResult.objects.get(pk=result_id)
    decisions: list[dict[str, Any]] = []
    telling_hands: list[dict[str, Any]] = []
    counted = unreadable = 0
    try:
        for hand, seats in subject_hands(row):
            try:
                record = hand_record(hand)
                for seat, uid in seats.items():
                    see: str | list[int] = "all" if row.partner_id is None else [s for s in seats if s != seat]
                    found = engine_fairplay(record, seat, see, seed=f"{row.seed}:{hand.pk}:{hand.seed_hash}",
                                            budget_ms=row.budget_ms)
                    decisions.extend(found)
                    telling = [_brief(d) for d in found if d["telling"] or d["feed_telling"]]
                    if telling:
                        telling_hands.append({"hand": hand.pk, "number": hand.number, "table": hand.table.name,
                                              "finished_at": hand.finished_at.isoformat(), "seat": seat,
                                              "user": uid, "decisions": telling})
            except ValueError:  # a record the engine cannot re-run: left out, counted
                log.warning("fair play %s: hand %s left out", result_id, hand.pk, exc_info=True)
                unreadable += 1
                continue
            counted += 1
        summary = engine_score(decisions, "all" if row.partner_id is None else [0])
    except Exception:  # noqa: BLE001 - stored as failed, asked for again later
        log.exception("fair play %s failed", result_id)
        FairPlayResult.objects.filter(pk=result_id, status=FairPlayStatus.RUNNING).update(
            status=FairPlayStatus.FAILED, error="engine", finished_at=timezone.now())
        return "failed"
    telling_hands.sort(key=lambda h: (-len(h["decisions"]), h["hand"], h["seat"]))
    stored = FairPlayResult.objects.filter(pk=result_id, status=FairPlayStatus.RUNNING).update(
        status=FairPlayStatus.DONE, hands=counted, decisions=summary["decisions"], telling=summary["telling"],
        score=summary["score"], p=summary["p"], flagged=summary["flagged"],
        result={"summary": summary, "top_hands": telling_hands[:TOP_HANDS], "unreadable": unreadable},
        finished_at=timezone.now())
    return "done" if stored else "skipped"


def sweep_candidates(*, today: date | None = None) -> list[tuple[int, int, int]]:
    """(club, user, new hands) of the players with at least FAIRPLAY_SWEEP_MIN_HANDS finished hands
    (the audit's day rows) since the end of their last result's period, within the last
    FAIRPLAY_PERIOD_DAYS days; the most new hands first, at most FAIRPLAY_SWEEP_MAX_PLAYERS."""
    today = today or timezone.localdate()
    start = today - timedelta(days=int(settings.FAIRPLAY_PERIOD_DAYS) - 1)
    last: dict[tuple[int, int], date] = {}
    for club_id, user_id, until in (FairPlayResult.objects.filter(partner__isnull=True, until__gte=start)
                                    .exclude(status=FairPlayStatus.FAILED)
                                    .values_list("club_id", "user_id", "until")):
        last[(club_id, user_id)] = max(until, last.get((club_id, user_id), until))
    new: dict[tuple[int, int], int] = defaultdict(int)
    for club_id, user_id, day, hands in PlayerDay.objects.filter(day__gte=start, day__lte=today).values_list(
            "club_id", "user_id", "day", "hands"):
        if day > last.get((club_id, user_id), start - timedelta(days=1)):
            new[(club_id, user_id)] += hands
    picked = sorted(((c, u, n) for (c, u), n in new.items() if n >= int(settings.FAIRPLAY_SWEEP_MIN_HANDS)),
                    key=lambda t: (-t[2], t[0], t[1]))
    return picked[:int(settings.FAIRPLAY_SWEEP_MAX_PLAYERS)]


def fairplay_sweep(*, today: date | None = None) -> int:
    """Beat, nightly: ask for the score of each candidate over the last FAIRPLAY_PERIOD_DAYS days."""
    today = today or timezone.localdate()
    since = today - timedelta(days=int(settings.FAIRPLAY_PERIOD_DAYS) - 1)
    asked = 0
    for club_id, user_id, _n in sweep_candidates(today=today):
        try:
            fairplay_request(club=Club.objects.get(pk=club_id), user_id=user_id, since=since, until=today)
        except FairPlayError:  # left the club since
            continue
        asked += 1
    return asked
