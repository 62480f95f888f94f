"""One hand of Paohuzi: the public, checked API over the turn cycle of turns.py.

>>> from apps.engine.rules import PRESETS
>>> h = Hand(PRESETS["full"], dealer=0, seed=bytes(32))
>>> [e.type for e in h.events][:2]
['deal', 'reveal']
"""

from __future__ import annotations

from typing import Any

from ..actions import (
    DISCARD_ORDER,
    ESCAPE,
    HU,
    PASS,
    Action,
    BadAction,
    ClaimOpen,
    EscapeOff,
    IllegalAction,
    NotLegal,
    NotYourCard,
    NotYourTurn,
    sort_actions,
)
from ..cards import COPIES, KINDS, cards_of, names, parse_card
from ..rules import RuleSet
from ..shuffle import deck_from_seed, parse_seed
from .dealer import next_dealer
from .events import AUDIT, Event
from .turns import HandState

__all__ = ["AUDIT", "Action", "Event", "Hand", "IllegalAction"]

_DISCARDS = tuple(Action("discard", c) for c in range(KINDS))
_NAMES = names(range(KINDS))
# What ``check`` tells a player, by the refusal (NotLegal names the action itself).
_CHECK_MESSAGES: dict[type[IllegalAction], str] = {
    NotYourTurn: "It is not your turn.",
    NotYourCard: "That card is not in your hand.",
    ClaimOpen: "You cannot leave while a card awaits answers.",
    EscapeOff: "Leaving a hand (escape) is not allowed at this table.",
}


