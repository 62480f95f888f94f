"""The hand in play: the ``Hand`` state machine (``hand``) and its turns and claims (``turns``,
``claims``, ``resolution``), the events it emits (``events``), the dealer of the next hand
(``dealer``), what one viewer may see (``observer``) and the invariants a simulated hand keeps
(``invariants``).

Imports the root vocabulary and ``scoring``; never ``bots``, ``records`` or ``cli``.
"""
