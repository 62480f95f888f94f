"""Groups (门子, RULES.md §4.1).

Laid kinds (on the table): ti, pao, wei, chou_wei, peng, chi (a laid sentence or 绞).
Hand kinds (in a decomposition): kan, sentence, jiao, jiang; ti also appears in hand at a natural or
reveal win (four of a kind held at the deal).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import card_name, parse_card

LAID_KINDS = ("ti", "pao", "wei", "chou_wei", "peng", "chi")
HAND_KINDS = ("kan", "sentence", "jiao", "jiang", "ti")
FOUR_KINDS = frozenset({"ti", "pao"})


@dataclass(frozen=True, order=True)
class Group:
    kind: str
    cards: tuple[int, ...]  # sorted

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    @property
    def is_four(self) -> bool:
        return self.kind in FOUR_KINDS

    def to_wire(self) -> dict:
        return {"kind": self.kind, "cards": [card_name(c) for c in self.cards]}

    @classmethod
    def from_wire(cls, data: object) -> Group:
        if not isinstance(data, dict) or data.get("kind") not in LAID_KINDS + HAND_KINDS:
            raise ValueError(f"bad group {data!r}")
        cards = data.get("cards")
        if not isinstance(cards, list):
            raise ValueError(f"bad group cards {cards!r}")
        return cls(data["kind"], tuple(parse_card(c) for c in cards))
