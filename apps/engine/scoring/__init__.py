"""Scoring a win and settling a hand: whether a hand can win, its 胡息, 名堂 and 囤, and who pays whom.

- ``fast``: the scorer the game uses (``score_win``, ``can_win``), built on precomputed tables;
- ``reference``: the plain reference scorer the fast one is checked against (tests, the score CLI);
- ``reference`` also holds ``ScoreResult`` and the natural wins (for now);
- ``tables``, ``decompose``, ``huxi``, ``mingtang``, ``prefilter``, ``winning_card``: their parts;
- ``settlement``: the amounts a settled hand moves between seats.

Imports only the engine's root vocabulary (``cards``, ``groups``, ``rules``, ``chi``), never ``play``,
``bots``, ``records`` or ``cli``.
"""

from .fast import can_win, score_win
from .reference import ScoreResult

__all__ = ["ScoreResult", "can_win", "score_win"]
