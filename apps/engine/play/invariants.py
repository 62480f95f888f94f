"""Invariants of a hand, checked after every action by ``simulate`` and the property tests.

``check(hand)`` returns a list of violations (empty when all hold):

- the 80 cards are conserved over ``card_locations()``: exactly 4 of each kind, none in two places;
- every laid group has the shape of its kind (RULES.md §4.1);
- the count rule of RULES.md §5.6 for every active seat (see ``count_problems``);
- a 4-player ``sit_out`` sitter holds nothing;
- the room options (``option_problems``): ``remove_cards`` sets the deck's last cards aside and
  the stock never reaches them; ``bottom_shown`` has no reveal card, its shown last card is the
  stock's last and nobody is offered 胡 on it; ``forced_win`` leaves exactly ``[hu]`` to a seat
  offered 胡; ``escape`` is legal for every active seat (and nobody else) while the hand is in play
  and no claim window is open, and never makes a seat one the hand waits for; a win meets ``qi_hu``; a settlement is zero-sum,
  a capped one within ``score_cap``, an escape's the §8.6 penalty split;
- ``Hand.from_json(hand.to_json())`` gives the same audit view and legal actions (``roundtrip``).
"""

from __future__ import annotations

import json
from typing import Any

from ..cards import COPIES, KINDS, rank
from .events import AUDIT
from .observer import build_view

_SAME = {"ti": 4, "pao": 4, "wei": 3, "chou_wei": 3, "peng": 3}


def check(hand, roundtrip: bool = True) -> list[str]:
    """Every violation found in ``hand`` (see the module docstring)."""
    problems = check_counts_fast(hand)
    problems += _group_problems(hand)
    if roundtrip:
        problems += roundtrip_problems(hand)
    return problems


def check_counts_fast(hand) -> list[str]:
    """The cheap checks: card conservation, the §5.6 count identity and, when a room option of
    RULES.md §3.8, §8.6 or §9.6 is on, ``option_problems``."""
    problems = conservation_problems(hand) + count_problems(hand)
    rs = hand.rs
    if rs.remove_cards or rs.bottom_shown or rs.forced_win or rs.escape_penalty or rs.qi_hu or rs.score_cap:
        problems += option_problems(hand)
    return problems


