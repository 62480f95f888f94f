"""Scoring a win and settling a hand: whether a hand can win, its 胡息, 名堂 and 囤, and who pays whom.

- ``fast``: the scorer the game uses (``score_win``, ``can_win``), built on precomputed tables;
- ``reference``: the plain scorer the fast one is checked against, which also scores natural wins
  and builds the groups of a fast-path result when they are read;
- ``result``: ``ScoreResult``, the value of a candidate win, shared by both scorers;
- ``tables``, ``decompose``, ``huxi``, ``mingtang``, ``prefilter``, ``winning_card``: their parts;
- ``settlement``: the amounts a settled hand moves between seats.

Imports only the engine's root vocabulary (``cards``, ``groups``, ``rules``, ``chi``), never ``play``,
``bots``, ``records`` or ``cli``.
"""

from .fast import can_win, score_win
from .result import ScoreResult

__all__ = ["ScoreResult", "can_win", "score_win"]
