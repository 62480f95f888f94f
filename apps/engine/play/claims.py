"""Who may do what on a shown or discarded card (RULES.md §5.1, §5.2.4): building the ``Claim``.

``draw_claim`` and ``discard_claim`` return the claim with every seat's options (胡, the forced 跑,
碰, 吃 and the ``chou_on_unable_chi`` candidates), or ``None`` when nobody has anything: then the card
simply goes to the discard row, with no ``Claim`` built at all (most cards).

Both are functions of explicit inputs (``Seats``: the rules, the seats' hands, laid groups, dead
hands and 臭 cards, and whether a seat is offered 胡 on a card) plus the play order around the card.

Option lists come out in canonical order without sorting: every 吃 sorts before ``hu``, ``pass`` and
``peng`` (``{"groups":…`` < ``{"type":…``), and ``hu`` < ``pass`` < ``peng``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..actions import HU, PASS, PENG, Action, sort_actions
from ..chi import chi_options, may_chi
from ..groups import Group
from ..rules import RuleSet
from .resolution import Claim


class Seats(NamedTuple):
    """What the claim builder reads of a hand in play (the lists are the hand's own, not copies)."""

    rs: RuleSet
    hands: list[list[int]]  # count vectors
    groups: list[list[Group]]  # laid groups
    dead: list[bool]  # 死手 (§11.4)
    chou: list[set[int]]  # 臭 cards: each seat may no longer 碰/吃 them (§7)
    offers_hu: Callable[[int, int, str], bool]  # (seat, card, win_by): is the seat offered 胡

_JOINS = ("wei", "chou_wei", "peng")  # laid groups a 4th card joins
_WEI = ("wei", "chou_wei")

# chi_options' option tuple -> its 吃 actions in canonical order.
_CHI_ACTIONS: dict[tuple, tuple[Action, ...]] = {}


def _chi_actions(options: tuple) -> tuple[Action, ...]:
    out = _CHI_ACTIONS.get(options)
    if out is None:
        if len(_CHI_ACTIONS) > 65536:
            _CHI_ACTIONS.clear()
        out = _CHI_ACTIONS[options] = tuple(sort_actions([Action("chi", None, g) for g in options]))
    return out


def _laid(groups: list, card: int, kinds: tuple[str, ...]) -> bool:
    for g in groups:
        if g.cards[0] == card and g.kind in kinds:
            return True
    return False


def _hu_seats(st: Seats, order: list[int], c: int, first_by: str, other_by: str) -> list[int]:
    """Seats of ``order`` offered 胡 on ``c`` (the first one wins ``first_by``, the others ``other_by``)."""
    out = []
    offers_hu = st.offers_hu
    win_by = first_by
    for s in order:
        if offers_hu(s, c, win_by):
            out.append(s)
        win_by = other_by
    return out


def _peng_ok(st: Seats, s: int, c: int) -> bool:
    vec = st.hands[s]
    if vec[c] != 2 or st.dead[s] or c in st.chou[s]:
        return False
    # §11.4: a 碰 must leave a card he may discard.
    for i, n in enumerate(vec):
        if 0 < n < 3 and i != c:
            return True
    return False


def _chi(st: Seats, s: int, c: int) -> tuple[tuple[Action, ...], bool]:
    """(his 吃 actions, whether he is a ``chou_on_unable_chi`` candidate)."""
    vec = st.hands[s]
    if st.dead[s] or c in st.chou[s] or not may_chi(vec, c):
        return (), False
    options, could_form = chi_options(tuple(vec), c)
    if options:
        return _chi_actions(options), False
    return (), could_form and st.rs.chou_on_unable_chi


def _finish(
    st: Seats, claim_args: tuple, hu: list[int], pao: int | None, peng: list[int], chi: list, unable: list[int]
) -> Claim | None:
    if not hu and pao is None and not peng and not chi and not unable:
        return None
    claim = Claim(*claim_args)
    claim.pao_seat = pao
    claim.unable_chi = unable
    options = claim.options
    for s in hu:
        options[s] = [HU, PASS]
    for s in peng:
        options[s] = [HU, PASS, PENG] if s in options else [PASS, PENG]
    for s, actions in chi:
        opts = options.get(s)
        options[s] = [*actions, *opts] if opts is not None else [*actions, PASS]
    if hu and st.rs.forced_win:  # 有胡必胡 (§9.6): 胡 is the only legal action of a seat offered it
        for s in hu:
            options[s] = [HU]
    return claim


def draw_claim(st: Seats, order: list[int], c: int, hu_allowed: bool = True) -> Claim | None:
    """Claims on a stock card shown by ``order[0]`` (the active seats in play order from him, §5.2.4);
    ``hu_allowed`` False: nobody may win on it (the shown last card of ``bottom_shown``, §3.8.3)."""
    drawer = order[0]
    hu = _hu_seats(st, order, c, "self_draw", "other_draw") if hu_allowed else []
    hands, groups = st.hands, st.groups
    pao = None
    if _laid(groups[drawer], c, ("peng",)):
        pao = drawer
    else:
        for s in order[1:]:
            if hands[s][c] == 3 or _laid(groups[s], c, _JOINS):
                pao = s
    chi_order = [drawer, order[1]]
    # a forced 跑 outranks every 碰 and 吃: they are not offered
    peng, chi, unable = _peng_chi(st, c, order[1:], chi_order) if pao is None else ([], [], [])
    return _finish(st, (c, "draw", drawer, order, chi_order), hu, pao, peng, chi, unable)


def _peng_chi(st: Seats, c: int, peng_order: list[int], chi_order: list[int]) -> tuple[list, list, list]:
    """The 碰 seats, the 吃 offers ``(seat, actions)`` and the seats that hold a 吃 candidate but
    cannot lay it (比), for card ``c``."""
    hands = st.hands
    peng = [s for s in peng_order if hands[s][c] == 2 and _peng_ok(st, s, c)]
    chi: list = []
    unable: list[int] = []
    for s in chi_order:
        actions, cand = _chi(st, s, c)
        if actions:
            chi.append((s, actions))
        elif cand:
            unable.append(s)
    return peng, chi, unable


def discard_claim(st: Seats, order: list[int], c: int) -> Claim | None:
    """Claims on a card discarded by ``order[-1]`` (``order``: the active seats in play order from
    the one after him, §5.1)."""
    discarder, nxt = order[-1], order[0]
    order = order[:-1]  # everyone but the discarder
    hu = _hu_seats(st, order, c, "discard", "discard") if st.rs.discard_win else []
    hands, groups = st.hands, st.groups
    pao = None
    for s in order:  # a 碰 on the table never takes a discard (§5.5)
        if hands[s][c] == 3 or _laid(groups[s], c, _WEI):
            pao = s
    chi_order = [nxt]
    peng, chi, unable = _peng_chi(st, c, order, chi_order) if pao is None else ([], [], [])
    return _finish(st, (c, "discard", discarder, order, chi_order), hu, pao, peng, chi, unable)
