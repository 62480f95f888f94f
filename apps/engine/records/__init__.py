"""A hand's records: the hash chain of its events (``chain``), replaying a recorded hand
(``replay``), verifying an exported hand (``verifier``, EXPORT.md) and the replay frames a viewer
steps through (``timeline``).

Imports ``play``, ``scoring`` and the root vocabulary; never ``bots`` or ``cli``.
"""
