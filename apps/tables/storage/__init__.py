"""Storage of the live tables below the models: raw SQL, the hand cache, the event log and its archive.

``rows`` (the raw SQL of a move: the lock key, writing events, seats and the table in one
statement on PostgreSQL), ``hand_cache`` (a process's cache of a table's rows and engine hand,
valid while the table's ``rev`` matches), ``eventlog`` (the one reader of a table's events: its
rows, or after compaction its archive), ``archive`` (the compacted, hash-checked archive of an
ended table's events), ``records`` (a table's hands as engine records, its ended hands as document parts),
``verify`` (hash chains and replays of a table's ended hands), ``jsontext`` (the one JSON
encoder of the hot path).
"""
