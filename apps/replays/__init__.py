"""Replays and audit: the replay viewer, share codes (回放码), verification, export, collusion
statistics and disputes (ARCHITECTURE.md "Replays and audit")."""
