"""From a finished tables.Hand to the ledger lines of its settlement (RULES.md §9.3–9.4).

The engine is the single source of the amounts (``settle_amounts`` fed with the finished hand's
stored engine result, equal to ``settle`` of the replayed hand); this module only maps seats to
accounts: a score line and a piao line per playing seat (never a line of amount 0: no "飘 0"),
nothing for a 4-player sit_out sitter, no score or piao for a draw (荒庄), nothing at all for a
practice table.

The table's fee (桌费; RULES.md §9.3: "tables may charge a fee; not part of the rules") goes into
the same transaction: per paying seat a ``fee`` line of −fee on the player's account and one of
+fee on the club account. Who pays is the table's snapshot of its template: every playing seat
(draws included) or only the winner (nothing on a draw); a sitter, a bot seat (the club account
plays it) and practice tables never pay. A hand with no line at all is still "settled": its transaction exists, with no entries,
so the sweep and the audit see exactly one per hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from apps.clubs.fees import fee_seats
from apps.engine import Hand, settle
from apps.engine.rules import RuleSet
from apps.engine.settlement import settle_amounts

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
    """The engine's settlement of a replayed hand: {"score": {seat: int}, "piao": …, "total": …}."""
    return settle(engine_hand, base=base, piao=piao)


def load_engine_hand(state: dict) -> Hand:
    return Hand.from_json(state)


@lru_cache(maxsize=256)
def _ruleset(items: tuple) -> RuleSet:
    return RuleSet.from_json(dict(items))


def ruleset_of(data: dict) -> RuleSet:
    """``RuleSet.from_json`` of a stored ruleset, cached (every field is a scalar)."""
    try:
        return _ruleset(tuple(sorted(data.items())))
    except TypeError:  # an unhashable value: no cache
        return RuleSet.from_json(data)


def active_seats_of(rs: RuleSet, dealer: int) -> list[int]:
    """The engine's ``Hand.active_seats``: every seat but a 4-player sit_out sitter."""
    sitter = sitter_seat(rs, dealer)
    return [s for s in range(rs.players) if s != sitter]


def result_is_complete(result) -> bool:
    """A stored engine result that ``settle_amounts`` can use without replaying the hand."""
    if not isinstance(result, dict) or "winner" not in result:
        return False
    if result["winner"] is None:
        return True
    settlement = result.get("settlement")
    return isinstance(settlement, dict) and isinstance(settlement.get("score"), int)


def amounts_from_result(
    *, ruleset: dict, dealer: int, result: dict, base: int, piao: dict[int, int]
) -> tuple[dict, list[int]]:
    """The amounts of ``settle(Hand.from_json(state), base, piao)`` without the replay.

    The finished hand's engine result (winner, settlement score, discarder) plus the ruleset and
    the active seats are everything ``settle_amounts`` reads; tests check the equality on many real
    hands. Returns ``(amounts, active_seats)``.
    """
    if isinstance(base, bool) or not isinstance(base, int) or base < 1:
        raise ValueError("base must be a positive integer")
    rs = ruleset_of(ruleset)
    active = active_seats_of(rs, dealer)
    winner = result.get("winner")
    score = result["settlement"]["score"] if winner is not None else 0
    amounts = settle_amounts(
        rs, winner, score, active, base=base, piao=piao, discarder=result.get("discarder")
    )
    return amounts, active


def hand_settlement(
    *, hand, seat_users: dict[int, int | None], practice: bool = False, known_accounts: dict | None = None
) -> HandSettlement:
    """Lines and frozen facts for one finished hand.

    ``hand`` is a tables.Hand row or ``selectors.HandFacts``; ``known_accounts`` ({user_id: account
    id}) saves looking up accounts that already exist. The amounts come from the stored engine
    result (``amounts_from_result``); a hand whose snapshot lacks it is replayed
    (``Hand.from_json``) and settled by ``settle`` as before.
    """
    table = hand.table
    base = table.base_score
    piao_in = piao_by_seat(hand.piao)
    ruleset = getattr(hand, "ruleset_json", None)
    dealer = getattr(hand, "state_dealer", None)
    if ruleset is None or dealer is None:
        state = hand.state or {}
        ruleset, dealer = state.get("ruleset"), state.get("dealer", hand.dealer)
    result = hand.result
    if ruleset is not None and dealer is not None and result_is_complete(result):
        winner, huxi = _winner_and_huxi(result)
        amounts, active = (None, None) if winner is None or practice else amounts_from_result(
            ruleset=ruleset, dealer=int(dealer), result=result, base=base, piao=piao_in
        )
        if active is None:
            active = active_seats_of(ruleset_of(ruleset), int(dealer))
    else:  # no usable stored result: replay the hand
        engine_hand = load_engine_hand(hand.full_state() if hasattr(hand, "full_state") else hand.state)
        result = result or engine_hand.result
        winner, huxi = _winner_and_huxi(result)
        active = list(engine_hand.active_seats)
        amounts = None if winner is None or practice else amounts_for(engine_hand, base=base, piao=piao_in)
    active_set = set(active)
    playing = [s for s in sorted(seat_users) if s in active_set]
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
    if practice:
        return out
    fee = int(table.fee)
    payers = fee_seats(fee=fee, payer=table.fee_payer, playing=playing, winner=winner, seat_users=seat_users)
    if winner is None and not payers:
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

    if winner is not None:
        score = {int(k): int(v) for k, v in amounts["score"].items()}
        piao = {int(k): int(v) for k, v in amounts["piao"].items()}
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
