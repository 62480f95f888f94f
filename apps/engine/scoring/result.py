"""``ScoreResult``, the value of a candidate win, shared by both scorers (fast.py, reference.py).

A fast-path win carries the plain scorer and its arguments instead of its groups; the groups are
built from them on first read, so this module imports neither scorer.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from ..groups import Group

__all__ = ["INCOMPLETE", "INCOMPLETE_MESSAGE", "MAO_HU_HUXI", "ScoreResult"]

MAO_HU_HUXI = 15  # 毛胡 (§9.6): the 胡息 a 0-胡息 win counts as
INCOMPLETE_MESSAGE = "the cards do not make a complete hand"

_FIELDS = ("win", "reason", "message", "huxi", "groups", "counts", "tun", "mingtang", "fan", "score", "bonuses")
_COMPARED = tuple(i for i, name in enumerate(_FIELDS) if name != "counts")  # as the fields' equality
_I_GROUPS, _I_DETAIL = 4, 11


class ScoreResult(tuple):
    """The value of a candidate win; ``to_wire()`` is the ENGINE_CLI ``score`` output.

    Immutable; fields by name (it is a tuple underneath, so building one is cheap on the hot path).
    Equality and hashing look at every field but ``counts``. A fast-path win leaves ``groups`` to
    be built on first read (``detail``: the plain scorer and the score arguments), by
    ``reference.score_win_slow`` on the same arguments, which picks the same decomposition (both keep the first best candidate in the same
    order). Copies and pickles hold the built groups.
    """

    __slots__ = ()

    def __new__(
        cls, win: bool, reason: str | None = None, message: str | None = None, huxi: int = 0,
        groups: tuple[tuple[Group, int], ...] | None = (), counts: dict[str, int] | None = None, tun: int = 0,
        mingtang: tuple[tuple[str, int], ...] = (), fan: int = 0, score: int = 0,
        bonuses: tuple[tuple[str, str, int], ...] = (), detail: list | None = None,
    ) -> ScoreResult:
        # bonuses: effects that are not fans: ("tian_hu", "huxi_x", 2), ("shua_hou", "fan_x", 6),
        # ("kai_di_you_xi", "tun", 2), ("mao_hu", "huxi", 15). On the wire only when present.
        # detail: [(the plain scorer, its arguments)] while ``groups`` is None, the built groups appended.
        return tuple.__new__(
            cls, (win, reason, message, huxi, groups, {} if counts is None else counts, tun, mingtang, fan, score,
                  bonuses, detail)
        )

    win = property(itemgetter(0))
    reason = property(itemgetter(1))  # not a win: "incomplete" | "huxi_below_min"
    message = property(itemgetter(2))
    huxi = property(itemgetter(3))
    counts = property(itemgetter(5))
    tun = property(itemgetter(6))
    mingtang = property(itemgetter(7))
    fan = property(itemgetter(8))
    score = property(itemgetter(9))
    bonuses = property(itemgetter(10))

    @property
    def groups(self) -> tuple[tuple[Group, int], ...]:
        groups = self[_I_GROUPS]
        if groups is None:
            detail = self[_I_DETAIL]
            if len(detail) == 1:
                build, args = detail[0]
                slow = build(*args)
                if (slow.win, slow.huxi, slow.score, slow.mingtang) != (True, self.huxi, self.score, self.mingtang):
                    raise AssertionError(f"fast and plain scorers disagree on {args!r}")
                detail.append(slow.groups)
            groups = detail[1]
        return groups

    def _key(self) -> tuple:
        return tuple([self.groups if i == _I_GROUPS else self[i] for i in _COMPARED])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScoreResult):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, ScoreResult):
            return NotImplemented
        return self._key() != other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "ScoreResult(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS) + ")"

    def __reduce__(self) -> tuple:
        return (ScoreResult, tuple(getattr(self, name) for name in _FIELDS))

    def to_wire(self) -> dict[str, Any]:
        if not self.win:
            out: dict[str, Any] = {"win": False, "reason": self.reason, "message": self.message}
            if self.reason == "huxi_below_min":
                out["huxi"] = self.huxi
            return out
        out = {
            "win": True,
            "huxi": self.huxi,
            "groups": [{**g.to_wire(), "huxi": h} for g, h in self.groups],
            "counts": dict(self.counts),
            "tun": self.tun,
            "mingtang": [{"name": n, "fan": f} for n, f in self.mingtang],
            "fan": self.fan,
            "score": self.score,
        }
        if self.bonuses:
            out["bonuses"] = [{"name": n, effect: v} for n, effect, v in self.bonuses]
        return out


INCOMPLETE = ScoreResult(False, "incomplete", INCOMPLETE_MESSAGE)