def option_problems(hand) -> list[str]:
    """The room options' invariants (module docstring); [] when none is on."""
    from ..actions import ESCAPE, HU
    from ..cards import RED
    from ..scoring.settlement import escape_penalty

    rs = hand.rs
    problems: list[str] = []
    if rs.remove_cards:
        want = 80 - rs.remove_cards - 20 * rs.active_players - 1
        if hand.set_aside != hand.deck[80 - rs.remove_cards :]:
            problems.append("remove_cards: the set-aside cards are not the deck's last cards")
        if len(hand.stock) != want:
            problems.append(f"remove_cards: the stock holds {len(hand.stock)} cards, not {want}")
    claim = hand.claim if hand.phase == "claim" else None
    if rs.bottom_shown:
        if hand.reveal is not None or any(e.type == "reveal" for e in hand.events):
            problems.append("bottom_shown: a reveal card was turned up")
        shown = [e for e in hand.events if e.type == "bottom_shown"]
        if not shown:
            problems.append("bottom_shown: no bottom_shown event")
        elif hand.stock and shown[-1].fields["card"] != _name(hand.stock[-1]):
            problems.append("bottom_shown: the last bottom_shown card is not the stock's last card")
        if hand.stock and hand.stock[-1] in RED and not all(c in RED for c in hand.stock):
            problems.append("bottom_shown: a red last card was not moved to the top")
        if claim is not None and claim.source in ("draw", "self") and claim.last_card:
            if any(HU in opts for opts in claim.options.values()):
                problems.append("bottom_shown: 胡 is offered on the shown last card")
        won = hand.result or {}
        if any(m.get("name") == "hai_di" for m in (won.get("settlement") or {}).get("mingtang", [])):
            problems.append("bottom_shown: a hand was won on the last card (海底)")
    if rs.forced_win and claim is not None:
        for seat, opts in claim.options.items():
            if HU in opts and list(opts) != [HU]:
                problems.append(f"forced_win: seat {seat} is offered 胡 among {[a.type for a in opts]}")
    if rs.escape_penalty:
        live = not hand.finished and not (hand.phase == "claim" and hand.claim is not None)  # no claim window
        for seat in range(rs.players):
            legal = hand.legal_actions(seat)
            if (ESCAPE in legal) != (live and seat in hand.active_seats):
                problems.append(f"escape_penalty: escape legal for seat {seat} is {ESCAPE in legal}")
            if seat in hand.to_act() and not hand.decision_actions(seat):
                problems.append(f"escape_penalty: seat {seat} is waited for with only escape")
    result = hand.result
    if hand.finished and result is not None:
        deltas = (result.get("settlement") or {}).get("deltas") or {}
        if sum(deltas.values()) != 0:
            problems.append(f"settlement is not zero-sum: {deltas}")
        if "escape" in result:
            leaver = result["escape"]
            settlement = result["settlement"]
            seats = list(hand.active_seats)
            i = seats.index(leaver)
            others = seats[i + 1 :] + seats[:i]  # seat order from the leaver's next
            if settlement["total_huxi"] != sum(settlement["seat_huxi"].values()):
                problems.append("escape: H is not the sum of the others' 胡息")
            if result["penalty"] != escape_penalty(settlement["total_huxi"]) or deltas[leaver] != -result["penalty"]:
                problems.append(f"escape: seat {leaver} pays {deltas.get(leaver)}, penalty {result['penalty']}")
            shares = [deltas[s] for s in others]
            if max(shares) - min(shares) > 1 or sorted(shares, reverse=True) != shares:
                problems.append(f"escape: shares {shares} are not equal with the remainder from the leaver's next")
            if any(deltas[s] for s in range(rs.players) if s not in hand.active_seats):
                problems.append("escape: the sitter pays or receives")
        elif result.get("winner") is not None:
            settlement = result["settlement"]
            if rs.score_cap and settlement["score"] > rs.score_cap:
                problems.append(f"score_cap: score {settlement['score']} above the cap {rs.score_cap}")
            if "cap" in settlement and settlement["cap"] != rs.score_cap:
                problems.append("score_cap: the settlement's cap is not the ruleset's")
            mao = any(b.get("name") == "mao_hu" for b in settlement.get("bonuses", []))
            if rs.qi_hu and result["win_by"] != "natural" and not mao and settlement["huxi"] < rs.qi_hu:
                problems.append(f"qi_hu: a win with {settlement['huxi']} 胡息 below 起胡 {rs.qi_hu}")
    return problems


def _name(card: int) -> str:
    from ..cards import card_name

    return card_name(card)


def _flatten(where: str, value: Any, out: list[tuple[str, list[int]]]) -> None:
    if isinstance(value, dict):
        for key, sub in value.items():
            _flatten(f"{where}.{key}", sub, out)
    elif value and isinstance(value[0], list | tuple):
        for i, sub in enumerate(value):
            _flatten(f"{where}[{i}]", sub, out)
    else:
        out.append((where, list(value)))


def conservation_problems(hand) -> list[str]:
    """Exactly 4 of each of the 20 kinds over ``card_locations()`` (so 80, none in two places)."""
    locations = hand.card_locations()
    total = [0] * KINDS
    try:  # the fast path: lists of card ints, nested in dicts and lists of groups
        for value in locations.values():
            for item in value.values() if isinstance(value, dict) else (value,):
                if item and isinstance(item[0], list | tuple):
                    for group in item:
                        for c in group:
                            total[c] += 1
                else:
                    for c in item:
                        total[c] += 1
        if total == _FULL and all(isinstance(c, int) for c in _sample(locations)):
            return []
    except (TypeError, IndexError):
        pass
    places: list[tuple[str, list[int]]] = []
    for name, value in locations.items():
        _flatten(name, value, places)
    total = [0] * KINDS
    problems = []
    for where, cards in places:
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < KINDS:
                problems.append(f"{where}: {c!r} is not a card")
                continue
            total[c] += 1
    for c, n in enumerate(total):
        if n != COPIES:
            holders = [w for w, cards in places if c in cards]
            problems.append(f"card {c}: {n} copies (not {COPIES}) in {', '.join(holders) or 'no place'}")
    return problems


_FULL = [COPIES] * KINDS


def _sample(locations: dict) -> list:
    """A few entries of the stock: enough to notice card names where ints are expected."""
    stock = locations.get("stock") or []
    return list(stock[:2])


