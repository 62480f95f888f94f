"""Arranged tables: a table opened by a service (not by a player) with given users in given seats.

A tables-level service that knows nothing of who arranges it (matches seat their rounds with it).
The table takes the given rule snapshot and plays ``hands`` hands; every seat is ready at once, so
the session starts by itself (the piao phase first where the rules have one), and — when a
``session_policy`` receiver answers ``auto_ready`` for it (signals.py) — each next hand too. A
player who is absent is treated by the usual deadlines (``play.deadline_fire``: time-outs, then
托管 after two), so an empty chair never stalls the table.

Everything goes through the unit of work (unit.py, with ``play=False``: the arranger plays 托管
seats itself), session.py (``maybe_start``) and transitions.py (``do_sit``): nothing of the session
logic is duplicated here.
"""

from __future__ import annotations

from django.db import transaction

from apps.clubs.models import Membership, RuleSnapshot
from apps.tables.models import Seat, Stage, Table, TableStatus
from apps.tables.transaction.context import TableError
from apps.tables.transaction.session import maybe_start
from apps.tables.transaction.transitions import do_dissolve, do_set_tuoguan, do_sit
from apps.tables.transaction.unit import table_action


def arranged_open(*, club, users: list, rules: RuleSnapshot, hands: int, name: str, template=None,
                  by=None, practice: bool = False, tuoguan=(), hold: bool = False) -> Table:
    """Open a table of ``club`` with ``users[i]`` in seat ``i`` and start it, playing by ``rules``
    (another rule snapshot, e.g. a match's: claim time included).

    ``practice=True``: the hands move no club points (the ledger posts an empty settlement per
    hand, as for any practice table). ``tuoguan``: user ids whose seats start on 托管 (a player
    still away). ``hold=True``: everyone is ready but nothing starts until ``arranged_release``.
    Call inside or outside a transaction; 托管 seats are played after the commit by ``autoplay``
    (the caller) or, paced, by the deadline beat (their bot deadline is set when the hand deals).
    """
    if len(users) != rules.players:
        raise TableError("bad_seats", f"An arranged table needs exactly {rules.players} players.")
    ids = [u.pk for u in users]
    if len(set(ids)) != len(ids):
        raise TableError("bad_seats", "A player cannot take two seats.")
    if hands < 1:
        raise TableError("bad_hands", "A table plays at least one hand.")
    members = set(Membership.objects.filter(club=club, user_id__in=ids).values_list("user_id", flat=True))
    if members != set(ids):
        raise TableError("not_member", "Only members of this club may play here.")
    with transaction.atomic():
        table = Table(club=club, template=template, name=name[:60], hands_per_session=hands, fee=0,
                      practice=practice, arranged=True, created_by=by)
        table.copy_rules(rules)
        table.drop_escape()  # an arranged (match) table: its absence rules govern, never 逃跑 (§8.6)
        # Nor the seating rules 同IP禁止同桌 / 距离过近禁止同桌 (issue #47), which refuse or take a
        # seat: the arranger seats its players and nobody joins. A match's seating keeps players
        # seen at one address (30 days, apps/matches/selectors.avoid_reasons) apart whenever it can
        # and shows its organiser the pairs it could not; refusing one of them here would cost him
        # his round. The page's same-network and distance warnings still show.
        table.forbid_same_network = table.forbid_near = False
        table.save()
        Seat.objects.bulk_create([Seat(table=table, index=i) for i in range(table.players)])
        with table_action(table.pk, play=False) as ctx:
            ctx.event("table.open", {"name": table.name, "preset": table.preset, "players": table.players,
                                     "ruleset": table.ruleset, "practice": practice,
                                     "by": getattr(by, "pk", None), "fee": 0, "fee_payer": table.fee_payer,
                                     "arranged": True})
            away = set(tuoguan)
            for seat, user in zip(ctx.seats, users, strict=True):
                do_sit(ctx, seat, user)
                seat.ready = True
                ctx.event("seat.ready", {"seat": seat.index})
                if user.pk in away:
                    do_set_tuoguan(ctx, seat, True)
            if not hold:
                maybe_start(ctx)
    return table


def arranged_release(*, table_id: int) -> bool:
    """Start the next hand of a table whose start was held (``session_policy`` "hold" is over):
    everyone is ready again and ``maybe_start`` decides. True when a hand (or piao) started."""
    with table_action(table_id, play=False) as ctx:
        table = ctx.table
        if not table.is_open or table.stage not in (Stage.SEATING, Stage.SETTLE):
            ctx.nothing_changed()
            return False
        for seat in ctx.seats:
            if seat.taken and not seat.ready:
                seat.ready = True
                ctx.touch(seat)
        maybe_start(ctx)
        return table.stage in (Stage.PIAO, Stage.HAND)


def seat_swap_user(*, table_id: int, index: int, user) -> None:
    """Put ``user`` in seat ``index`` of a table whose session has not started (held: a manual
    re-seat while the arranger holds it); refused once the table plays."""
    with table_action(table_id, play=False) as ctx:
        if ctx.table.status != TableStatus.WAITING or ctx.table.stage != Stage.SEATING:
            raise TableError("not_waiting", "This table has already started.")
        seat = ctx.seats[index]
        do_sit(ctx, seat, user)
        seat.ready = True


def arranged_dissolve(*, table_id: int, reason: str, by_id: int | None = None) -> bool:
    """The arranger ends an open table at once (a cancelled match): its hand is cut short and
    nothing of it is settled, as for any 解散. False when the table had already closed."""
    with table_action(table_id, play=False) as ctx:
        if not ctx.table.is_open:
            ctx.nothing_changed()
            return False
        do_dissolve(ctx, reason=reason, by=by_id)
        return True
