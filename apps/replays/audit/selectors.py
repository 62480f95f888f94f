"""Read side of the audit: the collusion report (from the precomputed rows only) and disputes.

The report costs a fixed handful of queries whatever the number of hands: one aggregate over the
pair-day rows of the period, one over the player-day rows, the shared addresses and the names.

Score (0–100) of a pair {A, B}: five signals, each turned into a part between 0 and 1 by dividing
by a reference — the larger of a fixed floor and the club's 90th percentile of that signal over
all pairs of the period — and capping at 1; the score is 100 × the mean of the five parts. One
signal alone gives at most 20, so only a pair with several signals ranks high.

1. Feeding — for the stronger direction A→B: z = (k − E) / √(V + 1), k = A's discards B took
   (吃/碰/胡) out of n discarded while B sat; E = Σ n_i·p_i and V = Σ n_i·p_i·(1−p_i) over two
   seatings (B right after A — his 下家, who alone may 吃 a discard — or not), p_i = B's rate of
   taking everyone else's discards in that seating, shrunk towards the club's with 30
   pseudo-cards. Floor 3.
2. Declined 胡 — for the stronger direction: hands where A passed up a 胡 and B won. Floor 2.
3. Points flow — |Σ net points from A to B| / √(Σ per-hand net² + 1). Floor 3.
4. Shared address — 1 − (the share of the club's pairs that also share one), 0 without.
5. Together — times they sat down at or left one table within 20 s of each other. Floor 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet, Sum
from django.utils import timezone

from apps.ledgers.models import Entry, Transaction
from apps.ledgers.sweeps import pending_hand_ids
from apps.tables.models import Hand

from .models import (
    Dispute,
    DisputeStatus,
    FairPlayResult,
    FairPlayStatus,
    PairAddress,
    PairDay,
    PairHand,
    PairMonth,
    PlayerDay,
    PlayerMonth,
    ProcessedHand,
)
from .services import PAIR_FIELDS, PLAYER_FIELDS

SWEEP_GRACE_SECONDS = 60  # younger hands are still in their own on_commit task
PRIOR_CARDS = 30  # pseudo-cards at the club's rate in a player's baseline
SIGNALS = ("feeding", "declined", "flow", "address", "together")
FLOORS = {"feeding": 3.0, "declined": 2.0, "flow": 3.0, "together": 2.0}
REVIEW_SCORE = 40  # two signals at full strength


def unrecorded_hand_ids(*, limit: int = 1000, grace_seconds: int = SWEEP_GRACE_SECONDS) -> list[int]:
    """Finished non-practice hands without statistics, oldest first (the beat sweep's input), only
    those finished since the sweep's mark (``apps.ledgers.sweeps``)."""
    done = Exists(ProcessedHand.objects.filter(hand_id=OuterRef("pk")))
    return pending_hand_ids(name="audit.unrecorded", done=done, limit=limit, grace_seconds=grace_seconds,
                            where=Q(table__practice=False))


# --- the collusion report ---------------------------------------------------------------------


@dataclass
class Direction:
    giver: int
    taker: int
    discards: int = 0
    discards_taken: int = 0
    next_discards: int = 0  # the part of discards where taker sat right after giver
    next_discards_taken: int = 0
    shows: int = 0
    shows_taken: int = 0
    wins: int = 0
    declined: int = 0
    declined_then_won: int = 0
    declined_points: int = 0
    points: float = 0.0
    baseline: float = 0.0  # taker's expected rate on these discards, from everyone else's
    feed_z: float = 0.0

    @property
    def rate(self) -> float | None:
        return self.discards_taken / self.discards if self.discards else None

    @property
    def expected(self) -> float:
        return self.discards * self.baseline


@dataclass
class PairRow:
    a: int
    b: int
    names: tuple[str, str] = ("", "")
    hands: int = 0
    ab: Direction | None = None  # a → b
    ba: Direction | None = None  # b → a
    points_sq: float = 0.0  # Σ per-hand net², both directions alike
    flow_z: float = 0.0
    ips: list[str] = field(default_factory=list)
    joins: int = 0
    leaves: int = 0
    parts: dict[str, float] = field(default_factory=dict)
    score: float = 0.0

    @property
    def net(self) -> float:
        """Net points from a to b (negative: b paid a)."""
        return self.ab.points - self.ba.points

    def name(self, user_id: int) -> str:
        return self.names[0] if user_id == self.a else self.names[1]

    @property
    def members(self) -> tuple[tuple[int, str], tuple[int, str]]:
        """(user id, name) of both players (the 信息优势 column's rows)."""
        return (self.a, self.names[0]), (self.b, self.names[1])

    @property
    def net_names(self) -> tuple[str, str]:
        """(payer, receiver) of the net points flow."""
        return self.names if self.net >= 0 else (self.names[1], self.names[0])

    @property
    def net_abs(self) -> float:
        return abs(self.net)

    @property
    def feed_names(self) -> tuple[str, str]:
        return self.name(self.feed.giver), self.name(self.feed.taker)

    @property
    def decline_name(self) -> str:
        return self.name(self.decline.giver)

    @property
    def feed(self) -> Direction:
        return self.ab if self.ab.feed_z >= self.ba.feed_z else self.ba

    @property
    def decline(self) -> Direction:
        return self.ab if self.ab.declined_then_won >= self.ba.declined_then_won else self.ba

    @property
    def values(self) -> dict[str, float]:
        return {
            "feeding": max(self.feed.feed_z, 0.0),
            "declined": float(self.decline.declined_then_won),
            "flow": self.flow_z,
            "address": 1.0 if self.ips else 0.0,
            "together": float(self.joins + self.leaves),
        }

    @property
    def signal_count(self) -> int:
        return sum(1 for v in self.parts.values() if v >= 0.5)

    @property
    def flagged(self) -> bool:
        return self.score >= REVIEW_SCORE


@dataclass
class Report:
    since: date | None
    until: date | None
    pairs: list[PairRow]
    refs: dict[str, float]
    club_rate: float
    address_share: float


def period_sums(day_model, month_model, *, club, since: date | None, until: date | None, keys, fields) -> list[dict]:
    """The counters summed over since..until (inclusive; open ends: all the club's days) per key:
    whole months from ``month_model``, the days of partial months from ``day_model``."""
    first = day_model.objects.filter(club=club).order_by("day").values_list("day", flat=True).first()
    if first is None:
        return []
    today = timezone.localdate()
    start, end = max(since or first, first), min(until or today, today)
    months, days = [], Q(pk__in=[])
    month = start.replace(day=1)
    while month <= end:
        following = (month + timedelta(days=32)).replace(day=1)
        lo, hi = max(start, month), min(end, following - timedelta(days=1))
        if lo == month and hi == following - timedelta(days=1):
            months.append(month)
        else:
            days |= Q(day__gte=lo, day__lte=hi)
        month = following
    sums: dict[tuple, dict] = {}
    for model, where in ((month_model, Q(day__in=months)), (day_model, days)):
        if model is month_model and not months:
            continue
        rows = (model.objects.filter(where, club=club).values(*keys)
                .annotate(**{f: Sum(f) for f in fields}).order_by())
        for r in rows:
            key = tuple(r[k] for k in keys)
            if key in sums:
                for f in fields:
                    sums[key][f] = (sums[key][f] or 0) + (r[f] or 0)
            else:
                sums[key] = r
    return list(sums.values())


def _bounds(since: date | None, until: date | None) -> tuple[datetime | None, datetime | None]:
    tz = timezone.get_current_timezone()
    start = datetime.combine(since, time.min, tzinfo=tz) if since else None
    end = datetime.combine(until + timedelta(days=1), time.min, tzinfo=tz) if until else None
    return start, end


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _club_rates(players) -> dict[str, float]:
    """The club's rates of taking a discard: of one's 上家 ("next"), of the others, of anyone."""
    tot = {k: sum(p[k] or 0 for p in players) for k in ("discards_seen", "discards_taken", "next_seen", "next_taken")}
    other_seen = tot["discards_seen"] - tot["next_seen"]
    other_taken = tot["discards_taken"] - tot["next_taken"]
    return {
        "all": tot["discards_taken"] / tot["discards_seen"] if tot["discards_seen"] else 0.0,
        "next": tot["next_taken"] / tot["next_seen"] if tot["next_seen"] else 0.0,
        "other": other_taken / other_seen if other_seen else 0.0,
    }


def _feeding(d: Direction, taker: dict, rates: dict[str, float]) -> None:
    """Expected takes of giver's discards by taker, from taker's own rates on everyone else's
    discards — separately as their 下家 and otherwise (seating decides who may 吃), each shrunk
    towards the club's rate with PRIOR_CARDS pseudo-cards — and the z of what happened."""
    seen, taken = taker.get("discards_seen") or 0, taker.get("discards_taken") or 0
    next_seen, next_taken = taker.get("next_seen") or 0, taker.get("next_taken") or 0
    n_next, k_next = d.next_discards, d.next_discards_taken
    n_other, k_other = d.discards - n_next, d.discards_taken - k_next
    p_next = (max(next_taken - k_next, 0) + PRIOR_CARDS * rates["next"]) / (
        max(next_seen - n_next, 0) + PRIOR_CARDS)
    p_other = (max(taken - next_taken - k_other, 0) + PRIOR_CARDS * rates["other"]) / (
        max(seen - next_seen - n_other, 0) + PRIOR_CARDS)
    expected = n_next * p_next + n_other * p_other
    variance = n_next * p_next * (1 - p_next) + n_other * p_other * (1 - p_other)
    d.baseline = expected / d.discards if d.discards else p_other
    d.feed_z = (d.discards_taken - expected) / math.sqrt(variance + 1)


def names_of(user_ids) -> dict[int, str]:
    User = get_user_model()
    return {u.pk: u.name for u in User.objects.filter(pk__in=list(user_ids))}


def collusion_report(*, club, since: date | None = None, until: date | None = None) -> Report:
    pair_sums = period_sums(PairDay, PairMonth, club=club, since=since, until=until, keys=("giver", "taker"),
                            fields=PAIR_FIELDS)
    player_sums = {r["user"]: r for r in period_sums(PlayerDay, PlayerMonth, club=club, since=since, until=until,
                                                     keys=("user",), fields=PLAYER_FIELDS)}
    rates = _club_rates(player_sums.values())
    club_rate = rates["all"]

    pairs: dict[tuple[int, int], PairRow] = {}
    for r in pair_sums:
        g, t = r["giver"], r["taker"]
        key = (min(g, t), max(g, t))
        row = pairs.setdefault(key, PairRow(a=key[0], b=key[1]))
        d = Direction(giver=g, taker=t, **{f: r[f] or 0 for f in (
            "discards", "discards_taken", "next_discards", "next_discards_taken", "shows", "shows_taken",
            "wins", "declined", "declined_then_won", "declined_points", "points")})
        _feeding(d, player_sums.get(t, {}), rates)
        if g == key[0]:
            row.ab = d
            row.hands, row.joins, row.leaves = r["hands"] or 0, r["joins_together"] or 0, r["leaves_together"] or 0
            row.points_sq = r["points_sq"] or 0.0
        else:
            row.ba = d
    for row in pairs.values():
        row.ab = row.ab or Direction(giver=row.a, taker=row.b)
        row.ba = row.ba or Direction(giver=row.b, taker=row.a)
        row.flow_z = abs(row.net) / math.sqrt(row.points_sq + 1)

    start, end = _bounds(since, until)
    addresses = PairAddress.objects.filter(club=club)
    if start:
        addresses = addresses.filter(last_seen__gte=start)
    if end:
        addresses = addresses.filter(first_seen__lt=end)
    for a, b, ip in addresses.values_list("user_a", "user_b", "ip"):
        if (a, b) in pairs:
            pairs[(a, b)].ips.append(ip)
    rows = list(pairs.values())
    address_share = sum(1 for r in rows if r.ips) / len(rows) if rows else 0.0

    values = [r.values for r in rows]
    refs = {k: max(FLOORS[k], _quantile([v[k] for v in values], 0.9)) for k in FLOORS}
    for row, v in zip(rows, values, strict=True):
        row.parts = {k: min(1.0, v[k] / refs[k]) for k in FLOORS}
        row.parts["address"] = (1.0 - address_share) if v["address"] else 0.0
        row.score = 100 * sum(row.parts[k] for k in SIGNALS) / len(SIGNALS)

    names = names_of({u for key in pairs for u in key})
    for row in rows:
        row.names = (names.get(row.a, "?"), names.get(row.b, "?"))
    rows.sort(key=lambda r: (-r.score, -r.hands, r.a, r.b))
    return Report(since=since, until=until, pairs=rows, refs=refs, club_rate=club_rate,
                  address_share=address_share)


def pair_row(report: Report, a: int, b: int) -> PairRow | None:
    key = (min(a, b), max(a, b))
    return next((r for r in report.pairs if (r.a, r.b) == key), None)


def pair_known(*, club, a: int, b: int) -> bool:
    """Whether the pair has any statistics in the club (whatever the period)."""
    return PairDay.objects.filter(club=club, giver_id=a, taker_id=b).exists()


def empty_pair(a: int, b: int) -> PairRow:
    names = names_of([a, b])
    return PairRow(a=a, b=b, names=(names.get(a, "?"), names.get(b, "?")), ab=Direction(giver=a, taker=b),
                   ba=Direction(giver=b, taker=a), parts=dict.fromkeys(SIGNALS, 0.0))


def pair_hands(*, club, a: int, b: int, since: date | None = None, until: date | None = None) -> QuerySet:
    """The hands the pair played together in the period, newest first: both directions in one row
    each (the a→b row, with the b→a numbers annotated)."""
    start, end = _bounds(since, until)
    qs = PairHand.objects.filter(club=club, giver_id=a, taker_id=b)
    if start:
        qs = qs.filter(finished_at__gte=start)
    if end:
        qs = qs.filter(finished_at__lt=end)
    return qs.select_related("hand", "hand__table").order_by("-finished_at", "-hand_id")


def reverse_rows(*, hand_ids, a: int, b: int) -> dict[int, PairHand]:
    return {r.hand_id: r for r in PairHand.objects.filter(hand_id__in=list(hand_ids), giver_id=b, taker_id=a)}


# --- disputes ---------------------------------------------------------------------------------


def club_disputes(*, club, status: str | None = None) -> QuerySet[Dispute]:
    qs = Dispute.objects.filter(club=club).select_related("filed_by", "hand", "hand__table", "reviewer",
                                                          "resolved_by", "adjustment_user")
    if status in DisputeStatus.values:
        qs = qs.filter(status=status)
    return qs


def user_disputes(*, user) -> QuerySet[Dispute]:
    return Dispute.objects.filter(filed_by=user).select_related("club", "hand", "hand__table", "adjustment_user")


def hand_ledger_lines(*, hand_ids) -> dict[int, list[Entry]]:
    """The ledger entries of these hands' settlements (key ``hand:<id>``), one query."""
    out: dict[int, list[Entry]] = {}
    entries = (Entry.objects.filter(transaction__hand_id__in=list(hand_ids), transaction__kind="hand")
               .select_related("account__user", "transaction").order_by("transaction__hand_id", "seat", "id"))
    for e in entries:
        out.setdefault(e.transaction.hand_id, []).append(e)
    return out


def hand_settlements(*, hand_ids) -> dict[int, dict]:
    """The settled hands among these (their ``hand:<id>`` transaction exists) -> its ``detail``
    (``draw``: a 荒庄), one query; a settled draw may have no lines at all."""
    rows = Transaction.objects.filter(hand_id__in=list(hand_ids), kind="hand").values_list("hand_id", "detail")
    return {hand_id: (detail if isinstance(detail, dict) else {}) for hand_id, detail in rows}


def hand_players(hand: Hand) -> list[tuple[int, int | None, str]]:
    """(seat, user id or None, name) of a hand's seats."""
    seats = {int(s): u for s, u in (hand.players or {}).items()}
    names = names_of([u for u in seats.values() if u is not None])
    return [(s, u, names.get(u, "") if u is not None else "") for s, u in sorted(seats.items())]


# --- 信息优势 (fairplay.py) ----------------------------------------------------------------------


def latest_fairplay(*, club, user_ids) -> dict[int, FairPlayResult]:
    """The latest finished single-player 信息优势 result of each of ``user_ids`` in ``club`` (one query)."""
    rows = (FairPlayResult.objects.filter(club=club, user_id__in=list(user_ids), partner__isnull=True,
                                          status=FairPlayStatus.DONE).order_by("user_id", "-finished_at", "-pk"))
    latest: dict[int, FairPlayResult] = {}
    for row in rows:
        latest.setdefault(row.user_id, row)
    return latest


def by_fairplay(pairs: list, latest: dict[int, FairPlayResult]) -> list:
    """The report's pairs, the pair whose stronger player's latest 信息优势 score is highest first
    (pairs with no score last, each group in the report's own order): the column's sort."""
    def key(pair):
        scores = [latest[u].score for u in (pair.a, pair.b) if u in latest and latest[u].score is not None]
        return (0, -max(scores)) if scores else (1, 0.0)

    return sorted(pairs, key=key)


def fairplay_result(*, club, result_id: int) -> FairPlayResult | None:
    return FairPlayResult.objects.select_related("user", "partner").filter(club=club, pk=result_id).first()


def club_players(*, club) -> list[tuple[int, str]]:
    """(user id, name) of the club's members, by name: the 信息优势 request form's choices."""
    from apps.clubs.models import Membership

    members = Membership.objects.filter(club=club).select_related("user").order_by("user__username")
    return [(m.user_id, m.user.name) for m in members]


def fairplay_history(*, row: FairPlayResult, limit: int = 10) -> list[FairPlayResult]:
    """The subject's other 信息优势 results in the club (latest first): the page's history."""
    return list(FairPlayResult.objects.filter(club_id=row.club_id, user_id=row.user_id, partner_id=row.partner_id)
                .exclude(pk=row.pk).order_by("-created_at", "-pk")[:limit])


def latest_pair_fairplay(*, club, a: int, b: int) -> FairPlayResult | None:
    """The pair's latest 信息优势 result (any status), a < b."""
    return (FairPlayResult.objects.filter(club=club, user_id=min(a, b), partner_id=max(a, b))
            .order_by("-created_at", "-pk").first())