class Hand(HandState):
    """The state machine of one hand.

    Construct with a 32-byte ``seed`` (the deck is the shuffle of RULES.md §11.7) or an explicit
    ``deck`` of 80 cards in deal order. The deal, natural win, reveal and opening 提 happen in the
    constructor; players then act through ``apply`` until ``finished``.
    """

    def __init__(self, rs: RuleSet, dealer: int, seed: bytes | None = None, *, deck: list | None = None):
        if (seed is None) == (deck is None):
            raise ValueError("give exactly one of seed and deck")
        if not 0 <= dealer < rs.players:
            raise ValueError(f"dealer {dealer} is not a seat of a {rs.players}-player table")
        if seed is not None:
            self.seed: bytes | None = bytes(seed)
            cards = deck_from_seed(self.seed)
        else:
            self.seed = None
            cards = [parse_card(c) if isinstance(c, str) else c for c in deck]  # type: ignore[union-attr]
            if len(cards) != KINDS * COPIES or any(cards.count(c) != COPIES for c in range(KINDS)):
                raise ValueError("a deck is 80 cards, 4 of each of the 20 kinds")
        self._setup(rs, dealer, cards)
        self._deal()

    @classmethod
    def at_position(
        cls, rs: RuleSet, dealer: int, *, hands: list, groups: list, discards: list, chou: list, dead: list,
        stock: list[int], reveal: int | None,
    ) -> Hand:
        """A hand set up at a position, with no deck and no history (the searching bot's sampled
        worlds): per seat its hand (count vector), laid groups, discard row, 臭 cards and dead flag;
        the stock still to draw. The caller then sets ``phase``, ``turn`` and ``claim``."""
        hand = cls.__new__(cls)
        hand._setup(rs, dealer, [])
        hand.seed = None
        for s in range(rs.players):
            hand.hands[s] = list(hands[s])
            hand.groups[s] = list(groups[s])
            hand.discards[s] = list(discards[s])
            hand._chou[s] = set(chou[s])
            hand.dead[s] = dead[s]
        hand.stock = list(stock)
        hand.reveal = reveal
        return hand

    # ---- whose turn and what may be done ----------------------------------------------------
    def to_act(self) -> list[int]:
        """Seats that currently have a decision to make, sorted."""
        if self.phase == "discard":
            return [self.turn]  # type: ignore[list-item]
        if self.phase == "claim" and self.claim is not None:
            return self.claim.undecided()
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        """Sorted (canonical JSON) legal actions of ``seat``; [] when it has nothing to decide.

        With ``escape_penalty`` (RULES.md §8.6) every active seat may also ``escape`` while the hand
        is in play and no claim window is open (``claim_open``): that alone never makes a seat one
        the hand waits for (``to_act``)."""
        decisions = self.decision_actions(seat)
        if self.escape_open() and seat in self._next:
            return sort_actions([*decisions, ESCAPE])
        return decisions

    def claim_open(self) -> bool:
        """Whether a claim window is open: a shown or discarded card awaits answers (public, §5.3)."""
        return self.phase == "claim" and self.claim is not None

    def escape_open(self) -> bool:
        """Whether an active seat may ``escape`` now (RULES.md §8.6): with ``escape_penalty``, while the
        hand is in play and no claim window is open (a leaver could otherwise dodge a 胡 on the card
        in question for the fixed price)."""
        return self.rs.escape_penalty and not self.finished and not self.claim_open()

    def decision_actions(self, seat: int) -> list[Action]:
        """The legal actions of ``seat`` that answer what the hand waits for (no ``escape``)."""
        if self.phase == "discard":
            if seat != self.turn:
                return []
            vec = self.hands[seat]
            return [_DISCARDS[c] for c in DISCARD_ORDER if 0 < vec[c] < 3]
        claim = self.claim
        if self.phase == "claim" and claim is not None and seat in claim.options and seat not in claim.decided:
            return list(claim.options[seat])
        return []

    def _is_legal(self, seat: int, action: Action) -> bool:
        """A fast ``action in self.legal_actions(seat)`` (False only means: check the slow way)."""
        if action is ESCAPE:
            return False
        if self.phase == "discard":
            card = action.card
            return (
                seat == self.turn and action.type == "discard" and card.__class__ is int and 0 <= card < KINDS
                and not action.groups and 0 < self.hands[seat][card] < 3
            )
        claim = self.claim
        if self.phase == "claim" and claim is not None and seat not in claim.decided:
            for a in claim.options.get(seat, ()):
                if a is action:
                    return True
        return False

    def default_action(self, seat: int) -> Action | None:
        """The time-out action (RULES.md §11.6): 胡 if offered, else pass; right-most discard (never
        ``escape``: a lost connection is never an escape, §8.6)."""
        legal = self.decision_actions(seat)
        if not legal:
            return None
        if self.phase == "discard":
            return _DISCARDS[max(a.card for a in legal)]  # type: ignore[type-var]
        return HU if HU in legal else PASS

    @property
    def pending(self) -> dict[int, list[str]]:
        """Who may still decide what on the card in question: {seat: sorted option types}."""
        if self.phase != "claim" or self.claim is None:
            return {}
        claim = self.claim
        return {s: sorted({a.type for a in claim.options[s]}) for s in claim.undecided()}

    def refusal(self, seat: int, action: Action) -> type[IllegalAction] | None:
        """Why ``action`` is not legal for ``seat`` now, as the typed error to raise; None when it is
        legal. The one statement of legality: ``apply`` and ``check`` both ask it."""
        if self.finished:
            return NotLegal
        if self._is_legal(seat, action):
            return None
        if action.type == "escape":  # RULES.md §8.6: any active seat, waited for or not
            if not self.rs.escape_penalty:
                return EscapeOff
            if self.claim_open():
                return ClaimOpen
            return None if action in self.legal_actions(seat) else NotLegal
        if seat not in self.to_act():
            return NotYourTurn
        if action in self.legal_actions(seat):
            return None
        card = action.card
        if action.type == "discard" and card.__class__ is int and 0 <= card < KINDS and not self.hands[seat][card]:
            return NotYourCard
        return NotLegal

    def check(self, seat: int, wire: object) -> Action:
        """The checked path for an untrusted wire action of ``seat``, in one call: parse it, then its
        legality now. Returns the ``Action``; raises an ``IllegalAction`` subclass whose ``code`` says
        why (``BadAction``, ``BadCard``, ``NotYourTurn``, ``NotYourCard``, ``ClaimOpen``, ``EscapeOff``,
        ``NotLegal``) and whose message is the one a player is shown."""
        if not isinstance(wire, dict):
            raise BadAction("The action must be a JSON object.")
        action = Action.from_wire(wire)
        why = self.refusal(seat, action)
        if why is None:
            return action
        raise why(_CHECK_MESSAGES.get(why) or (
            "You do not play this hand." if action.type == "escape" else f"{wire} is not legal now."
        ))

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply a player's action; returns the new events. IllegalAction leaves the hand unchanged."""
        if self.finished:
            raise NotLegal("the hand is over")
        if not isinstance(action, Action):
            raise BadAction(f"not an action: {action!r}")
        if not self._is_legal(seat, action):
            why = self.refusal(seat, action)
            if why is not None:
                legal = self.legal_actions(seat)
                if not legal:
                    raise why(f"seat {seat} has nothing to decide now (to act: {self.to_act()})")
                wire = [a.to_wire() for a in legal]
                raise why(f"{action.to_wire()} is not legal for seat {seat} now; legal: {wire}")
        start = len(self.events)
        self.actions.append((seat, action))
        if action.type == "escape":
            self._escape(seat)
            return self.events[start:]
        if self.phase == "discard":
            nxt = self._discard(seat, action.card)  # type: ignore[arg-type]
        else:
            self.claim.decided[seat] = action  # type: ignore[union-attr]
            nxt = self._resolve()
        self._run(nxt)
        return self.events[start:]

    # ---- what the tools and the platform read -----------------------------------------------
    @property
    def table_card(self) -> int | None:
        """The card in question while it awaits claims: the reveal card, a shown or discarded card
        (not a 偎/提'd card: that one is already laid); after the hand, the card won on, or the card
        that was in question when a player escaped (§8.6)."""
        if self.phase == "claim" and self.claim is not None and self.claim.source != "self":
            return self.claim.card
        return self.won_card

    def card_locations(self) -> dict[str, Any]:
        """Where each of the 80 cards is (card ints): stock, hands, groups, discard rows, table."""
        seats = range(self.players)
        return {
            "stock": self.stock_cards(),
            "hands": {s: cards_of(self.hands[s]) for s in seats},
            "groups": {s: [list(g.cards) for g in self.groups[s]] for s in seats},
            "discards": {s: list(self.discards[s]) for s in seats},
            "table": [] if self.table_card is None else [self.table_card],
            "set_aside": list(self.set_aside),
        }

    def chou(self, seat: int) -> set[int]:
        """Card identities that are 臭 for ``seat`` (RULES.md §7)."""
        return set(self._chou[seat])

    def stock_left(self) -> int:
        """How many cards the stock still holds."""
        return len(self.stock) - self._stock_pos

    def stock_cards(self) -> list[int]:
        """The cards the stock still holds, the next to be drawn first (hidden: audit views only)."""
        return self.stock[self._stock_pos :]

    @property
    def bottom_card(self) -> int | None:
        """With ``bottom_shown`` (RULES.md §3.8), the stock's last card, turned up for everyone while
        the stock holds it; None otherwise."""
        if self.rs.bottom_shown and self._stock_pos < len(self.stock):
            return self.stock[-1]
        return None

    def next_dealer(self, consecutive_draws: int = 0) -> tuple[int, int]:
        """``(dealer, consecutive_draws)`` for the next hand (RULES.md §2); the hand must be over."""
        if not self.finished or self.result is None:
            raise ValueError("the hand is not over")
        if "escape" in self.result:  # §8.6: no draw (the run of draws ends) and no winner; the dealer keeps the deal
            return self.dealer, 0
        return next_dealer(self.rs, self.dealer, self.result["winner"], consecutive_draws)

    # What one viewer may see of the hand is the observer's (``observer.build_view(hand, viewer)``).

    # ---- persistence ------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-able snapshot: the hand's inputs and the players' actions.

        The engine is deterministic, so ``from_json`` rebuilds the exact state by re-applying the
        actions; the events are kept too, and checked on the way back.
        """
        return {
            "version": 1,
            "ruleset": self.rs.to_json(),
            "dealer": self.dealer,
            "seed": None if self.seed is None else self.seed.hex(),
            "deck": [_NAMES[c] for c in self.deck],
            "actions": [{"seat": s, "action": a.to_wire()} for s, a in self.actions],
            "events": [e.to_json() for e in self.events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        """Rebuild a hand from ``to_json``; ValueError if the stored events do not match."""
        rs = RuleSet.from_json(data["ruleset"])
        if data.get("seed"):
            hand = cls(rs, data["dealer"], parse_seed(data["seed"]))
        else:
            hand = cls(rs, data["dealer"], deck=data["deck"])
        for item in data["actions"]:
            hand.apply(item["seat"], Action.from_wire(item["action"]))
        stored = data.get("events")
        if stored is not None and [e.to_json() for e in hand.events] != [
            Event.from_json(e).to_json() for e in stored
        ]:
            raise ValueError("stored events do not match the re-applied actions")
        return hand


_ = AUDIT  # re-exported for ``from apps.engine.play.hand import AUDIT``
