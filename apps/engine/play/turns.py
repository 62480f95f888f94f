"""The turn cycle of one hand (RULES.md §3–§5, §7, §11.4): the state and its transitions.

``HandState`` holds the state and performs every transition: the deal, natural and reveal wins,
opening 提, draws with their forced 提/偎/臭偎, discards, claims (§5.3) and their execution, and the
count rule (§5.6). ``Hand`` (hand.py) adds the public, checked API on top.
"""

from __future__ import annotations

from ..actions import HU, PASS, PENG, Action
from ..cards import RED, cards_of, counts_of, names
from ..groups import Group
from ..rules import RuleSet
from ..scoring.fast import can_win, score_win
from ..scoring.huxi import group_huxi
from ..scoring.prefilter import may_complete
from ..scoring.settlement import capped, escape_amounts, settle_amounts
from .claims import Seats, discard_claim, draw_claim
from .events import Event
from .resolution import Claim

_NAMES = names(range(20))
_WEI = ("wei", "chou_wei")
_JOINS = ("wei", "chou_wei", "peng")  # laid groups a 4th card joins


class HandState:
    """Mutable state of one hand; every method here trusts its caller (checks live in ``Hand``)."""

    rs: RuleSet

    def _setup(self, rs: RuleSet, dealer: int, deck: list[int]) -> None:
        self.rs = rs
        self.players = rs.players
        self.dealer = dealer
        self.deck = deck
        n = rs.players
        self.active_seats = rs.active_seats(dealer)
        self._next = {s: self.active_seats[(i + 1) % len(self.active_seats)] for i, s in enumerate(self.active_seats)}
        seats = self.active_seats  # the play order from each active seat (never mutated):
        self._orders = {s: seats[i:] + seats[:i] for i, s in enumerate(seats)}
        self.hands: list[list[int]] = [[0] * 20 for _ in range(n)]
        self.groups: list[list[Group]] = [[] for _ in range(n)]
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self._chou: list[set[int]] = [set() for _ in range(n)]
        self._chou_peng: list[set[int]] = [set() for _ in range(n)]  # passed 碰: a later own draw is 臭偎
        self._chou_hu: list[dict[int, int]] = [{} for _ in range(n)]  # declined 胡 card -> laid 胡息 then
        self.dead = [False] * n  # 死手 (§11.4)
        self.events: list[Event] = []
        self.passes: tuple[int, ...] = (0,) * n  # each seat's pass events so far (viewer numbering)
        self.actions: list[tuple[int, Action]] = []
        self.finished = False
        self.result: dict | None = None
        self.phase = "deal"  # "claim" | "discard" | "finished"
        self.turn: int | None = None  # the seat that must discard
        self.claim: Claim | None = None
        self.stock: list[int] = []
        self._stock_pos = 0
        self.won_card: int | None = None
        self.reveal: int | None = None  # None with bottom_shown (§3.8.1: no reveal card)
        self.set_aside: list[int] = []  # remove_cards (§9.6): never drawn, never shown live

    # ---- helpers ----------------------------------------------------------------------------
    def next_seat(self, seat: int) -> int:
        return self._next[seat]

    def order_from(self, seat: int) -> list[int]:
        """Active seats in play order starting with ``seat``."""
        return list(self._orders[seat])

    def _emit(self, type_: str, seat: int | None = None, secret: bool = False, **fields: object) -> None:
        if type_ == "pass":
            passes = list(self.passes)
            passes[seat] += 1  # type: ignore[index]
            self.passes = tuple(passes)
        self.events.append(Event(len(self.events) + 1, type_, seat, fields, secret, self.passes))

    def held(self, seat: int) -> int:
        """Cards a seat holds in all: hand plus laid groups."""
        return sum(self.hands[seat]) + sum(len(g.cards) for g in self.groups[seat])

    def count_of(self, seat: int) -> int:
        """The §5.6 count: base + max(0, k − 1) with k the seat's 4-card groups."""
        k = sum(1 for g in self.groups[seat] if g.kind == "ti" or g.kind == "pao")
        return self.rs.base_count + max(0, k - 1)

    def _laid(self, seat: int, card: int, kinds: tuple[str, ...]) -> int | None:
        i = 0
        for g in self.groups[seat]:
            if g.cards[0] == card and g.kind in kinds:
                return i
            i += 1
        return None

    def _may_hu(self, seat: int, card: int) -> bool:
        """胡 is offered unless the hand is dead or a declined 胡 on this card still binds (臭胡, §7)."""
        if self.dead[seat]:
            return False
        if self.rs.chou_hu and card in self._chou_hu[seat]:
            return self._chou_hu[seat][card] != self._laid_huxi(seat)
        return True

    def _laid_huxi(self, seat: int) -> int:
        return sum(group_huxi(self.rs, g) for g in self.groups[seat])

    def offers_hu(self, seat: int, card: int, win_by: str, pre: tuple | None = None) -> bool:
        """Whether ``seat`` is offered 胡 on ``card``; ``pre``: (hand, groups) before a forced 偎/提."""
        return self._may_hu(seat, card) and self.cards_win(seat, card, win_by, pre)

    def cards_win(self, seat: int, card: int, win_by: str, pre: tuple | None = None) -> bool:
        """Whether ``seat``'s cards with ``card`` make a win (the scorer's ``can_win``; tests that force
        a win replace this method, the rules of ``_may_hu`` still apply)."""
        if pre is None:
            hand = self.hands[seat]
            # A cheap necessary condition first: most hands are far from a win. It applies when the
            # card joins a hand group (no 坎 of it, no laid 偎/碰 for it to join; a pair is fine).
            if hand[card] < 3 and not may_complete(hand, card) and self._laid(seat, card, _JOINS) is None:
                return False
            vec, groups = tuple(hand), self.groups[seat]
        else:
            vec, groups = pre
        return can_win(self.rs, vec, groups, card, win_by, dealer=seat == self.dealer)

    def claim_inputs(self) -> Seats:
        """What the claim builder (claims.py) reads of this hand."""
        return Seats(self.rs, self.hands, self.groups, self.dead, self._chou, self.offers_hu)

    # ---- the deal (§3) ----------------------------------------------------------------------
    def _deal(self) -> None:
        rs = self.rs
        block = 14 if rs.deal_all else 20
        pos = 0
        order = self._orders[self.dealer]
        deck = self.deck
        if rs.remove_cards:  # §9.6 抽牌: the deck's last cards are set aside before the deal
            self.set_aside = deck[len(deck) - rs.remove_cards :]
            deck = deck[: len(deck) - rs.remove_cards]
        dealt = {}
        for s in order:
            cards = deck[pos : pos + block]
            if s == self.dealer and rs.bottom_shown:
                # §3.8.1: the card that would be turned up goes face down to the dealer (his 21st)
                cards.append(deck[block * len(order)])
            self.hands[s] = counts_of(cards)
            cards.sort()
            dealt[s] = [_NAMES[c] for c in cards]
            pos += block
        self._emit("deal", hands={s: dealt[s] for s in sorted(order)})
        if rs.remove_cards:  # announced after the deal: the first event of every hand is the deal
            self._emit("set_aside", count=rs.remove_cards, cards=[_NAMES[c] for c in self.set_aside])
        if rs.bottom_shown:
            self.stock = deck[pos + 1 :]
            self._show_bottom()
        else:
            self.reveal = deck[pos]
            self.stock = deck[pos + 1 :]
            self._emit("reveal", card=_NAMES[self.reveal])
        # Natural win (§3.3): forced, first in seat order from the dealer, who counts the reveal card
        # (with bottom_shown his 21st card is already in his hand).
        reveal = self.reveal
        for s in order:
            vec = list(self.hands[s])
            if s == self.dealer and reveal is not None:
                vec[reveal] += 1
            tis = vec.count(4)
            kans = vec.count(3) + tis
            if tis >= 3 or kans >= 5:
                # The reveal card stays accounted for: the dealer's own card, or face up on the table.
                if reveal is not None:
                    if s == self.dealer:
                        self.hands[s][reveal] += 1
                    else:
                        self.won_card = reveal
                self._emit("natural_win", s)
                self._win(s, "natural", None, vec, [])
                return
        if reveal is None:  # §3.8.1: no reveal win; opening 提, then the dealer's count rule
            self._run(self._opening_ti())
            return
        # Reveal win (§3.4): each player's choice, priority in seat order from the dealer.
        claim = Claim(reveal, "reveal", self.dealer, order, [])
        hu_only = [HU] if rs.forced_win else [HU, PASS]
        for s in order:
            vec = self.hands[s]  # no four of a kind held: the cheap necessary condition applies
            if vec[reveal] < 3 and max(vec) < 4 and not may_complete(vec, reveal):
                continue
            if can_win(rs, tuple(vec), [], reveal, "reveal", dealer=s == self.dealer):
                claim.options[s] = hu_only
        if claim.options:
            self._open(claim)
        else:
            self._run(self._after_reveal())

    def _show_bottom(self) -> None:
        """§3.8.2: the last stock card is turned up; while it is red it moves to the top (the next
        card drawn) and the new last card is turned up; if every stock card is red, it stays."""
        stock = self.stock
        self._emit("bottom_shown", card=_NAMES[stock[-1]])
        if all(c in RED for c in stock):
            return
        while stock[-1] in RED:
            card = stock.pop()
            stock.insert(0, card)
            self._emit("bottom_to_top", card=_NAMES[card])
            self._emit("bottom_shown", card=_NAMES[stock[-1]])

    def _after_reveal(self) -> int | None:
        """The reveal card joins the dealer; opening 提 (forced); then the count rule (§3.5–3.7)."""
        self.hands[self.dealer][self.reveal] += 1  # type: ignore[index]
        return self._opening_ti()

    def _opening_ti(self) -> int | None:
        """Opening 提 (forced, §3.6), then the dealer's count rule (§3.7)."""
        for s in self._orders[self.dealer]:
            vec = self.hands[s]
            if 4 not in vec:
                continue
            for c in range(20):
                if vec[c] == 4:
                    vec[c] = 0
                    self.groups[s].append(Group("ti", (c, c, c, c)))
                    self._emit("ti", s, card=_NAMES[c], **{"from": "deal"})
        return self._after_acquire(self.dealer)

    # ---- the turn cycle (§5) ----------------------------------------------------------------
    def _run(self, seat: int | None) -> None:
        """Draw for seat after seat until someone must decide or the hand ends."""
        while seat is not None and not self.finished:
            seat = self._draw(seat)

    def _after_acquire(self, seat: int) -> int | None:
        """Count rule (§5.6): discard iff holding more than the count; else the next player draws.

        A player who must discard but has no discardable card skips it and his hand is dead (§11.4).
        """
        if self.held(seat) > self.count_of(seat):
            if any(0 < n < 3 for n in self.hands[seat]):
                self.phase, self.turn, self.claim = "discard", seat, None
                return None
            self.dead[seat] = True
        return self._next[seat]

    def _draw(self, seat: int) -> int | None:
        """Draw for ``seat`` (§5.2); returns the next seat to draw, or None (a decision, or the end)."""
        if self._stock_pos >= len(self.stock):
            self._emit("huang")
            self.phase, self.turn, self.claim, self.finished = "finished", None, None, True
            self.result = {"winner": None, "draw": True}
            return None
        c = self.stock[self._stock_pos]
        self._stock_pos += 1
        last = self._stock_pos == len(self.stock)
        events = self.events
        events.append(Event(len(events) + 1, "draw", seat, {"card": _NAMES[c]}, True, self.passes))
        vec = self.hands[seat]
        wei = None if vec[c] == 3 else self._laid(seat, c, _WEI)
        if vec[c] == 3 or wei is not None:  # 提 (forced): from a 坎 in hand or a laid 偎
            pre = (tuple(vec), list(self.groups[seat]))
            if vec[c] == 3:
                vec[c] = 0
                self.groups[seat].append(Group("ti", (c, c, c, c)))
                source = "kan"
            else:
                self.groups[seat][wei] = Group("ti", (c, c, c, c))  # type: ignore[index]
                source = "wei"
            self._emit("ti", seat, card=_NAMES[c], **{"from": source})
            return self._after_forced(seat, c, pre, last)
        if vec[c] == 2:  # 偎 or 臭偎 (forced)
            pre = (tuple(vec), list(self.groups[seat]))
            chou = c in self._chou_peng[seat]
            vec[c] = 0
            self.groups[seat].append(Group("chou_wei" if chou else "wei", (c, c, c)))
            secret = not chou and self.rs.wei_shown == "none"
            self._emit("wei", seat, secret=secret, card=_NAMES[c], chou=chou)
            return self._after_forced(seat, c, pre, last)
        events.append(Event(len(events) + 1, "show", seat, {"card": _NAMES[c]}, False, self.passes))
        return self._claim_draw(seat, c, last)

    def _after_forced(self, seat: int, card: int, pre: tuple, last: bool) -> int | None:
        """偎胡/提胡 option (§5.2.3, §11.10; never on the shown last card, §3.8.3), then the count rule."""
        if not (last and self.rs.bottom_shown) and self.offers_hu(seat, card, "self_draw", pre):
            claim = Claim(card, "self", seat, [seat], [])
            claim.options[seat] = [HU] if self.rs.forced_win else [HU, PASS]
            claim.pre = pre
            claim.last_card = last
            self._open(claim)
            return None
        return self._after_acquire(seat)

    def _claim_draw(self, drawer: int, c: int, last: bool) -> int | None:
        """Claims on a shown stock card (§5.2.4); unclaimable, it goes to the discard row."""
        hu = not (last and self.rs.bottom_shown)  # §3.8.3: nobody wins on the shown last card
        claim = draw_claim(self.claim_inputs(), self._orders[drawer], c, hu)
        if claim is None:
            self.discards[drawer].append(c)
            self.phase, self.turn, self.claim = "claim", None, None
            return self._next[drawer]
        claim.last_card = last
        return self._open(claim)

    def _discard(self, seat: int, c: int) -> int | None:
        """Discard (§5.1): the card is 臭 for the discarder; then claims on it."""
        self.hands[seat][c] -= 1
        self._chou[seat].add(c)
        self._emit("discard", seat, card=_NAMES[c])
        claim = discard_claim(self.claim_inputs(), self._orders[self._next[seat]], c)
        if claim is None:
            self.discards[seat].append(c)
            self.phase, self.turn, self.claim = "claim", None, None
            return self._next[seat]
        return self._open(claim)

    def _open(self, claim: Claim) -> int | None:
        """Ask everyone with an option at once (lists complete and sorted), or resolve straight away."""
        self.phase, self.turn, self.claim = "claim", None, claim
        return self._resolve()

    def _resolve(self) -> int | None:
        """Execute the best claim once it is certain (§5.3); returns the next seat to draw, if any."""
        claim = self.claim
        assert claim is not None
        done, seat, action, key = claim.resolve()
        if not done:
            return None
        c = claim.card
        if claim.decided:
            for s in claim.hu_order:  # only the outcome is told: the passes, then the claim
                decided = claim.decided.get(s)
                if decided is not None and decided.type == "pass":
                    self._emit("pass", s)
            if self.rs.chou_hu:  # 臭胡: a declined 胡 binds while laid 胡息 is unchanged
                for s, decided in claim.decided.items():
                    if HU in claim.options[s] and decided.type != "hu":
                        self._chou_hu[s][c] = self._laid_huxi(s)
        for s in claim.options:  # §7: a passed 碰/吃 is 臭 unless an outranking claim took the card
            pc = claim.peng_chi_key(s)
            if pc is not None and s != seat and (key is None or key < pc):
                self._chou[s].add(c)
                if PENG in claim.options[s]:
                    self._chou_peng[s].add(c)
        # chou_on_unable_chi (§7): as a passed 吃, unless a claim outranking that 吃 took the card.
        for s in claim.unable_chi:
            if s != seat and (key is None or key < claim.key(s, "chi")):
                self._chou[s].add(c)
        self.claim = None
        if seat is None:
            if claim.source == "reveal":
                return self._after_reveal()
            if claim.source == "self":
                return self._after_acquire(claim.seat)
            self.discards[claim.seat].append(c)
            return self._next[claim.seat]
        assert action is not None
        if action.type == "hu":
            return self._hu(seat, claim)
        vec = self.hands[seat]
        if action.type == "pao":
            if vec[c] == 3:
                vec[c] = 0
                self.groups[seat].append(Group("pao", (c, c, c, c)))
                source = "kan"
            else:
                i = self._laid(seat, c, ("wei", "chou_wei", "peng"))
                assert i is not None
                source = "peng" if self.groups[seat][i].kind == "peng" else "wei"
                self.groups[seat][i] = Group("pao", (c, c, c, c))
            self._emit("pao", seat, card=_NAMES[c], **{"from": source})
        elif action.type == "peng":
            vec[c] -= 2
            self.groups[seat].append(Group("peng", (c, c, c)))
            self._emit("peng", seat, card=_NAMES[c])
        else:
            vec[c] += 1  # the taken card passes through the hand into the groups
            for g in action.groups:
                for x in g:
                    vec[x] -= 1
                self.groups[seat].append(Group("chi", g))
            self._emit("chi", seat, card=_NAMES[c], groups=[[_NAMES[x] for x in g] for g in action.groups])
        return self._after_acquire(seat)

    def _hu(self, seat: int, claim: Claim) -> None:
        c = claim.card
        # The winning card stays "on the table" (card_locations) unless a 偎/提 already laid it.
        self.won_card = None if claim.source == "self" else c
        if claim.source == "self":
            hand, groups = claim.pre  # type: ignore[misc]
            self._win(seat, "self_draw", c, list(hand), list(groups), last_card=claim.last_card)
        elif claim.source == "reveal":
            self._win(seat, "reveal", c, list(self.hands[seat]), [])
        elif claim.source == "draw":
            win_by = "self_draw" if seat == claim.seat else "other_draw"
            self._win(seat, win_by, c, list(self.hands[seat]), list(self.groups[seat]), last_card=claim.last_card)
        else:
            self._win(seat, "discard", c, list(self.hands[seat]), list(self.groups[seat]), discarder=claim.seat)
        return None

    def _win(
        self,
        seat: int,
        win_by: str,
        card: int | None,
        hand: list[int],
        groups: list[Group],
        last_card: bool = False,
        discarder: int | None = None,
    ) -> None:
        """Score the win (only now: claims.py uses the fast ``can_win``) and end the hand."""
        score = score_win(
            self.rs, cards_of(hand), groups, card, win_by,
            dealer=seat == self.dealer, last_card=last_card, reveal_card=self.reveal,
        )
        settlement = capped(self.rs, score.to_wire())
        amounts = settle_amounts(
            self.rs, seat, settlement["score"], self.active_seats, base=1, piao=None, discarder=discarder
        )
        settlement["deltas"] = dict(amounts["total"])
        name = None if card is None else _NAMES[card]
        self._emit("hu", seat, card=name, win_by=win_by, settlement=settlement)
        self.phase, self.turn, self.claim, self.finished = "finished", None, None, True
        self.result = {"winner": seat, "win_by": win_by, "card": name, "settlement": settlement}
        if discarder is not None:
            self.result["discarder"] = discarder

    def _escape(self, seat: int) -> None:
        """§8.6: ``seat`` leaves the hand in play; it ends at once and he pays the others."""
        claim = self.claim if self.phase == "claim" else None
        if claim is not None and claim.source != "self":
            self.won_card = claim.card  # the card in question stays on the table (card_locations)
        amounts = escape_amounts(self, seat)
        settlement = {
            "seat_huxi": amounts["seat_huxi"],
            "total_huxi": amounts["total_huxi"],
            "penalty": amounts["penalty"],
            "deltas": dict(amounts["total"]),
        }
        self._emit("escape", seat, penalty=amounts["penalty"], settlement=settlement)
        self.phase, self.turn, self.claim, self.finished = "finished", None, None, True
        self.result = {"escape": seat, "penalty": amounts["penalty"], "settlement": settlement}

