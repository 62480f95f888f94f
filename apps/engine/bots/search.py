"""The searching bot (level ``hard``): information-set sampling with greedy play-outs.

``search_choose(rules, view, rng, budget)`` decides from one seat's view (``observer.build_view(hand, seat)``) and
the table's public rules, nothing else: it never sees the hand object, so it cannot read another
seat's cards, a face-down 偎 or the stock. For each decision it

1. lists the candidates: 胡 when offered (always taken, as by every level), else every 吃/碰/pass on
   a card in question, or the ``DISCARDS`` discards the greedy bot rates best;
2. samples worlds consistent with the view: the cards the seat has not seen (4 copies of each kind
   minus its own hand, every visible laid card, the discard rows and the card in question) are dealt
   at random to the other seats' hands (their sizes are public), their face-down 偎 (three of a kind
   still unseen), the stock (its size is public) and, when the preset sets cards aside, the rest —
   rejecting deals the rules exclude: four of a kind in a hand (it would have been 提'd), a 坎 of a
   kind that was discarded or shown since (it would have been 跑'd), a pair of a card the seat
   itself let go, or a forced 跑 on the card in question while the seat is offered a 碰/吃;
3. in each world plays every candidate out to the end of the hand with the greedy bot for all
   seats, the same play-out randomness for every candidate (common random numbers), and scores the
   seat's points under the preset's scoring and settlement (a drawn hand is 0);
4. keeps the greedy choice unless another candidate's mean is better by more than ``Z`` standard
   errors of the paired difference (a noisy estimate never overrides the sound default); the
   search ends early once every candidate is clearly better, clearly worse or plays alike.

It stops when the ``budget`` is spent: a number of worlds, CPU milliseconds of the calling thread
(``time.thread_time``: other processes' and threads' turns do not count), wall milliseconds (a
server thread waiting for the GIL does), whichever comes first; at least one world is always played.
With only ``worlds`` bounded the choice is a function of the view, the rules and the rng's state.
"""

from __future__ import annotations

import gc
import math
import random
import time
from dataclasses import dataclass
from typing import Any

from ..actions import HU, Action
from ..cards import COPIES, KINDS, parse_card
from ..groups import Group
from ..play.claims import discard_claim, draw_claim
from ..play.hand import Hand
from ..play.resolution import Claim
from ..rules import RuleSet
from .greedy import greedy, partners

# Discards searched: the greedy bot's best few (fewest partners first).
DISCARDS = 4
# A candidate replaces the greedy choice only when its mean beats it by Z standard errors.
Z = 1.0
# A play-out that has not ended after this many actions is scored as a draw (never seen).
MAX_STEPS = 2000
# Attempts at a deal the rules allow before the last one is taken as it is.
DEAL_TRIES = 30
# The search ends early, after at least MIN_WORLDS worlds, once every candidate is told apart from the
# greedy choice by SETTLED standard errors (or plays exactly alike in every world so far).
MIN_WORLDS = 12
SETTLED = 3.0


@dataclass(frozen=True)
class Budget:
    """How much a decision may cost; ``None`` leaves that bound out (at least one world is played)."""

    worlds: int | None = 400
    cpu_ms: float | None = 10.0
    wall_ms: float | None = 100.0


DEFAULT_BUDGET = Budget()


def search_choose(
    rules: RuleSet, view: dict[str, Any], rng: random.Random, budget: Budget = DEFAULT_BUDGET, known: Known | None = None,
) -> Action:
    """The action the search picks for ``view["viewer"]``; ValueError when it has nothing to decide.

    ``known``: the sampler to draw worlds from instead of ``Known(rules, view)`` — only the fair-play
    calibration's cheating bots pass one (a ``Known`` told other seats' cards, ``Known.tell``)."""
    # ``escape`` (RULES.md §8.6) is a player's choice to leave, never a bot's.
    legal = [a for a in (Action.from_wire(a) for a in view.get("legal_actions") or []) if a.type != "escape"]
    if not legal:
        raise ValueError(f"seat {view.get('viewer')} has nothing to decide")
    if HU in legal:
        return HU
    if len(legal) == 1:
        return legal[0]
    # A play-out allocates thousands of short-lived objects: a cyclic collection in the middle of a
    # decision (tens of ms in a big server process) is put off until the decision is made.
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    collecting = gc.isenabled()
    gc.disable()
    try:
        if known is None:
            known = Known(rules, view)
        candidates = _candidates(known, legal, rng)
        if len(candidates) == 1:
            return candidates[0]
        return _search(known, legal, candidates, rng, budget, cpu0, wall0)
    finally:
        if collecting:
            gc.enable()


