"""What one finished hand says about its players, seat by seat (no database: record in, facts out).

The engine re-runs the hand's record action by action; before each recorded action we read the
open claim (whose card, which source) and ``hand.pending`` (each seat's options), so we know:

- every discard and every shown stock card of a seat (the opportunities to feed someone);
- which of them another seat took: the first 吃/碰/胡 event the resolving action produced, by a
  seat other than the card's owner (a forced 跑 is not a choice and is not counted);
- every decision where 胡 was among a seat's options and the seat chose something else (a pass,
  or a 碰/吃 instead): a declined 胡.

Points flow (``flows``): in each hand, each winner's gain is split over the losers in proportion
to their losses; ``flows[(a, b)]`` is the part of b's gain paid by a. With one winner (the usual
case) it is exactly what each loser paid him.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from apps.engine.actions import Action
from apps.engine.records.replay import hand_of

CLAIMS = ("chi", "peng", "hu")
SOURCES = {"discard": "discard", "draw": "show"}  # claim source -> our name (the reveal card is skipped)


@dataclass
class HandSignals:
    discards: Counter = field(default_factory=Counter)  # seat -> discards
    shows: Counter = field(default_factory=Counter)  # seat -> shown stock cards
    taken: Counter = field(default_factory=Counter)  # (owner, taker, "discard"|"show") -> count
    wins: Counter = field(default_factory=Counter)  # (owner, winner) -> 胡 on owner's card
    hu_chances: Counter = field(default_factory=Counter)  # seat -> decisions with 胡 offered
    declined: Counter = field(default_factory=Counter)  # seat -> 胡 offered and not taken
    replayed: bool = True


def card_signals(record: dict) -> HandSignals:
    """Re-run a hand record (``apps.tables.storage.records.hand_record``) and collect the card signals.

    A record the engine cannot re-run (tampered, or malformed) gives empty signals with
    ``replayed=False``: the caller still counts the hand, without card signals.
    """
    out = HandSignals()
    try:
        hand = hand_of(record)
        for item in record.get("actions", []):
            seat = item["seat"]
            action = Action.from_wire(item["action"])
            claim = hand.claim if hand.phase == "claim" else None
            if claim is not None:
                options = hand.pending.get(seat, ())
                if "hu" in options:
                    out.hu_chances[seat] += 1
                    if action.type != "hu":
                        out.declined[seat] += 1
            events = hand.apply(seat, action)
            if claim is None or claim.source not in SOURCES:
                continue
            for ev in events:
                if ev.type in CLAIMS:
                    if ev.seat != claim.seat:
                        out.taken[(claim.seat, ev.seat, SOURCES[claim.source])] += 1
                        if ev.type == "hu":
                            out.wins[(claim.seat, ev.seat)] += 1
                    break
                if ev.type not in ("pass",):  # the claim went unclaimed: the turn moved on
                    break
        for ev in hand.events:
            if ev.type == "discard":
                out.discards[ev.seat] += 1
            elif ev.type == "show":
                out.shows[ev.seat] += 1
    except (ValueError, KeyError, TypeError):  # IllegalAction is a ValueError
        return HandSignals(replayed=False)
    return out


def flows(totals: dict[int, int]) -> dict[tuple[int, int], float]:
    """``{(payer, receiver): points}``: each winner's gain split over the losers by their losses."""
    losses = {s: -t for s, t in totals.items() if t < 0}
    lost = sum(losses.values())
    out: dict[tuple[int, int], float] = {}
    if not lost:
        return out
    for w, gain in totals.items():
        if gain > 0:
            for payer, loss in losses.items():
                out[(payer, w)] = gain * loss / lost
    return out
