"""The bots: their levels and ``bot_choose`` (``choose``), the one-ply greedy player (``greedy``)
and the searching player of the hard level (``search``).

Imports ``play``, ``scoring`` and the root vocabulary; never ``records`` or ``cli``.
"""