def _search(
    known: Known, legal: list[Action], candidates: list[Action], rng: random.Random, budget: Budget,
    cpu0: float, wall0: float,
) -> Action:
    n = len(candidates)
    sums = [0.0] * n
    diffs = [[0.0, 0.0] for _ in range(n)]  # sum and sum of squares of (candidate - greedy) per world
    worlds = 0
    while True:
        deal = known.sample(rng)
        seed = rng.getrandbits(64)
        values = []
        for action in candidates:
            world = known.world(deal, legal)
            values.append(_play_out(world, known.seat, action, seed) if world is not None else 0.0)
        base = values[0]
        for i, v in enumerate(values):
            sums[i] += v
            d = v - base
            diffs[i][0] += d
            diffs[i][1] += d * d
        worlds += 1
        if budget.worlds is not None and worlds >= budget.worlds:
            break
        if worlds >= MIN_WORLDS and worlds % 4 == 0 and _settled(diffs, worlds):
            break
        # Stop when one more world (at the mean cost so far) would overrun the budget.
        if budget.cpu_ms is not None and (time.thread_time() - cpu0) * 1000 * (worlds + 1) / worlds > budget.cpu_ms:
            break
        if budget.wall_ms is not None and (time.perf_counter() - wall0) * 1000 * (worlds + 1) / worlds > budget.wall_ms:
            break
    best, best_margin = 0, 0.0
    for i in range(1, n):
        mean, se = _paired(diffs[i], worlds)
        if mean > Z * se and mean - Z * se > best_margin:
            best, best_margin = i, mean - Z * se
    return candidates[best]


def _paired(diff: list[float], worlds: int) -> tuple[float, float]:
    """Mean and standard error of a candidate's per-world difference from the greedy choice."""
    mean = diff[0] / worlds
    if worlds < 2:
        return mean, math.inf
    var = max(0.0, (diff[1] - worlds * mean * mean) / (worlds - 1))
    return mean, math.sqrt(var / worlds)


def _settled(diffs: list[list[float]], worlds: int) -> bool:
    for diff in diffs[1:]:
        mean, se = _paired(diff, worlds)
        if se == 0.0 and mean <= 0:
            continue  # plays exactly like the greedy choice so far, or worse in every world alike
        if abs(mean) <= SETTLED * se:
            return False
    return True


def _play_out(world: Hand, seat: int, action: Action, seed: int) -> float:
    """Apply ``action`` for ``seat``, let greedy bots finish the hand; the seat's points."""
    rng = random.Random(seed)
    world.apply(seat, action)
    steps = 0
    while not world.finished:
        steps += 1
        if steps > MAX_STEPS:
            return 0.0
        s = world.to_act()[0]
        world.apply(s, greedy(world, s, world.decision_actions(s), rng))
    result = world.result or {}
    if result.get("winner") is None:
        return 0.0
    return float(result["settlement"]["deltas"].get(seat, 0))


def _candidates(known: Known, legal: list[Action], rng: random.Random) -> list[Action]:
    """The greedy choice first, then the other actions worth searching."""
    world = known.world(known.sample(rng), legal)
    if world is None:  # the view admits no deal: play greedy on what the seat holds
        world = known.bare_world(legal)
    first = greedy(world, known.seat, legal, rng)
    if known.phase == "discard":
        counts = known.own
        ranked = sorted((a for a in legal if a.type == "discard"), key=lambda a: (partners(counts, a.card), a.card))
        others = [a for a in ranked if a != first][: DISCARDS - 1]
    else:
        others = [a for a in legal if a.type in ("chi", "peng", "pass") and a != first]
    return [first, *others]


def _cards(names: list | None) -> list[int | None]:
    return [None if c is None else parse_card(c) for c in names or []]


