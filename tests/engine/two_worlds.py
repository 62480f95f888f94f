"""Two worlds that differ only in cards a viewer may not see (issue #41; RULES.md §5.3, §4.1).

``resting_states`` plays seeded bot hands and stops at hands in play; ``other_world`` copies one
and swaps concealed hand cards of the seats other than the viewer with cards still in the stock
(never the shown last card of ``bottom_shown``, §3.8): the viewer's information is the same in
both worlds, so everything he is told must be too. Used by tests/engine/rules/test_s8_6_escape.py and
tests/tables/test_two_worlds.py.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

from apps.engine.bots.choose import bot_choose
from apps.engine.cards import KINDS
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.rules import PRESET_PLAYERS, RuleSet, resolve_ruleset

# Every preset and player count (chenzhou and luzhou: 2-4), 逃跑 on and off.
CONFIGS: list[tuple[str, int, bool]] = [
    (preset, players, escape)
    for preset, counts in PRESET_PLAYERS.items() for players in counts for escape in (False, True)
]


def ruleset(preset: str, players: int, escape: bool) -> RuleSet:
    return resolve_ruleset(preset, {"escape_penalty": escape}, players=players)


def resting_states(rs: RuleSet, label: str, hands: int, every: int = 3) -> Iterator[tuple[Hand, list]]:
    """Hands in play of seeded bot games (random and greedy bots in turn), every ``every``-th
    decision of each, with the events of the action that led there. The hand is live: use it
    before asking for the next one."""
    for i in range(hands):
        seed = hand_seed(f"two-worlds:{label}", i)
        h, rng = Hand(rs, dealer=i % rs.players, seed=seed), random.Random(seed)
        kind = "greedy" if i % 2 else "random"
        events, step = list(h.events), rng.randrange(every)
        while not h.finished:
            if step % every == 0:
                yield h, events
            seat = rng.choice(h.to_act())
            events = h.apply(seat, bot_choose(h, seat, kind, rng))
            step += 1


def other_world(h: Hand, viewer: int | None, rng: random.Random, swaps: int = 3) -> Hand | None:
    """A copy of ``h`` with up to ``swaps`` concealed cards of seats other than ``viewer`` swapped
    with stock cards of another kind, keeping what everyone knows: no seat ends up with four of a
    kind in hand (it would have had to 提), the seat that must discard keeps a card it may discard.
    None when nothing could be swapped."""
    other = copy.deepcopy(h)
    seats = [s for s in other.active_seats if s != viewer and any(other.hands[s])]
    end = len(other.stock) - (1 if other.rs.bottom_shown else 0)
    changed = False
    for _ in range(swaps):
        if not seats or other._stock_pos >= end:
            break
        x = rng.choice(seats)
        hand = other.hands[x]
        c = rng.choice([k for k in range(KINDS) if hand[k]])
        places = [p for p in range(other._stock_pos, end) if other.stock[p] != c and hand[other.stock[p]] < 3]
        if not places:
            continue
        p = rng.choice(places)
        d = other.stock[p]
        hand[c] -= 1
        hand[d] += 1
        if other.phase == "discard" and x == other.turn and not any(0 < n < 3 for n in hand):
            hand[c] += 1  # everyone knows he holds a card he may discard (§5.6, §11.4): keep it so
            hand[d] -= 1
            continue
        other.stock[p] = c
        changed = True
    return other if changed else None
