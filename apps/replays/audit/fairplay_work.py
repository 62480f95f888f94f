"""信息优势 (issue #44), the stored side: a result row asked for once (``claim``), the task's work
(``fairplay_compute``) and the nightly sweep's rows (``sweep_rows``). fairplay.py asks (and
enqueues through tasks.py); tasks.py runs this. It imports neither, so the three form no circle."""

from __future__ import annotations

import logging
from collections import defaultdict
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

from ..export import hand_record
from .models import FairPlayResult, FairPlayStatus, PlayerDay

log = logging.getLogger(__name__)

# A run not finished after this long was lost (its worker died): the next request starts it again.
STALE_RUN = timedelta(hours=2)
TOP_HANDS = 10  # the hands with the most telling decisions kept for the page


def members(club_id: int, user_ids: list[int]) -> bool:
    return Membership.objects.filter(club_id=club_id, user_id__in=user_ids).count() == len(set(user_ids))


def result_of(*, club: Club, user_id: int, partner_id: int | None, since: date, until: date) -> FairPlayResult | None:
    return FairPlayResult.objects.filter(club=club, user_id=user_id, partner_id=partner_id, since=since,
                                         until=until).first()


def claim(*, club: Club, user_id: int, partner_id: int | None, since: date, until: date,
          by=None) -> tuple[FairPlayResult, bool]:
    """The row of (club, subject, period) and whether the caller must enqueue its task: True when
    this call made it, or revived a failed or lost one; False when it is stored or on its way."""
    key = {"club": club, "user_id": user_id, "partner_id": partner_id, "since": since, "until": until}
    existing = result_of(**key)
    if existing is not None and existing.status in (FairPlayStatus.PENDING, FairPlayStatus.DONE):
        return existing, False  # asked for already: stored, or on its way
    try:
        with transaction.atomic():
            row = FairPlayResult.objects.create(
                **key, requested_by=by, status=FairPlayStatus.PENDING, seed=f"fairplay:{club.pk}",
                budget_ms=float(settings.FAIRPLAY_BUDGET_MS), max_hands=int(settings.FAIRPLAY_MAX_HANDS))
    except IntegrityError:  # made by an earlier or a parallel request: that one enqueued it
        row = FairPlayResult.objects.get(**key)
        lost = Q(status=FairPlayStatus.RUNNING, started_at__lt=timezone.now() - STALE_RUN)
        revived = FairPlayResult.objects.filter(Q(status=FairPlayStatus.FAILED) | lost, pk=row.pk).update(
            status=FairPlayStatus.PENDING, error="", requested_by=by, started_at=None, finished_at=None)
        row.refresh_from_db()
        if not revived:
            return row, False
    return row, True


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


def sweep_rows(*, today: date | None = None) -> list[int]:
    """Beat, nightly: the rows asked for each candidate over the last FAIRPLAY_PERIOD_DAYS days;
    the ids whose task the caller must enqueue."""
    today = today or timezone.localdate()
    since = today - timedelta(days=int(settings.FAIRPLAY_PERIOD_DAYS) - 1)
    ids = []
    for club_id, user_id, _n in sweep_candidates(today=today):
        if not members(club_id, [user_id]):  # left the club since
            continue
        row, new = claim(club=Club.objects.get(pk=club_id), user_id=user_id, partner_id=None, since=since,
                         until=today)
        if new:
            ids.append(row.pk)
    return ids