class Known:
    """What one seat's view tells: the parts of every world that are certain, and what is not.

    ``tell(seat, hand, wei)`` and ``tell_stock(stock)`` add what the view does not hold (the fair-play
    analysis and its calibration bots only, analysis/fairplay.py): another seat's concealed hand and
    the kinds of its face-down 偎, or the stock in drawing order. A told seat's cards are no longer
    sampled; with every other seat and the stock told, every sample is the true world.
    """

    def __init__(self, rules: RuleSet, view: dict[str, Any]):
        self.rules = rules
        self.seat = seat = int(view["viewer"])
        self.players = rules.players
        self.dealer = int(view["dealer"])
        self.phase = view["phase"]
        seats = range(self.players)
        key = _keyer(view)
        self.active = list(view["active_seats"])
        own = [0] * KINDS
        for c in _cards(view["hands"][key(seat)]):
            own[c] += 1  # type: ignore[index]
        self.own = own
        seen = list(own)
        self.groups: list[list[Group]] = []
        self.hidden_wei: list[list[int]] = []  # per seat: indexes of face-down 偎 in its groups
        for s in seats:
            laid, hidden = [], []
            for g in view["groups"][key(s)]:
                cards = _cards(g["cards"])
                if all(c is None for c in cards):
                    hidden.append(len(laid))
                    laid.append(Group(g["kind"], (0,) * len(cards)))  # its kind is sampled
                    continue
                kind_card = next(c for c in cards if c is not None)
                full = tuple(kind_card if c is None else c for c in cards)  # 提/臭偎/偎 show one: all alike
                for c in full:
                    seen[c] += 1
                laid.append(Group(g["kind"], full))
            self.groups.append(laid)
            self.hidden_wei.append(hidden)
        self.discards = [[parse_card(c) for c in view["discards"][key(s)]] for s in seats]
        for row in self.discards:
            for c in row:
                seen[c] += 1
        table = view.get("table")
        self.table = None
        if table is not None and table.get("card") is not None:
            self.table = (parse_card(table["card"]), table["source"], int(table["seat"]))
            seen[self.table[0]] += 1
        self.sizes = [0 if s == seat else int(view["hand_sizes"][key(s)]) for s in seats]
        self.stock = int(view["stock"])
        self.reveal = None if view["reveal"] is None else parse_card(view["reveal"])
        # bottom_shown (§3.8): the stock's last card is public; the sampled stock ends with it.
        bottom = view.get("bottom_card")
        self.bottom = None if bottom is None else parse_card(bottom)
        if self.bottom is not None:
            seen[self.bottom] += 1
        self.dead = [bool(view["dead"][key(s)]) for s in seats]
        self.chou = {parse_card(c) for c in view.get("chou") or []}
        self.unseen = [max(0, COPIES - n) for n in seen]
        # Upper bounds on another seat's hand counts the rules imply (see the module docstring).
        public = set()
        for row in self.discards:
            public.update(row)
        caps = []
        for s in seats:
            cap = [3] * KINDS
            for c in public:
                cap[c] = 2
            for c in self.discards[s]:
                cap[c] = 1
            caps.append(cap)
        self.caps = caps
        self.told: dict[int, tuple[list[int], list[int]]] = {}
        self.told_stock: list[int] | None = None

    def tell(self, seat: int, hand: list[int], wei: list[int]) -> None:
        """Make ``seat``'s concealed hand (count vector) and its face-down 偎 kinds (in the order of
        ``hidden_wei[seat]``) known: they leave the unseen pool and are never sampled."""
        if seat == self.seat or seat in self.told:
            raise ValueError(f"seat {seat} is the viewer or already told")
        if len(wei) != len(self.hidden_wei[seat]):
            raise ValueError("one kind per face-down 偎")
        for c in range(KINDS):
            self.unseen[c] -= hand[c]
        for i, c in zip(self.hidden_wei[seat], wei, strict=True):
            self.unseen[c] -= len(self.groups[seat][i].cards)
        # never below 0 (as ``unseen`` itself): during a 偎胡/提胡 option (a claim on the seat's own
        # card, RULES.md §5.2.3) the card in question is counted both on the table and in its group
        self.unseen = [max(0, n) for n in self.unseen]
        self.told[seat] = (list(hand), list(wei))
        self.sizes[seat] = 0

    def tell_stock(self, stock: list[int]) -> None:
        """Make the stock known, the next card to draw first (its bottom card included)."""
        if len(stock) != self.stock:
            raise ValueError("the stock holds another number of cards")
        for c in stock:
            self.unseen[c] -= 1
        if self.bottom is not None:
            self.unseen[self.bottom] += 1  # already counted as seen
        self.unseen = [max(0, n) for n in self.unseen]
        self.told_stock = list(stock)

    def sample(self, rng: random.Random) -> tuple[list[list[int]], list[list[int]], list[int]]:
        """One deal of the unseen cards: (hand counts per seat, 偎 kinds per seat, stock order)."""
        for _ in range(DEAL_TRIES):
            deal = self._deal(rng)
            if deal is not None and self._allowed(deal[0]):
                return deal
        deal = None
        while deal is None:
            deal = self._deal(rng)
        return deal

    def _deal(self, rng: random.Random):
        pool_counts = list(self.unseen)
        wei_kinds: list[list[int]] = []
        for s in range(self.players):
            if s in self.told:
                wei_kinds.append(list(self.told[s][1]))
                continue
            kinds = []
            for _ in self.hidden_wei[s]:
                choices = [c for c in range(KINDS) if pool_counts[c] >= 3 and c != self._no_wei()]
                if not choices:
                    return None
                c = rng.choice(choices)
                pool_counts[c] -= 3
                kinds.append(c)
            wei_kinds.append(kinds)
        pool = [c for c in range(KINDS) for _ in range(pool_counts[c])]
        rng.shuffle(pool)
        hands = []
        pos = 0
        for s in range(self.players):
            if s in self.told:
                hands.append(list(self.told[s][0]))
                continue
            vec = [0] * KINDS
            for c in pool[pos : pos + self.sizes[s]]:
                vec[c] += 1
            pos += self.sizes[s]
            hands.append(vec)
        if self.told_stock is not None:
            stock = list(self.told_stock)
        elif self.bottom is not None:
            stock = pool[pos : pos + self.stock - 1] + [self.bottom]
        else:
            stock = pool[pos : pos + self.stock]
        return hands, wei_kinds, stock

    def _no_wei(self) -> int | None:
        """A kind no face-down 偎 can be: the card in question while the seat may claim it (a 跑
        on it would be forced, and 碰/吃 not offered)."""
        return self.table[0] if self.table is not None and self.phase == "claim" else None

    def _allowed(self, hands: list[list[int]]) -> bool:
        for s in range(self.players):
            if s == self.seat or s in self.told:
                continue
            vec, cap = hands[s], self.caps[s]
            for c in range(KINDS):
                if vec[c] > cap[c]:
                    return False
            if self.table is not None and self.phase == "claim" and vec[self.table[0]] >= 3:
                return False
        return True

    def bare_world(self, legal: list[Action]) -> Hand:
        """A world of the seat's own cards with empty other hands and stock (a greedy fallback)."""
        hands = [[0] * KINDS for _ in range(self.players)]
        return self._build(hands, [[0] * len(h) for h in self.hidden_wei], [], legal, strict=False)  # type: ignore[return-value]

    def world(self, deal, legal: list[Action]) -> Hand | None:
        """The hand of one sampled deal, the seat to decide with exactly its legal actions."""
        hands, wei_kinds, stock = deal
        return self._build(hands, wei_kinds, stock, legal, strict=True)

    def _build(self, hands, wei_kinds, stock, legal, strict: bool) -> Hand | None:
        rules, seat = self.rules, self.seat
        groups = []
        for s in range(self.players):
            laid = list(self.groups[s])
            for i, c in zip(self.hidden_wei[s], wei_kinds[s], strict=True):
                laid[i] = Group(laid[i].kind, (c,) * len(laid[i].cards))
            groups.append(laid)
        w = Hand.at_position(
            rules, self.dealer,
            hands=[self.own if s == seat else hands[s] for s in range(self.players)],
            groups=groups,
            discards=self.discards,
            chou=[self.chou if s == seat else self.discards[s] for s in range(self.players)],
            dead=self.dead,
            stock=stock,
            reveal=self.reveal,
        )
        if self.phase == "discard":
            w.phase, w.turn, w.claim = "discard", seat, None
            return w
        card, source, by = self.table  # type: ignore[misc]
        if source == "discard":
            claim = discard_claim(w.claim_inputs(), w.order_from(w.next_seat(by)), card)
            order, chi_order = w.order_from(w.next_seat(by))[:-1], [w.next_seat(by)]
        else:  # a shown stock card
            claim = draw_claim(w.claim_inputs(), w.order_from(by), card)
            order, chi_order = w.order_from(by), [by, w.next_seat(by)]
        if claim is None:
            claim = Claim(card, source, by, order, chi_order)
        elif claim.pao_seat is not None and strict:
            return None  # a forced 跑 would have kept the seat's 碰/吃 off the table
        claim.pao_seat = None
        claim.last_card = self.stock == 0
        claim.options[seat] = list(legal)
        w.phase, w.turn, w.claim = "claim", None, claim
        return w


def _keyer(view: dict[str, Any]):
    """Seat keys of a view's per-seat maps: ints in the engine, strings after a JSON round trip."""
    sample = view["hands"]
    if any(isinstance(k, str) for k in sample):
        return str
    return int


# The sampler, public for the reviewer (review.py): what one seat's view tells, and worlds consistent with it.

__all__ = ["DEFAULT_BUDGET", "Budget", "Known", "search_choose"]
