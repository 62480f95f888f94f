"""淘汰赛 (table knockout): each table plays ``hands_per_round`` hands and its top ``knockout_top``
advance (with the round's byes); when the field fits one table, the final plays ``final_hands``
hands. If fewer than a table would advance, the best of the rest are taken along to fill the
final."""

from __future__ import annotations

from . import arithmetic
from .base import FINAL, ROUND, MatchFormat, NextRound, RoundDone, Standing, Translate


class Knockout(MatchFormat):
    key = "knockout"
    settings = ("knockout_top", "final_hands")

    def seat_next(self, done: RoundDone) -> NextRound:
        size = self.p.table_size
        active = {s.user_id: s for s in done.active}
        rows = [[{"user_id": u, "game_points": r["game_points"], "best_hand": r["best_hand"],
                  "registered_order": active[u].registered_order}
                 for u, r in results.items() if u in active] for results in done.results]
        advancing = [u for u in arithmetic.knockout_advance(rows, self.p.knockout_top) if u in active]
        advancing += [u for u in done.byes if u in active and u not in advancing]
        if len(advancing) < size:  # fill a final table with the best of the rest
            rest = arithmetic.standings_order([r for t in rows for r in t if r["user_id"] not in advancing])
            advancing += [r["user_id"] for r in rest[: size - len(advancing)]]
        final = arithmetic.is_final(len(advancing), size)
        return NextRound(kind=FINAL if final else ROUND, hands=self.p.final_hands if final else self.p.hands_per_round,
                         players=advancing, seating=self._seat_by_standings(advancing, done),
                         out=set(active) - set(advancing))

    def rank_key(self, row: Standing) -> tuple:
        # The further he came, the better; then the game points at the last table he reached.
        return (-row.reached, -row.stage_points, -row.game_points, -row.best_hand)

    def summary(self, _: Translate) -> list[str]:
        return [
            _("Each table plays %(hands)s hands; the top %(top)s of each table advance, until one final table "
              "plays %(final)s hands for the places.")
            % {"hands": self.p.hands_per_round, "top": self.p.knockout_top, "final": self.p.final_hands},
            _("When the players do not fill whole tables, the lowest-placed sit the round out and advance."),
        ]

    def bye_note(self, _: Translate) -> str:
        return _("Sits this round out and goes through to the next round.")

    def tie_breaks(self, _: Translate) -> list[str]:
        return [_("Round reached"), _("Game points at that table"), _("Game points"), _("Best single hand"),
                _("Earlier registration")]
