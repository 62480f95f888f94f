"""Cards (RULES.md §1): 20 kinds, 4 copies each.

Inside the engine a card is a small int: 0..9 are s1..s10 (小字 一…十), 10..19 are b1..b10
(大字 壹…拾). Outside (wire, tests, CLI) the ASCII notation of RULES.md §1 is used.
"""

from __future__ import annotations

from collections.abc import Iterable

KINDS = 20
COPIES = 4
DECK_SIZE = KINDS * COPIES

NAMES: tuple[str, ...] = tuple(f"s{r}" for r in range(1, 11)) + tuple(f"b{r}" for r in range(1, 11))
_BY_NAME = {name: i for i, name in enumerate(NAMES)}

CHINESE: tuple[str, ...] = tuple("一二三四五六七八九十") + tuple("壹贰叁肆伍陆柒捌玖拾")

# Red cards: s2 s7 s10 b2 b7 b10.
RED = frozenset({1, 6, 9, 11, 16, 19})
IS_RED: tuple[bool, ...] = tuple(c in RED for c in range(KINDS))


def rank(card: int) -> int:
    """Rank 1..10, ignoring case (伍 and 五 are both 5)."""
    return card % 10 + 1


def make(big: bool, rank_: int) -> int:
    return (10 if big else 0) + rank_ - 1


def other_case(card: int) -> int:
    return card - 10 if card >= 10 else card + 10


def parse_card(text: object) -> int:
    """Parse one card in notation (``"s3"``, ``"b10"``); ValueError on anything else.

    >>> parse_card("b10")
    19
    """
    if not isinstance(text, str) or text not in _BY_NAME:
        raise ValueError(f"unknown card {text!r} (expected s1..s10 or b1..b10)")
    return _BY_NAME[text]


def card_name(card: int) -> str:
    """>>> card_name(0)
    's1'
    """
    return NAMES[card]


def names(cards: Iterable[int]) -> list[str]:
    """Cards in notation, sorted in notation order."""
    return [NAMES[c] for c in sorted(cards)]


def counts_of(cards: Iterable[int]) -> list[int]:
    """Count vector (20 entries) of a card collection."""
    vec = [0] * KINDS
    for c in cards:
        vec[c] += 1
    return vec


def cards_of(counts: Iterable[int]) -> list[int]:
    """Sorted card list of a count vector."""
    out: list[int] = []
    for c, n in enumerate(counts):
        out.extend([c] * n)
    return out


def full_deck() -> list[int]:
    """The unshuffled deck of RULES.md §11.7: notation order, 4 of each."""
    return [c for c in range(KINDS) for _ in range(COPIES)]
