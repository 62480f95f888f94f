"""The match's money, all through ``apps.ledgers.posting.post_transaction``, each key at most once:

    ``match:<id>:fee:<user>``     member → escrow, at registration (waitlisted entrants pay too and
                                  are refunded if never promoted; re-registering after a withdrawal
                                  is refused, so a key is never needed twice);
    ``match:<id>:refund:<user>``  escrow → member: withdrawal while registration is open, not
                                  checked in (or never promoted) at the start, or the match cancelled;
    ``match:<id>:prize:<rank>``   escrow → the player of that final place;
    ``match:<id>:house-in``       club account → escrow, when fixed prizes exceed the pool (the
                                  club pays the difference);
    ``match:<id>:house-out``      escrow → club account, what the pool holds beyond the prizes
                                  (fixed prizes below the pool, fees forfeited by withdrawals after
                                  registration closed when nobody is left to win them).

Percent prizes always pay the whole pool. Once finished or cancelled the escrow is closed at
exactly zero (``ledger_audit`` checks closed escrows). Memos are facts (``detail``: the match, its
name, the member, the place, the reason), rendered in the reader's language by the ledger pages.
"""

from __future__ import annotations

from apps.ledgers.models import Account, AccountKind, EntryKind, TransactionKind
from apps.ledgers.posting import Line, club_account, member_accounts, post_transaction

from .. import formats
from ..models import Entrant, Match


def fee_key(match_id: int, user_id: int) -> str:
    return f"match:{match_id}:fee:{user_id}"


def refund_key(match_id: int, user_id: int) -> str:
    return f"match:{match_id}:refund:{user_id}"


def prize_key(match_id: int, rank: int) -> str:
    return f"match:{match_id}:prize:{rank}"


def open_escrow(match: Match) -> None:
    match.escrow = Account.objects.create(club=match.club, kind=AccountKind.ESCROW, key=match.escrow_key)
    match.save(update_fields=["escrow"])


def _post(match: Match, key: str, lines: list[Line], *, memo: str, by=None, detail: dict | None = None):
    return post_transaction(
        club_id=match.club_id, kind=TransactionKind.MATCH, idempotency_key=key, lines=lines,
        memo=memo[:200], created_by=by, detail={"match": match.pk, "match_name": match.name, **(detail or {})},
    )


def member_account(match: Match, user_id: int, *, lock: bool = False) -> Account:
    account = member_accounts(club_id=match.club_id, user_ids=[user_id])[user_id]
    return Account.objects.select_for_update().get(pk=account.pk) if lock else account


def take_fee(match: Match, entrant: Entrant, account: Account, *, by) -> None:
    """The entry fee from the member into escrow, once."""
    fee = entrant.fee_paid
    if fee <= 0:
        return
    _post(match, fee_key(match.pk, entrant.user_id),
          [Line(account.pk, -fee, EntryKind.ENTRY_FEE), Line(match.escrow_id, fee, EntryKind.ENTRY_FEE)],
          memo=f"{match.name}: entry fee", by=by, detail={"user": entrant.user_id, "what": "fee"})


def refund(match: Match, entrant: Entrant, *, reason: str) -> None:
    """Give the entrant's fee back from escrow, once (its own key); the caller saves ``refunded``."""
    if entrant.refunded or entrant.fee_paid <= 0:
        return
    account = member_account(match, entrant.user_id)
    _post(match, refund_key(match.pk, entrant.user_id),
          [Line(match.escrow_id, -entrant.fee_paid, EntryKind.REFUND),
           Line(account.pk, entrant.fee_paid, EntryKind.REFUND)],
          memo=f"{match.name}: refund ({reason})",
          detail={"user": entrant.user_id, "reason": reason, "what": "refund"})
    entrant.refunded = True


def close(match: Match) -> None:
    escrow = Account.objects.select_for_update().get(pk=match.escrow_id)
    if escrow.balance != 0:
        raise RuntimeError(f"escrow of match {match.pk} holds {escrow.balance}, not 0")
    Account.objects.filter(pk=escrow.pk).update(closed=True)


def pay_prizes(match: Match, order: list[Entrant]) -> None:
    """Pay the places of ``order`` (best first) from the pool, settle the house's share, close."""
    escrow = Account.objects.select_for_update().get(pk=match.escrow_id)
    pool = escrow.balance
    amounts = formats.prize_amounts(pool, match.prize_scheme, len(order))
    house = club_account(club_id=match.club_id)
    diff = pool - sum(amounts)
    if diff < 0:
        _post(match, f"match:{match.pk}:house-in",
              [Line(house.pk, diff, EntryKind.PRIZE), Line(match.escrow_id, -diff, EntryKind.PRIZE)],
              memo=f"{match.name}: prizes beyond the pool", detail={"what": "house_in"})
    accounts = member_accounts(club_id=match.club_id, user_ids=[e.user_id for e in order[: len(amounts)]])
    for place, (entrant, amount) in enumerate(zip(order, amounts, strict=False), start=1):
        if amount <= 0:
            continue
        _post(match, prize_key(match.pk, place),
              [Line(match.escrow_id, -amount, EntryKind.PRIZE),
               Line(accounts[entrant.user_id].pk, amount, EntryKind.PRIZE)],
              memo=f"{match.name}: prize #{place}",
              detail={"user": entrant.user_id, "rank": place, "what": "prize"})
        entrant.prize = amount
        entrant.save(update_fields=["prize"])
    if diff > 0:
        _post(match, f"match:{match.pk}:house-out",
              [Line(match.escrow_id, -diff, EntryKind.ENTRY_FEE), Line(house.pk, diff, EntryKind.ENTRY_FEE)],
              memo=f"{match.name}: pool beyond the prizes", detail={"what": "house_out"})
    close(match)

