"""Who pays a table's fee (桌费) for a hand: the one rule the ledger posts and the table page shows.

RULES.md §9.3: "tables may charge a fee; not part of the rules". A table snapshots its template's
``fee`` and ``fee_payer``; pure, so ``apps.tables`` (display) and ``apps.ledgers`` (posting) agree.
"""

from __future__ import annotations

from .models import FeePayer


def fee_seats(*, fee: int, payer: str, playing: list[int], winner: int | None,
              seat_users: dict[int, int | None]) -> list[int]:
    """The seats whose players pay the table fee for this hand.

    ``playing`` excludes a sit_out sitter already; bot seats (user None) never pay.

    >>> fee_seats(fee=2, payer="each", playing=[0, 1, 3], winner=None, seat_users={0: 7, 1: 8, 3: 9})
    [0, 1, 3]
    >>> fee_seats(fee=2, payer="winner", playing=[0, 1, 2], winner=1, seat_users={0: 7, 1: 8, 2: 9})
    [1]
    >>> fee_seats(fee=2, payer="winner", playing=[0, 1, 2], winner=None, seat_users={0: 7, 1: 8, 2: 9})
    []
    >>> fee_seats(fee=0, payer="each", playing=[0, 1], winner=0, seat_users={0: 7, 1: 8})
    []
    """
    if fee <= 0:
        return []
    if payer == FeePayer.EACH:
        seats = playing
    elif payer == FeePayer.WINNER:
        seats = [winner] if winner is not None and winner in playing else []
    else:  # the database refuses other values; never guess who pays
        raise ValueError(f"unknown fee payer {payer!r}")
    return [s for s in seats if seat_users.get(s) is not None]
