"""From a finished tables.Hand to the ledger lines of its settlement (RULES.md §9.3–9.4).

The ledger posts what the hand froze, nothing it works out again: the engine's totals
(``Hand.totals``, ``settle`` when the hand ended: score, piao and total per seat, each zero-sum),
who sat where at the deal (``Hand.players``) and which seats played (``Hand.playing``: all but a
4-player sit_out sitter). Per playing seat a score and a piao line, never a line of amount 0 (no
"飘 0"): nothing for a sitter, no score or piao for a draw (荒庄), nothing at all for a practice
table. An escape (逃跑, RULES.md §8.6: no winner, the leaver's penalty split among the others) posts
its score lines like a win. Whether the posted lines equal the totals is checked in one place, the hand verification
(``apps.engine.records.verifier``: "the ledger's hand entries equal the settlement").

The table's fee (桌费; RULES.md §9.3: "tables may charge a fee; not part of the rules") goes into
the same transaction: per paying seat a ``fee`` line of −fee on the player's account and one of
+fee on the club account. Who pays is the table's snapshot of its template: every playing seat
(draws included) or only the winner (nothing on a draw); a sitter, a bot seat (the club account
plays it) and practice tables never pay. A hand with no line at all is still "settled": its
transaction exists, with no entries, so the sweep and the audit see exactly one per hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.clubs.fees import fee_seats

from .models import EntryKind
from .posting import Line, club_account, member_accounts


@dataclass
class HandSettlement:
    lines: list[Line] = field(default_factory=list)
    detail: dict = field(default_factory=dict)


def _winner_and_huxi(result: dict | None) -> tuple[int | None, int | None]:
    if not result:
        return None, None
    winner = result.get("winner")
    settlement = result.get("settlement") or {}
    huxi = settlement.get("huxi")
    return (None if winner is None else int(winner)), (None if huxi is None else int(huxi))


def _escape_of(result: dict | None) -> int | None:
    """The seat that left the hand (逃跑, RULES.md §8.6), None for a win or a draw."""
    seat = (result or {}).get("escape")
    return None if seat is None else int(seat)


def hand_settlement(*, hand, practice: bool = False, known_accounts: dict | None = None) -> HandSettlement:
    """Lines and frozen facts for one finished hand (a tables.Hand row or ``selectors.HandFacts``);
    ``known_accounts`` ({user_id: account id}) saves looking up accounts that already exist."""
    table = hand.table
    if not isinstance(hand.totals, dict) or hand.playing is None:
        raise ValueError(f"hand {hand.pk} has no frozen totals and playing seats to post")
    seat_users = {int(k): (None if v is None else int(v)) for k, v in (hand.players or {}).items()}
    winner, huxi = _winner_and_huxi(hand.result)
    escape = _escape_of(hand.result)
    # A win or an escape moves points (an escape: the leaver's penalty split among the others,
    # no winner); only a draw (荒庄) moves none.
    scored = winner is not None or escape is not None
    active = [int(s) for s in hand.playing]
    active_set = set(active)
    playing = [s for s in sorted(seat_users) if s in active_set]
    detail = {
        "seats": {str(s): seat_users[s] for s in playing},
        "winner": winner,
        "huxi": huxi,
        "draw": not scored,
        "table": table.pk,
        "number": hand.number,
    }
    if escape is not None:
        detail["escape"] = escape
        detail["penalty"] = int(hand.result.get("penalty") or 0)
    cap = ((hand.result or {}).get("settlement") or {}).get("cap")
    if winner is not None and cap:
        detail["cap"] = int(cap)
    out = HandSettlement(detail=detail)
    if not scored or practice:
        detail["practice"] = bool(practice)
    if practice:
        return out
    fee = int(table.fee)
    payers = fee_seats(fee=fee, payer=table.fee_payer, playing=playing, winner=winner, seat_users=seat_users)
    if not scored and not payers:
        return out
    accounts = dict(known_accounts or {})
    missing = [u for s, u in seat_users.items() if s in active_set and u is not None and u not in accounts]
    if missing:
        accounts.update({u: a.pk for u, a in member_accounts(club_id=table.club_id, user_ids=missing).items()})
    house_id = None

    def house() -> int:
        nonlocal house_id
        if house_id is None:
            house_id = club_account(club_id=table.club_id).pk
        return house_id

    if scored:
        score = {int(k): int(v) for k, v in hand.totals["score"].items()}
        piao = {int(k): int(v) for k, v in hand.totals["piao"].items()}
        for seat in playing:
            user_id = seat_users[seat]
            # a bot seat on a real table: the club account plays it
            account_id = house() if user_id is None else accounts[user_id]
            # No line of amount 0 (a piao of 0, a seat the 放炮 rule lets off): an absent line is 0
            # to every reader (balances, boards, the hand verifier's per-kind sums).
            for amount, kind in ((score.get(seat, 0), EntryKind.SCORE), (piao.get(seat, 0), EntryKind.PIAO)):
                if amount:
                    out.lines.append(Line(account_id, amount, kind, seat))
    for seat in payers if fee else ():
        out.lines.append(Line(accounts[seat_users[seat]], -fee, EntryKind.FEE, seat))
        out.lines.append(Line(house(), fee, EntryKind.FEE, seat))
    if payers:
        detail["fee"] = {"per_seat": fee, "payer": str(table.fee_payer), "seats": payers}
    return out
