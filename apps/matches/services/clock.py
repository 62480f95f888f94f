"""The moves the clock makes: registration opens, registration closes (the seating seed is
committed). ``due_state`` says what the clock has made due (pages and button states read it);
``apply`` makes it so under the match lock, before any verb acts, so a verb never depends on when
the beat last ran. Starting the match is ``rounds.start_due``'s."""

from __future__ import annotations

import hashlib
import secrets

from ..models import Match, MatchState


def due_state(match: Match, now) -> str:
    """The state the clock has already made due (the beat applies it within seconds)."""
    state = match.state
    if state == MatchState.DRAFT and now >= match.registration_opens_at:
        state = MatchState.REGISTERING
    if state == MatchState.REGISTERING and now >= match.registration_closes_at:
        state = MatchState.CHECKING_IN
    return state


def apply(match: Match, now) -> None:
    """Apply the moves the clock has made due (the caller holds the lock)."""
    if match.state == MatchState.DRAFT and due_state(match, now) != MatchState.DRAFT:
        match.state = MatchState.REGISTERING
        match.save(update_fields=["state"])
    if match.state == MatchState.REGISTERING and due_state(match, now) == MatchState.CHECKING_IN:
        close_registration(match)


def new_seed() -> bytes:
    """32 bytes from the OS's CSPRNG (tests replace this function to seat a known draw)."""
    return secrets.token_bytes(32)


def close_registration(match: Match) -> None:
    """Commit the seating seed: its sha256 is published now, the seed after round 1 is seated."""
    seed = new_seed()
    match.seed_secret = seed.hex()
    match.seed_hash = hashlib.sha256(seed).hexdigest()
    match.state = MatchState.CHECKING_IN
    match.save(update_fields=["seed_secret", "seed_hash", "state"])


def registration_open(match: Match, now) -> bool:
    return due_state(match, now) == MatchState.REGISTERING and match.registration_opens_at <= now


def checkin_open(match: Match, now) -> bool:
    return due_state(match, now) in (MatchState.REGISTERING, MatchState.CHECKING_IN) and (
        match.checkin_opens_at <= now < match.starts_at)
