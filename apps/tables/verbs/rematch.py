"""再来一局: a seated player of an ended table opens the same table again, with the same players.

The new table takes the ended table's own rule snapshot (rules, base score, piao choices, hands per
session, turn and claim seconds, fee, practice) — not the template's current values — and its
humans sit in their old seat indexes, not ready (bots are re-added on a practice table). A player
no longer in the club is not seated again; the one who asks must still be a member.

The table's seating rules hold as at ``services.table_join``: the one who asks is seated first, then
each other player in seat order unless ``nearby.seat_refusal`` refuses him beside those already
seated (同IP禁止同桌). He is left out, and told why when he asks for the rematch himself: the page
shows the refusal where it would have followed him to the new table. 距离过近禁止同桌 needs a shared
position, and none outlives the ended table (transaction/nearby.py): at the new table it acts, as at
any waiting table, when a seated player shares his (``services.position_share``).

Exactly one rematch per ended table: the ended table's row is locked while the rematch is looked
up and created, and ``Table.rematch_of`` is unique, so a second request (another player, a double
click, a concurrent request) gets the same new table. The table is created by
``services.table_create``, the path ``table_open`` takes too.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from apps.tables.models import Seat, Table, TableStatus
from apps.tables.read.nearby import seat_refusal
from apps.tables.transaction.checks import check_member
from apps.tables.transaction.context import TableError
from apps.tables.transaction.transitions import do_add_bot, do_sit
from apps.tables.verbs.services import table_create


def rematchable(table: Table) -> bool:
    """Ended with at least one hand played: finished, or dissolved after a hand."""
    return table.status == TableStatus.FINISHED or (
        table.status == TableStatus.DISSOLVED and table.hands_played >= 1
    )


def _arranged(table: Table) -> bool:
    """Opened by a service (a scheduled match's round), not by a player."""
    return table.arranged


def table_rematch(*, user, table_id: int) -> tuple[Table, bool]:
    """The rematch of ended table ``table_id`` asked by ``user``: ``(table, created)``."""
    with transaction.atomic():
        old = Table.objects.select_for_update().filter(pk=table_id).first()
        if old is None:
            raise TableError("no_table", "This table does not exist.")
        seats = list(Seat.objects.filter(table=old).select_related("user").order_by("index"))
        if not any(s.user_id == user.pk for s in seats):
            raise TableError("not_seated", "Only a player of this table can start a rematch.")
        if _arranged(old):
            raise TableError("match_table", "A match table cannot be played again.")
        if not rematchable(old):
            raise TableError("not_over", "The session has not ended yet.")
        check_member(user=user, table=old)
        existing = Table.objects.filter(rematch_of=old).first()
        if existing is not None:
            _check_left_out(user=user, table=existing)
            return existing, False
        try:
            with transaction.atomic():  # a savepoint: a lost race leaves the outer transaction usable
                return _create(user=user, old=old, seats=seats), True
        except IntegrityError:  # the unique rematch_of: another request created it first
            existing = Table.objects.filter(rematch_of=old).first()
            if existing is None:
                raise
            _check_left_out(user=user, table=existing)
            return existing, False


def _check_left_out(*, user, table: Table) -> None:
    """A player the rematch ``table`` did not seat is refused with the reason its seating rules
    give (as ``table_join`` would refuse him), while it waits; anyone else is sent to it."""
    if table.status != TableStatus.WAITING:
        return
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    if any(s.user_id == user.pk for s in seats):
        return
    refusal = seat_refusal(table=table, seats=seats, user=user)
    if refusal:
        raise TableError("seating_rule", refusal)


def _create(*, user, old: Table, seats: list[Seat]) -> Table:
    from apps.clubs.selectors import membership_for

    table = Table(
        club=old.club, template=old.template, name=old.name, hands_per_session=old.hands_per_session,
        fee=old.fee, fee_payer=old.fee_payer, practice=old.practice, created_by=user, rematch_of=old,
    )
    table.copy_rules(old)
    humans = {s.index: s.user for s in seats if s.user_id is not None}
    bots = {s.index: s.bot for s in seats if s.bot}

    def seating(ctx) -> None:
        by_index = {seat.index: seat for seat in ctx.seats}
        for index, player in sorted(humans.items(), key=lambda item: (item[1].pk != user.pk, item[0])):
            if player.pk != user.pk and (membership_for(user=player, club=old.club) is None
                                         or seat_refusal(table=ctx.table, seats=ctx.seats, user=player)):
                continue  # no longer a member, or the table's seating rules refuse him beside those seated
            do_sit(ctx, by_index[index], player)
        if old.practice:
            for index, kind in bots.items():
                if index not in humans:
                    do_add_bot(ctx, by_index[index], kind)

    template_name = old.template.name if old.template_id else old.name
    return table_create(user=user, table=table, template_name=template_name, seating=seating,
                        extra={"rematch_of": old.pk})
