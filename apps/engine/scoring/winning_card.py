"""How the winning card counts (RULES.md §8.2): its role, and whether the win is 自摸.

``card_role`` is the one statement of §8.2's cases; the plain scorer (``reference.variants``)
and the fast path (``scoring``) both dispatch on it, the fast path through ``ROLES`` (the same
function tabulated at import). ``is_zimo`` is the one statement of 自摸.
"""

from __future__ import annotations

WIN_BY = ("self_draw", "other_draw", "discard", "reveal", "natural")

# The roles (``card_role``): what the winning card does with the winner's cards.
JOIN = "join"  # it joins the hand cards (at the dealer's reveal win: a pair becomes a 坎, a 坎 a 提)
KAN_TO_FOUR = "kan_to_four"  # onto a 坎 in hand: 提 (own draw) or 跑
WEI_TO_FOUR = "wei_to_four"  # onto a laid 偎/臭偎: 提 (own draw) or 跑
PENG_TO_PAO = "peng_to_pao"  # onto a laid 碰: 跑 (never from a discard, §5.5: then it joins the hand)
PAIR_TO_WEI = "pair_to_wei"  # own draw onto a pair: 偎
PAIR_FREE = "pair_free"  # another player's card onto a pair: a 碰, or three free cards (§8.2, §11.3)

# The laid group of the winning card's kind that it can upgrade (a card has at most one).
NO_LAID, LAID_WEI, LAID_PENG = 0, 1, 2


def is_zimo(win_by: str, dealer: bool) -> bool:
    """§8.2 自摸: own draw (偎胡/提胡 included), the dealer's reveal win, a natural win."""
    return win_by == "self_draw" or win_by == "natural" or (win_by == "reveal" and dealer)


def card_role(win_by: str, dealer: bool, held: int, laid: int) -> tuple[str, str | None]:
    """§8.2: (role, kind of the group it forms or upgrades to, None when it forms none) of a winning
    card (not at a natural win, which has none), with ``held`` copies of it in the hidden hand and
    ``laid`` (``NO_LAID``, ``LAID_WEI``, ``LAID_PENG``) the laid group of its kind.

    >>> card_role("other_draw", False, 2, NO_LAID), card_role("self_draw", False, 0, LAID_WEI)
    (('pair_free', 'peng'), ('wei_to_four', 'ti'))
    """
    four = "ti" if win_by == "self_draw" else "pao"
    if win_by == "reveal" and dealer:
        return JOIN, None  # one of the dealer's dealt cards
    if held == 3:
        return KAN_TO_FOUR, four
    if held < 2 and laid == LAID_WEI:
        return WEI_TO_FOUR, four
    if held < 2 and laid == LAID_PENG and win_by != "discard":
        return PENG_TO_PAO, "pao"
    if held == 2:
        return (PAIR_TO_WEI, "wei") if win_by == "self_draw" else (PAIR_FREE, "peng")
    return JOIN, None


# ``card_role`` tabulated: ``ROLES[win_by][dealer][3 * held + laid]`` for held 0…4.
ROLES: dict[str, tuple[tuple[tuple[str, str | None], ...], ...]] = {
    wb: tuple(tuple(card_role(wb, d, i // 3, i % 3) for i in range(15)) for d in (False, True)) for wb in WIN_BY
}
