"""What every match format answers: how round 1 and each next round are seated, who goes out, the
one order of the standings (live standings, final places and prizes all use ``order``), what a
table's result is worth, and the format's rules in words.

Pure Python (import-linter): the services hand in plain rows and numbers and store what comes out.
A format is a class in its own file, registered in ``formats/__init__.py``; nothing else in the app
asks which format a match has.

Words are returned through the ``_`` the caller passes (Django's ``gettext`` on a page), so that
``makemessages`` finds the strings here while this package imports no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import seating
from . import arithmetic

Translate = Callable[[str], str]
ROUND, FINAL = "round", "final"  # MatchRound.kind


@dataclass(frozen=True)
class Params:
    """A match's format settings (the Match model's columns of the same names)."""

    table_size: int
    hands_per_round: int = 4
    rounds: int = 3
    points_by_rank: tuple[int, ...] = ()
    elim_start_chips: int = 1000
    elim_line: int = 900
    elim_rise_every: int = 1
    elim_rise_by: int = 20
    knockout_top: int = 1
    final_hands: int = 4

    NAMES: ClassVar[tuple[str, ...]] = (
        "hands_per_round", "rounds", "points_by_rank", "elim_start_chips", "elim_line",
        "elim_rise_every", "elim_rise_by", "knockout_top", "final_hands",
    )

    @classmethod
    def of(cls, obj: Any) -> Params:
        """The settings of any object with these attributes (a Match) and ``players`` seats."""
        values = {name: getattr(obj, name) for name in cls.NAMES}
        values["points_by_rank"] = tuple(values["points_by_rank"] or ())
        return cls(table_size=obj.players, **values)


@dataclass
class Standing:
    """One entrant as the standings see him. ``game_points``, ``chips`` and ``stage_points``
    include the running table's score so far; ``reached`` is the last round he was seated in."""

    user_id: int
    registered_order: int
    playing: bool = True  # still in the match (not out, not withdrawn)
    match_points: int = 0  # scaled (arithmetic.points_scale)
    game_points: int = 0
    best_hand: int = 0
    chips: int = 0
    out_round: int | None = None
    reached: int = 0
    stage_points: int = 0  # game points at the table of round ``reached``
    had_bye: bool = False
    item: Any = None  # the caller's object (an Entrant), carried along


@dataclass
class RoundDone:
    """A round that just ended, as the next round's seating needs it."""

    number: int
    final: bool  # it was the final table
    active: list[Standing]  # entrants still playing
    tables: list[list[int]]  # the round's tables, seats in order
    results: list[dict[int, dict]]  # per table: user id -> {"game_points", "best_hand", ...}
    byes: list[int]
    gone: set[int]  # entrants no longer playing (out, withdrawn)
    met: set[frozenset[int]]  # pairs that have shared a table
    avoid: Callable[[Sequence[int]], set[frozenset[int]]]  # pairs to keep apart among these ids
    seed: bytes
    stage_hands: int = 0  # elimination: hands of the stage played before this one


@dataclass
class NextRound:
    """The seating of the next round, and what the format decided on the way."""

    kind: str  # ROUND | FINAL
    hands: int
    players: list[int]  # the field given to seating, best first
    seating: seating.Seating
    out: set[int] = field(default_factory=set)  # entrants who go out now
    line: int | None = None  # elimination: the line applied after the round
    stage_hands: int | None = None  # elimination: hands of the stage played so far


class MatchFormat:
    key: ClassVar[str]
    settings: ClassVar[tuple[str, ...]] = ()  # the Params this format reads beyond hands_per_round
    uses_chips: ClassVar[bool] = False  # standings show chips, not match points
    knows_rounds: ClassVar[bool] = False  # the number of rounds is fixed in advance

    def __init__(self, params: Params):
        self.p = params

    # --- seating ------------------------------------------------------------------------------

    def first_round_shape(self, entrants: int) -> tuple[str, int]:
        """(kind, hands) of round 1 for this many entrants."""
        if arithmetic.is_final(entrants, self.p.table_size):
            return FINAL, self.p.final_hands
        return ROUND, self.p.hands_per_round

    def first_round(self, field_ids: list[int], *, seed: bytes,
                    avoid: Callable[[Sequence[int]], set[frozenset[int]]]) -> NextRound:
        """Round 1: the entrants (in registration order) shuffled from the match seed."""
        kind, hands = self.first_round_shape(len(field_ids))
        seat = seating.seat_round(field_ids, table_size=self.p.table_size, seed=seed, round_no=1, met=set(),
                                  avoid=avoid(field_ids), byes_had=set(), by_standings=False)
        return NextRound(kind=kind, hands=hands, players=list(field_ids), seating=seat)

    def next_round(self, done: RoundDone) -> NextRound | None:
        """The next round's seating, or None: the match is over."""
        if done.final or len(done.active) < self.p.table_size:
            return None
        return self.seat_next(done)

    def seat_next(self, done: RoundDone) -> NextRound | None:
        raise NotImplementedError

    def _seat_by_standings(self, players: list[int], done: RoundDone, *, met=None, byes_had=None):
        return seating.seat_round(
            players, table_size=self.p.table_size, seed=done.seed, round_no=done.number + 1,
            met=done.met if met is None else met, avoid=done.avoid(players),
            byes_had={s.user_id for s in done.active if s.had_bye} if byes_had is None else byes_had,
            by_standings=True,
        )

    # --- scoring ------------------------------------------------------------------------------

    def start_chips(self) -> int:
        """The chips every entrant starts with."""
        return 0

    def table_points(self, game_points: dict[int, int]) -> dict[int, int]:
        """Scaled match points earned at one table (by the game points there)."""
        return {u: 0 for u in game_points}

    def chips_won(self, game_points: int) -> int:
        """What a table's game points add to a player's chips."""
        return 0

    def bye_points(self) -> int:
        """Scaled match points for sitting a round out."""
        return 0

    # --- order ----------------------------------------------------------------------------------

    def rank_key(self, row: Standing) -> tuple:
        raise NotImplementedError

    def order(self, rows: Sequence[Standing]) -> list[Standing]:
        """The one order of the standings, best first: still playing before out; live standings,
        the final places and the prizes all follow it."""
        return sorted(rows, key=lambda r: (not r.playing, *self.rank_key(r), r.registered_order, r.user_id))

    # --- words ------------------------------------------------------------------------------------

    def summary(self, _: Translate) -> list[str]:
        raise NotImplementedError

    def tie_breaks(self, _: Translate) -> list[str]:
        raise NotImplementedError

    def bye_note(self, _: Translate) -> str:
        """What sitting the current round out means for a player (his status's reason)."""
        return _("Sits this round out and waits for the next round.")
