"""Scheduled matches (比赛): formats, registration, fees in escrow, seating, rounds, standings and
prizes (ARCHITECTURE.md "Scheduled matches")."""
