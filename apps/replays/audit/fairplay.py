"""信息优势 (issue #44) on the platform: asking for a player's (or a pair's) fair-play score over a
period of a club, computing it once on the ``review`` queue, and the nightly sweep.

The engine's part is ``apps.engine.analysis.fairplay`` (README "Fair play"): per hand and seat it
weighs each decision from the seat's own view and from a better-informed one; ``score`` pools the
decisions of many hands into a z and a p-value.

- ``fairplay_request``: one row per (club, subject, period) whatever the number of parallel requests
  (the partial unique constraints decide); only the request that made the row (or revived a failed
  or lost one) enqueues the task, after commit. Asking again returns the stored row.
- ``fairplay_compute`` (fairplay_work.py, the task's work): claims the row (pending → running) with one conditional
  UPDATE, runs the engine outside any transaction over the subject's most recent finished hands of
  the period (at most ``FAIRPLAY_MAX_HANDS``), and stores the result with another (running → done).
- ``tasks.sweep_fairplay`` (beat, nightly; fairplay_work.py ``sweep_rows``): asks for the players with at least ``FAIRPLAY_SWEEP_MIN_HANDS``
  finished hands since their last result, at most ``FAIRPLAY_SWEEP_MAX_PLAYERS`` a night.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from apps.clubs.models import Club
from config.celery import send_on_commit

from .fairplay_work import claim, fairplay_compute, members, result_of, subject_hands, sweep_candidates
from .models import FairPlayResult

__all__ = ["FairPlayError", "fairplay_compute", "fairplay_request", "result_of", "subject_hands", "sweep_candidates"]


@dataclass
class FairPlayError(Exception):
    """Bad input to a request: ``code`` is stable (the page words it), nothing was changed."""

    code: str


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
    if not members(club.pk, [user_id] + ([partner_id] if partner_id else [])):
        raise FairPlayError("not_member")
    row, new = claim(club=club, user_id=user_id, partner_id=partner_id, since=since, until=until, by=by)
    if new:
        from .tasks import compute_fairplay

        send_on_commit(compute_fairplay, row.pk)
    return row
