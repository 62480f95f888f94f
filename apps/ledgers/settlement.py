"""From a finished tables.Hand to the ledger lines of its settlement (RULES.md §9.3–9.4).

The engine's ``settle`` is the single source of the amounts; this module only maps seats to
accounts: a score line and a piao line per playing seat, nothing for a 4-player sit_out sitter,
nothing at all for a draw (荒庄) or a practice table. The hand is still "settled" then: its
transaction exists, with no entries, so the sweep and the audit see exactly one per hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.engine import Hand, settle

from .models import EntryKind
from .posting import Line, club_account, member_accounts


@dataclass
class HandSettlement:
    lines: list[Line] = field(default_factory=list)
    detail: dict = field(default_factory=dict)


def sitter_seat(ruleset, dealer: int) -> int | None:
    """RULES.md §2: in 4-player sit_out the seat opposite the dealer sits out."""
    if getattr(ruleset, "sit_out", False):
        return (dealer + 2) % 4
    return None


def _winner_and_huxi(result: dict | None) -> tuple[int | None, int | None]:
    if not result:
        return None, None
    winner = result.get("winner")
    settlement = result.get("settlement") or {}
    huxi = settlement.get("huxi")
    return (None if winner is None else int(winner)), (None if huxi is None else int(huxi))


def piao_by_seat(raw: dict | None) -> dict[int, int]:
    """Hand.piao is JSON, so its keys are strings; unset (None) choices count as 0."""
    return {int(seat): int(value or 0) for seat, value in (raw or {}).items()}


def amounts_for(engine_hand, *, base: int, piao: dict[int, int]) -> dict:
    """The engine's settlement: {"score": {seat: int}, "piao": {seat: int}, "total": ...}."""
    return settle(engine_hand, base=base, piao=piao)


def load_engine_hand(state: dict) -> Hand:
    return Hand.from_json(state)


def hand_settlement(
    *, hand, seat_users: dict[int, int | None], practice: bool = False, known_accounts: dict | None = None
) -> HandSettlement:
    """Lines and frozen facts for one finished hand.

    ``hand`` is a tables.Hand row or ``selectors.HandFacts``; ``known_accounts`` ({user_id: account
    id}) saves looking up accounts that already exist.
    """
    table = hand.table
    engine_hand = load_engine_hand(hand.state)
    result = hand.result or engine_hand.result
    winner, huxi = _winner_and_huxi(result)
    active = getattr(engine_hand, "active_seats", None)
    if active is None:
        sitter = sitter_seat(engine_hand.rs, hand.dealer)
        active = [s for s in range(engine_hand.rs.players) if s != sitter]
    playing = [s for s in sorted(seat_users) if s in set(active)]
    detail = {
        "seats": {str(s): seat_users[s] for s in playing},
        "winner": winner,
        "huxi": huxi,
        "draw": winner is None,
        "table": table.pk,
        "number": hand.number,
    }
    out = HandSettlement(detail=detail)
    if winner is None or practice:
        detail["practice"] = bool(practice)
        return out
    amounts = amounts_for(engine_hand, base=table.base_score, piao=piao_by_seat(hand.piao))
    score = {int(k): int(v) for k, v in amounts["score"].items()}
    piao = {int(k): int(v) for k, v in amounts["piao"].items()}
    accounts = dict(known_accounts or {})
    missing = [u for s, u in seat_users.items() if s in playing and u is not None and u not in accounts]
    if missing:
        accounts.update({u: a.pk for u, a in member_accounts(club_id=table.club_id, user_ids=missing).items()})
    house = None
    for seat in playing:
        user_id = seat_users[seat]
        if user_id is None:  # a bot seat on a real table: the club account plays it
            house = house or club_account(club_id=table.club_id)
            account_id = house.pk
        else:
            account_id = accounts[user_id]
        out.lines.append(Line(account_id, score.get(seat, 0), EntryKind.SCORE, seat))
        out.lines.append(Line(account_id, piao.get(seat, 0), EntryKind.PIAO, seat))
    return out
