"""定局积分 (fixed rounds, Swiss): ``rounds`` rounds of ``hands_per_round`` hands; round 1 is
shuffled from the seed, later rounds seat players of similar standings together and never repeat
table-mates while another seating avoids it. Match points per table place (ties split exactly),
byes score the middle place's points."""

from __future__ import annotations

from . import arithmetic
from .base import ROUND, MatchFormat, NextRound, RoundDone, Standing, Translate


class Fixed(MatchFormat):
    key = "fixed"
    settings = ("rounds", "points_by_rank")
    knows_rounds = True

    def first_round_shape(self, entrants: int) -> tuple[str, int]:
        return ROUND, self.p.hands_per_round  # even a field of one table plays every round

    def seat_next(self, done: RoundDone) -> NextRound | None:
        if done.number >= self.p.rounds:
            return None
        order = [s.user_id for s in self.order(done.active)]
        return NextRound(kind=ROUND, hands=self.p.hands_per_round, players=order,
                         seating=self._seat_by_standings(order, done))

    def table_points(self, game_points: dict[int, int]) -> dict[int, int]:
        if len(game_points) != self.p.table_size:
            return super().table_points(game_points)
        return arithmetic.table_match_points(game_points, self.p.points_by_rank, self.p.table_size)

    def bye_points(self) -> int:
        return arithmetic.bye_points(self.p.points_by_rank, self.p.table_size)

    def rank_key(self, row: Standing) -> tuple:
        return (-row.match_points, -row.game_points, -row.best_hand)

    def summary(self, _: Translate) -> list[str]:
        size = self.p.table_size
        points = "/".join(str(p) for p in self.p.points_by_rank)
        byes = self.bye_points() if len(self.p.points_by_rank) == size else 0
        return [
            _("%(rounds)s rounds of %(hands)s hands; every round is re-seated by the standings, and two "
              "players never share a table again while another seating avoids it.")
            % {"rounds": self.p.rounds, "hands": self.p.hands_per_round},
            _("Match points per table place: %(points)s (players tied on game points share the points of "
              "their places).") % {"points": points},
            _("When the entrants do not fill whole tables, the lowest-placed players who have not had a bye "
              "sit the round out and score %(bye)s match points.") % {"bye": arithmetic.format_points(byes, size)},
        ]

    def bye_note(self, _: Translate) -> str:
        points = self.bye_points() if len(self.p.points_by_rank) == self.p.table_size else 0
        return _("Sits this round out (%(bye)s match points) and plays again next round.") % {
            "bye": arithmetic.format_points(points, self.p.table_size)}

    def tie_breaks(self, _: Translate) -> list[str]:
        return [_("Match points"), _("Game points"), _("Best single hand"), _("Earlier registration")]