def sitter(hand) -> int | None:
    """The seat that sits this hand out (4-player sit_out: the seat opposite the dealer)."""
    return hand.rs.sitter(hand.dealer)


def opening_ti(hand) -> dict[int, int]:
    """How many 提 each seat laid at the deal (they come before the first discard or draw)."""
    out: dict[int, int] = {}
    for ev in hand.events:
        if ev.type in ("discard", "draw"):
            break
        if ev.type == "ti" and ev.fields.get("from") == "deal":
            out[ev.seat] = out.get(ev.seat, 0) + 1
    return out


def count_problems(hand) -> list[str]:
    """RULES.md §5.6: with k 4-card groups a seat's count is base + max(0, k - 1).

    While waiting, a seat holds exactly its count; while it must discard, its count + 1. A seat with
    t >= 2 opening 提 starts t - 1 below its count and catches up by acquisitions, so it may be up
    to t - 1 below. A dead hand (§11.4, forced acquisitions without a discard) may be above. The
    seat deciding 偎胡/提胡 on its own forced 偎/提 holds count + 1 until it passes and discards.
    """
    rs = hand.rs
    base = rs.base_count
    out = sitter(hand)
    ti0 = opening_ti(hand)
    problems = []
    must_discard = hand.turn if hand.phase == "discard" else None
    claim = hand.claim if hand.phase == "claim" else None
    self_claim = claim.seat if claim is not None and claim.source == "self" else None
    dead = hand.dead
    for seat in range(rs.players):
        groups = hand.groups[seat]
        held = sum(hand.hands[seat]) + sum(len(g.cards) for g in groups)
        if seat == out:
            if held:
                problems.append(f"seat {seat} sits out but holds {held} cards")
            continue
        k = sum(1 for g in groups if len(g.cards) == 4)
        count = base + max(0, k - 1)
        diff = held - count
        low = -max(0, ti0.get(seat, 0) - 1)
        if dead[seat]:
            ok = diff >= low
        elif hand.finished or seat == self_claim:
            ok = low <= diff <= 1
        elif seat == must_discard:
            ok = diff == 1
        else:
            ok = low <= diff <= 0
        if not ok:
            problems.append(
                f"seat {seat} holds {held} cards with count {count} (k={k}, opening ti={ti0.get(seat, 0)},"
                f" phase={hand.phase}, must discard={seat == must_discard})"
            )
    return problems


def _group_problems(hand) -> list[str]:
    problems = []
    for seat in range(hand.rs.players):
        for g in hand.groups[seat]:
            cards = tuple(sorted(g.cards))
            if g.kind in _SAME:
                ok = len(cards) == _SAME[g.kind] and len(set(cards)) == 1
            elif g.kind == "chi":
                ok = len(cards) == 3 and _is_sentence_or_jiao(cards)
            else:
                ok = False
            if not ok:
                problems.append(f"seat {seat}: bad laid group {g.kind} {cards}")
    return problems


def _is_sentence_or_jiao(cards: tuple[int, ...]) -> bool:
    if len({x // 10 for x in cards}) == 1:
        ranks = tuple(rank(x) for x in cards)
        return ranks == (2, 7, 10) or (ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1)
    return len({rank(x) for x in cards}) == 1


def roundtrip_problems(hand) -> list[str]:
    """``from_json(to_json(hand))`` must be indistinguishable from ``hand``."""
    cls = type(hand)
    try:
        data = hand.to_json()
        copy = cls.from_json(json.loads(json.dumps(data)))
    except Exception as exc:  # noqa: BLE001 - reported as a violation
        return [f"round trip failed: {type(exc).__name__}: {exc}"]
    problems = []
    if build_view(copy, AUDIT) != build_view(hand, AUDIT):
        problems.append("round trip changed view(AUDIT)")
    if copy.to_act() != hand.to_act():
        problems.append(f"round trip changed to_act: {hand.to_act()} -> {copy.to_act()}")
    for seat in range(hand.rs.players):
        if copy.legal_actions(seat) != hand.legal_actions(seat):
            problems.append(f"round trip changed the legal actions of seat {seat}")
    if copy.finished != hand.finished or copy.result != hand.result:
        problems.append("round trip changed the result")
    return problems
