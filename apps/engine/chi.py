"""吃 (chi) with compulsory 比 (bi), RULES.md §6.

To eat a card *c* a player lays it with two hand cards as a sentence (一二三 and 二七十 included) or a
绞; every copy of *c* still in his hand must then be laid at once in 比 groups (one 绞 may hold two
copies). Cards of a 坎 are never used. Legal 吃 actions are distinct by the set of groups they lay.
"""

from __future__ import annotations

from functools import lru_cache

from .cards import other_case, rank


def _partners(card: int) -> tuple[tuple[int, int], ...]:
    """The pairs of cards that form a sentence or 绞 with ``card`` (each pair sorted)."""
    base = card - card % 10  # 0 for small, 10 for big
    r = rank(card)
    out: set[tuple[int, int]] = set()
    for lo in (r - 2, r - 1, r):  # the three runs of consecutive ranks through r (no wrapping)
        if lo >= 1 and lo + 2 <= 10:
            others = [base + x - 1 for x in (lo, lo + 1, lo + 2) if x != r]
            out.add((others[0], others[1]))
    if r in (2, 7, 10):  # 二七十
        others = [base + x - 1 for x in (2, 7, 10) if x != r]
        out.add((others[0], others[1]))
    o = other_case(card)
    out.add(tuple(sorted((card, o))))  # type: ignore[arg-type]  # 绞: c c O
    out.add((o, o))  # 绞: c O O
    return tuple(sorted(out))


PARTNERS: tuple[tuple[tuple[int, int], ...], ...] = tuple(_partners(c) for c in range(20))

ChiGroups = tuple[tuple[int, ...], ...]


def may_chi(hand, card: int) -> bool:
    """Whether two hand cards (not of a 坎) form a group with ``card``: ``chi_options``' ``could_form``
    (speed only: when False, ``chi_options`` returns ``((), False)``)."""
    if hand[card] >= 3:
        return False
    for a, b in PARTNERS[card]:
        na, nb = hand[a], hand[b]
        if na < 3 and nb < 3 and na >= 1 + (a == b) and nb >= 1:
            return True
    return False


@lru_cache(maxsize=65536)
def chi_options(hand: tuple[int, ...], card: int) -> tuple[tuple[ChiGroups, ...], bool]:
    """All legal 吃 of ``card`` for a hand (count vector), and whether a group with it was possible.

    Returns ``(options, could_form)``: each option is the sorted tuple of sorted groups it lays;
    ``could_form`` says two hand cards formed a group with the card (for ``chou_on_unable_chi``,
    RULES.md §7: the group existed but the 比 could not be completed). Options that would leave no
    discardable card (RULES.md §11.4) are left out; they still count for ``could_form``.

    >>> from apps.engine.cards import counts_of, parse_card as p
    >>> hand = tuple(counts_of([p(x) for x in "s1 s2 s2 s3 b2 b9".split()]))
    >>> chi_options(hand, p("s2"))
    (((((0, 1, 2), (1, 1, 11)),), True)
    """
    if hand[card] >= 3:  # a 坎 of the card 跑s or 提s it; it is never eaten
        return (), False
    avail = [n if n < 3 else 0 for n in hand]  # 坎 cards are never used
    found: set[ChiGroups] = set()
    could_form = False
    for a, b in PARTNERS[card]:
        if avail[a] < 1 + (a == b) or avail[b] < 1:
            continue
        could_form = True
        avail[a] -= 1
        avail[b] -= 1
        _place_bi(avail, card, [tuple(sorted((card, a, b)))], found)
        avail[a] += 1
        avail[b] += 1
    options = []
    for groups in sorted(found):
        rest = list(hand)
        for g in groups:
            for c in g:
                rest[c] -= 1
        rest[card] += 1  # the taken card was not in the hand
        if any(0 < n < 3 for n in rest):
            options.append(groups)
    return tuple(options), could_form


def _place_bi(avail: list[int], card: int, groups: list[tuple[int, ...]], found: set[ChiGroups]) -> None:
    """Lay every remaining copy of ``card`` in 比 groups (depth-first), recording complete sets."""
    if avail[card] == 0:
        found.add(tuple(sorted(groups)))
        return
    avail[card] -= 1
    for a, b in PARTNERS[card]:
        if avail[a] < 1 + (a == b) or avail[b] < 1:
            continue
        avail[a] -= 1
        avail[b] -= 1
        groups.append(tuple(sorted((card, a, b))))
        _place_bi(avail, card, groups, found)
        groups.pop()
        avail[a] += 1
        avail[b] += 1
    avail[card] += 1
