"""Live delivery: the table socket, a server process's table groups, lost-update catch-up.

``consumers`` (``TableConsumer``: frames in, verbs run in a database thread, updates out to its
own viewer), ``hub`` (one channel-layer group membership per table per process; orders the
updates and hands each to the process's sockets at the table), ``watch`` (checks that
every socket has seen every update, and marks presence), ``limits`` (per-socket rate limits and
the acknowledged-move memory that makes a resent move a no-op).
"""
