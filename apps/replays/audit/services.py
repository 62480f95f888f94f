"""Write side of the audit: per-hand statistics (exactly once) and the dispute lifecycle.

``record_hand`` is called by the Celery task ``audit.record_hand`` for every finished hand (and by
the beat sweep for hands whose task was lost); it never runs on a page load.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts import notices
from apps.accounts.selectors import shared_address_pairs
from apps.clubs import access
from apps.clubs import services as club_services
from apps.clubs.models import Membership
from apps.ledgers.services import adjustment_create
from apps.tables.models import Hand
from apps.tables.storage.eventlog import TableLog, hand_events
from apps.tables.storage.records import hand_record

from .hand_signals import card_signals, flows
from .models import (
    Dispute,
    DisputeKind,
    DisputeStatus,
    PairAddress,
    PairDay,
    PairHand,
    PairMonth,
    PlayerDay,
    PlayerMonth,
    ProcessedHand,
)

# Two players who sit down at (or get up from) one table within this many seconds of each other
# "join together" / "leave together".
TOGETHER_SECONDS = 20

PAIR_FIELDS = (
    "hands", "points", "points_sq", "discards", "discards_taken", "next_discards", "next_discards_taken",
    "shows", "shows_taken", "wins",
    "declined", "declined_then_won", "declined_points", "shared_ip_hands", "joins_together", "leaves_together",
)
PLAYER_FIELDS = (
    "hands", "discards_seen", "discards_taken", "next_seen", "next_taken", "shows_seen", "shows_taken", "hu_chances", "declined",
)


def _seat_users(hand: Hand) -> dict[int, int]:
    """Human players of the hand by seat (bot seats are left out)."""
    return {int(s): int(u) for s, u in (hand.players or {}).items() if u is not None}


def record_hand(*, hand_id: int) -> str:
    """Add one finished hand to its club's statistics; "recorded", or why not.

    Exactly once: the ``ProcessedHand`` row (unique per hand) is inserted in the transaction that
    adds the counters; a duplicate delivery finds it and adds nothing ("already").
    """
    if ProcessedHand.objects.filter(hand_id=hand_id).exists():
        return "already"
    hand = Hand.objects.select_related("table").filter(pk=hand_id).first()
    if hand is None:
        return "missing"
    if hand.status != "finished":
        return "not_finished"
    table = hand.table
    if table.practice:
        return "practice"
    seats = _seat_users(hand)
    signals = card_signals(hand_record(hand))  # the engine re-run happens outside the transaction
    finished_at = hand.finished_at or hand.started_at
    day = timezone.localdate(finished_at)
    together = _together(hand) if hand.number == 1 else Counter()
    shared = shared_address_pairs(user_ids=list(seats.values())) if len(seats) > 1 else {}
    pair_rows, player_rows, pair_hands = _counts(hand, seats, signals, shared, together, finished_at)
    try:
        with transaction.atomic():
            ProcessedHand.objects.create(hand=hand, club_id=table.club_id, replayed=signals.replayed)
            for pairs, players, at in ((PairDay, PlayerDay, day), (PairMonth, PlayerMonth, day.replace(day=1))):
                _bump(pairs, table.club_id, at, pair_rows, ("giver_id", "taker_id"), PAIR_FIELDS)
                _bump(players, table.club_id, at, player_rows, ("user_id",), PLAYER_FIELDS)
            PairHand.objects.bulk_create(pair_hands)
            _record_addresses(table.club_id, shared, seats, finished_at)
    except IntegrityError:
        if ProcessedHand.objects.filter(hand_id=hand_id).exists():
            return "already"  # a concurrent delivery recorded it first
        raise
    return "recorded"


def _counts(hand, seats, signals, shared, together, finished_at):
    totals = {int(s): int(v) for s, v in ((hand.totals or {}).get("total") or {}).items()}
    flow = flows(totals)
    winner = (hand.result or {}).get("winner")
    players = int((hand.ruleset or {}).get("players") or len(hand.players or {}) or 3)

    def is_next(giver: int, taker: int) -> bool:  # taker is giver's 下家
        return (giver + 1) % players == taker

    pair_rows: dict[tuple, Counter] = defaultdict(Counter)
    player_rows: dict[tuple, Counter] = defaultdict(Counter)
    pair_hands = []
    for s, u in seats.items():
        row = player_rows[(u,)]
        row["hands"] += 1
        row["hu_chances"] += signals.hu_chances[s]
        row["declined"] += signals.declined[s]
        for o in seats:
            if o == s:
                continue
            row["discards_seen"] += signals.discards[o]
            row["discards_taken"] += signals.taken[(o, s, "discard")]
            if is_next(o, s):
                row["next_seen"] += signals.discards[o]
                row["next_taken"] += signals.taken[(o, s, "discard")]
            row["shows_seen"] += signals.shows[o]
            row["shows_taken"] += signals.taken[(o, s, "show")]
    for a, ua in seats.items():  # a: giver, b: taker
        for b, ub in seats.items():
            if a == b:
                continue
            row = pair_rows[(ua, ub)]
            points = flow.get((a, b), 0.0)
            net = points - flow.get((b, a), 0.0)
            row["hands"] += 1
            row["points"] += points
            row["points_sq"] += net * net
            row["discards"] += signals.discards[a]
            row["discards_taken"] += signals.taken[(a, b, "discard")]
            if is_next(a, b):
                row["next_discards"] += signals.discards[a]
                row["next_discards_taken"] += signals.taken[(a, b, "discard")]
            row["shows"] += signals.shows[a]
            row["shows_taken"] += signals.taken[(a, b, "show")]
            row["wins"] += signals.wins[(a, b)]
            if signals.declined[a]:
                row["declined"] += signals.declined[a]
                row["declined_then_won"] += 1 if winner == b else 0
                row["declined_points"] += totals.get(b, 0)
            if frozenset((ua, ub)) in shared:
                row["shared_ip_hands"] += 1
            pair_hands.append(PairHand(
                club_id=hand.table.club_id, hand=hand, finished_at=finished_at, giver_id=ua, taker_id=ub,
                points=points, taken=signals.taken[(a, b, "discard")] + signals.taken[(a, b, "show")],
                wins=signals.wins[(a, b)], declined=signals.declined[a],
            ))
    for (kind, ua, ub), n in together.items():  # both directions alike
        pair_rows[(ua, ub)][kind] += n
        pair_rows[(ub, ua)][kind] += n
    return pair_rows, player_rows, pair_hands


def _together(hand: Hand) -> Counter:
    """Pairs who sat down at / got up from this hand's table within TOGETHER_SECONDS of each other.

    Seats are taken and left only before a table starts, so the first hand of a table sees every
    such event; each pair counts once per table and kind.
    """
    occupant: dict[int, int] = {}
    moves: dict[str, list] = {"joins_together": [], "leaves_together": []}
    for ev in TableLog(hand.table_id).of_types(("seat.join", "seat.leave")):
        seat = ev.payload.get("seat")
        if ev.type == "seat.join" and ev.payload.get("user") is not None:
            occupant[seat] = int(ev.payload["user"])
            moves["joins_together"].append((ev.created_at, occupant[seat]))
        elif ev.type == "seat.leave" and seat in occupant:
            moves["leaves_together"].append((ev.created_at, occupant.pop(seat)))
    out: Counter = Counter()
    window = timedelta(seconds=TOGETHER_SECONDS)
    for kind, items in moves.items():
        pairs = set()
        for i, (t1, u1) in enumerate(items):
            for t2, u2 in items[i + 1:]:
                if u1 != u2 and abs(t2 - t1) <= window:
                    pairs.add((min(u1, u2), max(u1, u2)))
        for a, b in pairs:
            out[(kind, a, b)] += 1
    return out


def _bump(model, club_id, day, rows: dict[tuple, Counter], key_fields: tuple[str, ...], fields) -> None:
    """Add ``rows`` ({key: {field: n}}) to the day's rows of ``model``: create the missing rows
    (ignoring the ones a concurrent hand just created), then one ``SET f = f + n`` per row.

    Increments happen in SQL, so concurrent hands of one club add up (the UPDATE locks the row);
    rows are updated in key order, so two hands never wait on each other in a cycle.
    """
    if not rows:
        return
    keys = sorted(rows)
    model.objects.bulk_create(
        [model(club_id=club_id, day=day, **dict(zip(key_fields, key, strict=True))) for key in keys],
        ignore_conflicts=True,
    )
    table = connection.ops.quote_name(model._meta.db_table)
    q = connection.ops.quote_name
    sets = ", ".join(f"{q(f)} = {q(f)} + %s" for f in fields)
    where = " AND ".join(f"{q(f)} = %s" for f in ("club_id", "day", *key_fields))
    day_value = connection.ops.adapt_datefield_value(day)
    params = [[*(rows[key][f] for f in fields), club_id, day_value, *key] for key in keys]
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET {sets} WHERE {where}", params)  # noqa: S608 - names only


def _record_addresses(club_id, shared, seats, seen_at) -> None:
    users = set(seats.values())
    rows = [(min(p), max(p), ip) for p, ips in shared.items() if p <= users for ip in ips]
    if not rows:
        return
    PairAddress.objects.bulk_create(
        [PairAddress(club_id=club_id, user_a_id=a, user_b_id=b, ip=ip, first_seen=seen_at, last_seen=seen_at)
         for a, b, ip in rows],
        ignore_conflicts=True,
    )
    cond = Q()
    for a, b, ip in rows:
        cond |= Q(user_a_id=a, user_b_id=b, ip=ip)
    PairAddress.objects.filter(cond, club_id=club_id, last_seen__lt=seen_at).update(last_seen=seen_at)


# --- disputes ----------------------------------------------------------------------------------

AUDIT_DISPUTE_FILE = "dispute.file"
AUDIT_DISPUTE_REVIEW = "dispute.review"
AUDIT_DISPUTE_RESOLVE = "dispute.resolve"
MAX_TEXT = 2000


def _clean_text(text: str, *, empty_message: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError(empty_message)
    if len(text) > MAX_TEXT:
        raise ValidationError(_("Keep it under %(n)d characters.") % {"n": MAX_TEXT})
    return text


def dispute_create(*, user, hand: Hand, reason: str, kind: str = DisputeKind.OTHER,
                   step: int | None = None) -> Dispute:
    """A player of an ended hand files a dispute on it (one in progress per player and hand): what
    it is about (``kind``) and, if he points at one, the replay step (0 = the deal, k = the k-th
    action)."""
    if hand.status == "playing" or user.pk not in _seat_users(hand).values():
        raise PermissionDenied(_("You can only dispute a hand you played, once it has ended."))
    reason = _clean_text(reason, empty_message=_("Say what is wrong with this hand."))
    if kind not in DisputeKind.values:
        raise ValidationError(_("Choose what the dispute is about."))
    if step is not None:
        steps = len(hand_events(hand, ("action",)))
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= steps:
            raise ValidationError(_("This hand has steps 0 to %(n)d.") % {"n": steps})
    club = hand.table.club
    try:
        with transaction.atomic():
            dispute = Dispute.objects.create(club=club, hand=hand, filed_by=user, reason=reason, kind=kind,
                                             step=step)
            club_services.audit_log(club=club, actor=user, action=AUDIT_DISPUTE_FILE,
                                    detail={"dispute": dispute.pk, "hand": hand.pk, "kind": kind, "step": step})
    except IntegrityError as exc:
        raise ValidationError(_("You already have a dispute open on this hand.")) from exc
    # Those who may judge it hear of it on whatever page they are: the club's managers who did not
    # play in the hand (judge_refusal's rule), once each.
    notices.notify_each(recipient_ids=_judges(club, hand), kind="dispute_filed", key=f"dispute:{dispute.pk}:filed",
                        params={"name": user.name, "table": hand.table.name, "number": hand.number},
                        url=reverse("audit:dispute", args=[club.pk, dispute.pk]))
    return dispute


def _judges(club, hand: Hand):
    """The user ids of the club's managers who may judge a dispute on ``hand``: those who did not
    play in it (judge_refusal's rule; the site's staff judge too, but hear nothing)."""
    return Membership.objects.filter(club=club, role__in=access.MANAGER_ROLES).exclude(
        user_id__in=_seat_users(hand).values()).values_list("user_id", flat=True)


def _tell_other_judges(dispute: Dispute, by, kind: str) -> None:
    """The club's other judges hear that ``by`` took up or resolved ``dispute`` (so two of them do
    not answer one dispute, and their open-disputes badge and dispute pages refresh themselves)."""
    others = set(_judges(dispute.club, dispute.hand)) - {by.pk}
    notices.notify_each(recipient_ids=others, kind=kind, key=f"dispute:{dispute.pk}:{kind}",
                        params={"name": by.name, "table": dispute.hand.table.name, "number": dispute.hand.number},
                        url=reverse("audit:dispute", args=[dispute.club_id, dispute.pk]))


def judge_refusal(*, dispute: Dispute, user) -> str | None:
    """Why ``user`` may not review or resolve ``dispute``, or None when he may: the club's owner and
    admins and the site's staff judge disputes, but never one about a hand they played in (another
    manager of the club, or staff, does)."""
    membership = Membership.objects.filter(club_id=dispute.club_id, user_id=user.pk).first()
    if not (access.is_manager(membership) or user.is_staff):
        return _("Your role in this club does not allow this.")
    if user.pk in _seat_users(dispute.hand).values():
        return _("You played in this hand, so another admin of the club or the site's staff handles this dispute.")
    return None


def _require_judge(dispute: Dispute, user) -> None:
    refusal = judge_refusal(dispute=dispute, user=user)
    if refusal:
        raise PermissionDenied(refusal)


def _locked(dispute: Dispute, club) -> Dispute:
    locked = Dispute.objects.select_for_update().filter(pk=dispute.pk, club=club).first()
    if locked is None:
        raise PermissionDenied(_("This dispute is not one of this club's."))
    return locked


def dispute_review(*, dispute: Dispute, by) -> Dispute:
    """open → reviewing, by a judge (``judge_refusal``)."""
    club = dispute.club
    _require_judge(dispute, by)
    with transaction.atomic():
        dispute = _locked(dispute, club)
        if dispute.status != DisputeStatus.OPEN:
            raise ValidationError(_("Only an open dispute can be taken into review."))
        dispute.status, dispute.reviewer, dispute.reviewing_at = DisputeStatus.REVIEWING, by, timezone.now()
        dispute.save(update_fields=["status", "reviewer", "reviewing_at"])
        club_services.audit_log(club=club, actor=by, action=AUDIT_DISPUTE_REVIEW, target_user=dispute.filed_by,
                                detail={"dispute": dispute.pk, "hand": dispute.hand_id})
        _tell_other_judges(dispute, by, "dispute_reviewing")
    return dispute


def dispute_resolve(*, dispute: Dispute, by, outcome: str, member_id: int | None = None,
                    amount: int | None = None) -> Dispute:
    """open/reviewing → resolved with an outcome; optionally one correcting 上分/下分 (ledger key
    ``dispute:<id>``, so it is posted at most once) to a player of the hand, by a judge
    (``judge_refusal``); the adjustment itself only by the club's owner or an admin (the ledger's rule)."""
    club = dispute.club
    _require_judge(dispute, by)
    outcome = _clean_text(outcome, empty_message=_("Write the outcome the player will see."))
    if (member_id is None) != (amount is None):
        raise ValidationError(_("An adjustment needs both a player and an amount."))
    with transaction.atomic():
        dispute = _locked(dispute, club)
        if dispute.status == DisputeStatus.RESOLVED:
            raise ValidationError(_("This dispute is already resolved."))
        if amount is not None:
            if not isinstance(amount, int) or isinstance(amount, bool) or amount == 0:
                raise ValidationError(_("The amount must be a non-zero whole number."))
            if member_id not in _seat_users(dispute.hand).values():
                raise ValidationError(_("An adjustment can only go to a player of this hand."))
            member = Membership.objects.filter(club=club, user_id=member_id).select_related("user").first()
            if member is None:
                raise ValidationError(_("This player is no longer a member of the club."))
            result = adjustment_create(
                club=club, member=member, amount=amount, by=by, idempotency_key=dispute.idempotency_key,
                reason=outcome[:200], detail={"what": "dispute", "dispute": dispute.pk},
            )
            dispute.adjustment = result.transaction
            dispute.adjustment_user_id, dispute.adjustment_amount = member_id, amount
        dispute.status, dispute.outcome = DisputeStatus.RESOLVED, outcome
        dispute.resolved_by, dispute.resolved_at = by, timezone.now()
        dispute.save()
        club_services.audit_log(
            club=club, actor=by, action=AUDIT_DISPUTE_RESOLVE, target_user=dispute.filed_by,
            detail={"dispute": dispute.pk, "hand": dispute.hand_id, "outcome": outcome[:200],
                    "amount": amount, "member": member_id, "transaction": dispute.adjustment_id},
        )
        # The one who filed it hears of the answer on whatever page he is (once: the key).
        notices.notify(recipient_id=dispute.filed_by_id, kind="dispute_answered", key=f"dispute:{dispute.pk}:answered",
                       params={"table": dispute.hand.table.name, "number": dispute.hand.number},
                       url=reverse("audit:my_disputes"))
        _tell_other_judges(dispute, by, "dispute_resolved")
    return dispute
