"""打立出局 (elimination by score): everyone starts with the same chips and every round is ONE hand
per table; after it, players below the line are out (never fewer than one table stays), the line
rises every N hands (涨底), tables are rebalanced as the field shrinks (a player left over sits the
next hand out, his chips untouched), and when the rest fits one table the final plays
``final_hands`` hands."""

from __future__ import annotations

from .. import seating
from . import arithmetic
from .base import FINAL, ROUND, MatchFormat, NextRound, RoundDone, Standing, Translate

# A safety net, never reached with a rising line: then the best of the field play the final.
MAX_STAGE_HANDS = 500


class Elimination(MatchFormat):
    key = "elimination"
    settings = ("elim_start_chips", "elim_line", "elim_rise_every", "elim_rise_by", "final_hands")
    uses_chips = True

    def first_round_shape(self, entrants: int) -> tuple[str, int]:
        kind, hands = super().first_round_shape(entrants)
        return (kind, hands) if kind == FINAL else (ROUND, 1)

    def seat_next(self, done: RoundDone) -> NextRound:
        size = self.p.table_size
        stage_hands = done.stage_hands + 1
        line = arithmetic.elimination_line(stage_hands, self.p.elim_line, self.p.elim_rise_every,
                                           self.p.elim_rise_by)
        order = [s.user_id for s in self.order(done.active)]
        out = arithmetic.eliminate({s.user_id: s.chips for s in done.active}, line, size, order=order)
        if stage_hands >= MAX_STAGE_HANDS:
            out = set(order[size:])
        remaining = [u for u in order if u not in out]
        if arithmetic.is_final(len(remaining), size):
            seat = self._seat_by_standings(remaining, done, met=set(), byes_had=set())
            return NextRound(kind=FINAL, hands=self.p.final_hands, players=remaining, seating=seat, out=out,
                             line=line, stage_hands=stage_hands)
        gone = out | done.gone
        seat = seating.rebalance(done.tables, gone, table_size=size, order=remaining,
                                 waiting=[u for u in done.byes if u not in gone], avoid=done.avoid(remaining))
        return NextRound(kind=ROUND, hands=1, players=remaining, seating=seat, out=out, line=line,
                         stage_hands=stage_hands)

    def start_chips(self) -> int:
        return self.p.elim_start_chips

    def chips_won(self, game_points: int) -> int:
        return game_points

    def rank_key(self, row: Standing) -> tuple:
        # Out later is better; then chips, game points, best hand.
        return (-(row.out_round or 0), -row.chips, -row.game_points, -row.best_hand)

    def summary(self, _: Translate) -> list[str]:
        return [
            _("Everyone starts with %(chips)s chips and plays one hand per table at a time.")
            % {"chips": self.p.elim_start_chips},
            _("After every hand, players below the line are out. The line starts at %(line)s and rises by "
              "%(by)s every %(every)s hands (涨底).")
            % {"line": self.p.elim_line, "by": self.p.elim_rise_by, "every": self.p.elim_rise_every},
            _("Tables are broken and players re-seated as the field shrinks; when the rest fits one table, "
              "the final table plays %(hands)s hands for the places.") % {"hands": self.p.final_hands},
        ]

    def bye_note(self, _: Translate) -> str:
        return _("Sits this hand out (chips unchanged) and plays the next one.")

    def tie_breaks(self, _: Translate) -> list[str]:
        return [_("Chips"), _("Game points"), _("Best single hand"), _("Earlier registration")]
