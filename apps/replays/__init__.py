"""Replays and audit: the replay viewer, share codes (回放码), verification, export, retention (the
daily compaction of old tables' event logs, ``retention``), collusion statistics and disputes
(ARCHITECTURE.md "Replays and audit")."""
