"""Events (ENGINE_CLI.md "Events on the wire") and their redaction per viewer.

Hidden information leaves the engine only through ``Event.for_viewer`` and ``Hand.view``:
other players' hands at the deal (with ``bottom_shown`` that includes the dealer's face-down 21st
card), a drawn card until it is shown, a 偎's card while ``wei_shown == "none"`` (a 臭偎 and a 提 show
one card, so their card is public), the cards ``remove_cards`` set aside (``set_aside`` keeps only
its ``count``: the audit view, replays and exports show them), and another seat's ``pass`` (the whole event: it would tell that the seat had an option on the card). Every consumer
(live tables, ``replay --trace --viewer``, replays) gets this one redacted stream.

A viewer's copy is numbered by his own events only (RULES.md §5.3, "What the others learn"): its
``seq`` counts the events he may see, so another seat's pass leaves no jump in his numbering. The
full ``seq`` (every event, passes included) is the audit view's, the stored log's and the exports'.
"""

from __future__ import annotations

from typing import Any

# The viewer that sees everything (audits, replays). ``None`` is a spectator.
AUDIT = "audit"


class Event:
    """One thing that happened, with ``seq`` from 1 within the hand.

    ``fields`` hold wire values (card names, not ints). ``secret`` marks a card that only the
    acting seat may see (a draw, a hidden 偎). ``passes``: how many ``pass`` events each seat has had
    in the hand up to this one (this one included), what a viewer's own numbering is worked out
    from; the hand shares one tuple between its events until the next pass. None for an event read
    back from JSON (``from_json``): only the audit copy of such an event can be given.
    """

    __slots__ = ("seq", "type", "seat", "fields", "secret", "passes")

    def __init__(self, seq: int, type_: str, seat: int | None, fields: dict[str, Any], secret: bool = False,
                 passes: tuple[int, ...] | None = None):
        self.seq = seq
        self.type = type_
        self.seat = seat
        self.fields = fields
        self.secret = secret
        self.passes = passes

    def viewer_seq(self, viewer: int | str | None) -> int:
        """This event's number in ``viewer``'s copy of the hand: the events up to it that he may see
        (every one for ``AUDIT``; other seats' passes are not among them)."""
        if viewer == AUDIT:
            return self.seq
        return viewer_seq(self.seq, self.passes, viewer)

    def to_wire(self) -> dict[str, Any]:
        """The full (audit) dict."""
        out: dict[str, Any] = {"seq": self.seq, "type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        out.update(self.fields)
        return out

    def for_viewer(self, viewer: int | str | None) -> dict[str, Any] | None:
        """The event as ``viewer`` (a seat, ``None`` = spectator, or ``AUDIT``) may see it, or None
        when the viewer must not learn that it happened at all.

        None for another seat's ``pass``: who passed tells who had an option on the card (a pair, a
        sentence, a winning hand), which is hidden information (a spectator sees no pass at all).
        """
        if viewer == AUDIT:
            return self.to_wire()
        if self.type == "pass" and viewer != self.seat:
            return None
        out = self.to_wire()
        out["seq"] = viewer_seq(self.seq, self.passes, viewer)
        # A spectator (None) sees what a player sees of the other seats: no hidden card.
        if self.type == "deal":
            out["hands"] = {
                s: (cards if s == viewer else [None] * len(cards)) for s, cards in self.fields["hands"].items()
            }
        elif self.secret and viewer != self.seat:
            out["card"] = None
        elif self.type == "set_aside":  # §9.6: nobody sees the set-aside cards while the hand is live
            del out["cards"]
        return out

    def to_json(self) -> dict[str, Any]:
        data = self.to_wire()
        if self.secret:
            data["_secret"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        fields = {k: v for k, v in data.items() if k not in ("seq", "type", "seat", "_secret")}
        if "hands" in fields:  # JSON turned the seat keys into strings
            fields["hands"] = {int(s): v for s, v in fields["hands"].items()}
        settlement = fields.get("settlement")
        if isinstance(settlement, dict):
            for key in ("deltas", "seat_huxi"):  # per-seat maps (seat_huxi: an escape's, §8.6)
                if isinstance(settlement.get(key), dict):
                    settlement = dict(settlement, **{key: {int(s): v for s, v in settlement[key].items()}})
            fields["settlement"] = settlement
        return cls(data["seq"], data["type"], data.get("seat"), fields, bool(data.get("_secret")))

    def __repr__(self) -> str:
        return f"Event({self.to_wire()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


def viewer_seq(seq: int, passes: tuple[int, ...] | None, viewer: int | str | None) -> int:
    """``seq`` (a full event number, or a hand's event count) as ``viewer`` (a seat, or ``None`` for
    a spectator) counts it, ``passes`` being each seat's passes so far: the passes of the other
    seats are not his to count.

    >>> viewer_seq(6, (0, 1, 0), 0), viewer_seq(6, (0, 1, 0), 1), viewer_seq(6, (0, 1, 0), None)
    (5, 6, 5)
    """
    if passes is None:
        raise ValueError("an event read back from JSON has no viewer numbering: redact the hand's own events")
    hidden = sum(passes)
    if viewer.__class__ is int:
        hidden -= passes[viewer]  # type: ignore[index]
    return seq - hidden
