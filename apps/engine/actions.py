"""Player actions (ENGINE_CLI.md "Actions on the wire"): small frozen values.

An ``Action`` is what a player chooses: discard a card, 吃 (with its compulsory 比 groups), 碰, 胡,
pass, or (with ``escape_penalty``, RULES.md §8.6) leave the hand: ``escape``. Forced actions (提, 偎, 跑, natural win) are events, never actions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from .cards import card_name, parse_card

ACTION_TYPES = ("discard", "chi", "peng", "hu", "pass", "escape")


class IllegalAction(ValueError):
    """An action that is not legal now; the message says why. The hand is left unchanged.

    ``code`` is stable (the platform maps it to its own error codes; never match the message)."""

    code = "illegal_action"


class BadAction(IllegalAction):
    """Not an action: malformed, an unknown type or fields of the wrong type."""

    code = "bad_action"


class BadCard(IllegalAction):
    """An action naming something that is not a card (``parse_card`` refuses it)."""

    code = "bad_card"


class NotYourTurn(IllegalAction):
    """The seat has nothing to decide now."""

    code = "not_your_turn"


class NotYourCard(IllegalAction):
    """A discard of a card that is not in the seat's hand."""

    code = "not_your_card"


class ClaimOpen(IllegalAction):
    """逃跑 while a claim window is open (RULES.md §8.6)."""

    code = "escape_claim"


class EscapeOff(IllegalAction):
    """逃跑 where the rules have no ``escape_penalty`` (RULES.md §8.6)."""

    code = "escape_off"


class NotLegal(IllegalAction):
    """Any other action that is not among the seat's legal actions now."""

    code = "illegal_action"


@dataclass(frozen=True)
class Action:
    """One player decision.

    ``groups`` of a 吃 holds every group it lays (the group with the taken card and the 比 groups),
    each sorted, the groups themselves sorted: copies of a card are identical, so two 吃 that lay the
    same set of groups are the same action (RULES.md §6) and compare equal.

    >>> Action.from_wire({"type": "discard", "card": "s3"}).to_wire()
    {'type': 'discard', 'card': 's3'}
    """

    type: str
    card: int | None = None
    groups: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def discard(cls, card: int) -> Action:
        return _DISCARDS[card]

    @classmethod
    def chi(cls, groups: object) -> Action:
        return cls("chi", None, tuple(sorted(tuple(sorted(g)) for g in groups)))  # type: ignore[union-attr]

    def to_wire(self) -> dict:
        if self.type == "discard":
            return {"type": "discard", "card": card_name(self.card)}  # type: ignore[arg-type]
        if self.type == "chi":
            return {"type": "chi", "groups": [[card_name(c) for c in g] for g in self.groups]}
        return {"type": self.type}

    @classmethod
    def from_wire(cls, data: object) -> Action:
        """Parse a wire action; ``BadCard`` for a card name that is not one, ``BadAction`` for anything
        else malformed (both ``ValueError``)."""
        if not isinstance(data, dict):
            raise BadAction(f"an action is a JSON object, not {data!r}")
        kind = data.get("type")
        if kind not in ACTION_TYPES:
            raise BadAction(f"unknown action type {kind!r} (one of {', '.join(ACTION_TYPES)})")
        allowed = {"type", "card"} if kind == "discard" else {"type", "groups"} if kind == "chi" else {"type"}
        extra = set(data) - allowed
        if extra:
            raise BadAction(f"unexpected field(s) {sorted(extra)} in a {kind} action")
        if kind == "discard":
            if "card" not in data:
                raise BadAction("a discard names its card")
            return _DISCARDS[_card(data["card"])]
        if kind == "chi":
            groups = data.get("groups")
            if not isinstance(groups, list) or not groups or len(groups) > 3:
                raise BadAction("a chi lays 1 to 3 groups")
            parsed = []
            for g in groups:
                if not isinstance(g, list) or len(g) != 3:
                    raise BadAction("each chi group is a list of 3 cards")
                parsed.append([_card(c) for c in g])
            return cls.chi(parsed)
        return _SIMPLE[kind]

    @property
    def sort_key(self) -> str:
        """Canonical JSON (keys sorted, no spaces): the order of legal-action lists."""
        return _canonical(self)

    def __repr__(self) -> str:
        return f"Action({json.dumps(self.to_wire(), ensure_ascii=False)})"


def _card(text: object) -> int:
    try:
        return parse_card(text)  # type: ignore[arg-type]
    except ValueError as exc:
        raise BadCard(str(exc)) from exc


@lru_cache(maxsize=4096)
def _canonical(action: Action) -> str:
    return json.dumps(action.to_wire(), sort_keys=True, separators=(",", ":"))


_DISCARDS: tuple[Action, ...] = tuple(Action("discard", c) for c in range(20))
HU = Action("hu")
PASS = Action("pass")
PENG = Action("peng")
ESCAPE = Action("escape")
_SIMPLE = {"hu": HU, "pass": PASS, "peng": PENG, "escape": ESCAPE}

# Cards in the order their discard actions sort (canonical JSON compares "b10" < "b2").
DISCARD_ORDER: tuple[int, ...] = tuple(sorted(range(20), key=lambda c: _canonical(_DISCARDS[c])))


def sort_actions(actions: list[Action]) -> list[Action]:
    """Sort by canonical JSON (ENGINE_CLI.md: legal-action lists are sorted that way)."""
    return sorted(actions, key=_canonical)
