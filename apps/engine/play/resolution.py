"""Pending claims on the card in question and their resolution (RULES.md §5.3).

Everyone with an option on the card decides at once; the best claim (胡 > 跑 > 碰 > 吃, then seat
order) is executed as soon as no undecided player could still outrank it. A forced 跑 needs no
decision: it is executed as soon as nobody undecided could 胡.
"""

from __future__ import annotations

from ..actions import Action

RANK = {"hu": 3, "pao": 2, "peng": 1, "chi": 0}
Key = tuple[int, int]


class Claim:
    """The card in question and who may do what on it.

    ``source``: ``reveal`` (the 亮张), ``draw`` (a shown stock card), ``discard``, or ``self`` (the
    drawer's 偎胡/提胡 option after his forced 偎/提). ``seat``: the dealer, drawer or discarder.
    """

    __slots__ = (
        "card", "source", "seat", "hu_order", "chi_order", "options", "decided",
        "pao_seat", "unable_chi", "last_card", "pre",
    )

    def __init__(self, card: int, source: str, seat: int, hu_order: list[int], chi_order: list[int]):
        self.card = card
        self.source = source
        self.seat = seat
        self.hu_order = hu_order
        self.chi_order = chi_order
        self.options: dict[int, list[Action]] = {}  # sorted legal actions, pass included
        self.decided: dict[int, Action] = {}
        self.pao_seat: int | None = None  # the forced 跑, if any
        self.unable_chi: list[int] = []  # chou_on_unable_chi candidates
        self.last_card = False  # 海底
        self.pre: tuple | None = None  # (hand, groups) before a forced 偎/提, for 偎胡/提胡

    def key(self, seat: int, kind: str) -> Key:
        """Rank of a claim: higher wins; within a rank the earlier seat in the claim's order."""
        if kind == "hu":
            return (3, -self.hu_order.index(seat))
        if kind == "chi":
            return (0, -self.chi_order.index(seat))
        return (RANK[kind], 0)

    def potential(self, seat: int) -> Key:
        """The best claim an undecided seat could still make (every seat has one besides pass)."""
        opts = self.options[seat]
        for a in opts:
            if a.type == "hu":
                return (3, -self.hu_order.index(seat))
        return self._peng_chi(seat, opts)  # type: ignore[return-value]

    def peng_chi_key(self, seat: int) -> Key | None:
        """The best 碰/吃 option of a seat (what makes a passed card 臭 for him, §7)."""
        return self._peng_chi(seat, self.options.get(seat, ()))

    def _peng_chi(self, seat: int, opts) -> Key | None:
        peng = chi = False
        for a in opts:
            t = a.type
            if t == "peng":
                peng = True
            elif t == "chi":
                chi = True
        if peng:
            return (1, 0)
        return (0, -self.chi_order.index(seat)) if chi else None

    def undecided(self) -> list[int]:
        decided = self.decided
        out = [s for s in self.options if s not in decided]
        out.sort()
        return out

    def resolve(self) -> tuple[bool, int | None, Action | None, Key | None]:
        """``(done, seat, action, key)``: done once no undecided seat could outrank the best claim.

        The winning claim is ``(seat, action)`` with its key, or ``(None, None, None)`` when the card
        goes unclaimed. A forced 跑 is reported as ``Action("pao")``.
        """
        best: tuple[Key, int, Action] | None = None
        if self.pao_seat is not None:
            best = ((2, 0), self.pao_seat, Action("pao"))
        for seat, action in self.decided.items():
            if action.type != "pass":
                k = self.key(seat, action.type)
                if best is None or k > best[0]:
                    best = (k, seat, action)
        decided = self.decided
        for seat in self.options:
            if seat not in decided and (best is None or self.potential(seat) > best[0]):
                return False, None, None, None
        if best is None:
            return True, None, None, None
        return True, best[1], best[2], best[0]
