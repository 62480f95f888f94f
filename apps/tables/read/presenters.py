"""What one viewer (a seat, or ``None`` for a spectator) may know about a table, as a JSON dict.

Everything per viewer comes from the engine's ``view`` of the hand for him (``build_view(hand, viewer)``);
everything else here is public table data: nothing is read off the engine's hand object, which
holds every hidden card (issue #41). Who may claim a shown card is hidden too: the viewer's own
legal actions are the view's ``legal_actions``, and the seat that must discard is the view's
``turn`` in ``phase`` "discard" (each fact once in a copy; ``legal_of``/``turn_of`` read them, as
the page's ``legalActions``/``discardTurn`` do).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from apps.clubs.fees import fee_seats
from apps.engine.play.observer import build_view, build_views
from apps.tables.models import (
    DISSOLVE_SECONDS,
    NEXT_HAND_SECONDS,
    PIAO_ARRIVAL_SECONDS,
    PIAO_SECONDS,
    Hand,
    HandStatus,
    Seat,
    Stage,
    Table,
)
from apps.tables.read.summary import session_summary
from apps.tables.storage.jsontext import to_json


def _ms(dt) -> int | None:
    return int(dt.timestamp() * 1000) if dt else None


def seat_state(seat: Seat, *, show_piao: bool) -> dict[str, Any]:
    user = seat.user if seat.user_id else None
    return {
        "index": seat.index,
        "name": user.name if user else "",  # a bot's name is given by the page, in the viewer's language
        "user_id": seat.user_id,
        "bot": seat.bot,
        "online": seat.online or bool(seat.bot),
        "tuoguan": seat.tuoguan,
        # time-outs in a row on the seat's turn (public: everyone saw the card played for it; a
        # claim window's time-out is not counted, RULES.md §11.6): the page marks 超时自动出牌
        "timeouts": seat.timeouts,
        "ready": seat.ready,
        "piao": seat.piao if show_piao else None,
        "piao_chosen": seat.piao is not None,
        "score": seat.score,
        "wins": seat.wins,
    }


def hand_fees(table: Table, hand: Hand) -> dict[str, int]:
    """The table fee each seat pays for this finished hand (``{"seat": fee}``), as the ledger posts it."""
    if table.practice or hand.status != HandStatus.FINISHED:
        return {}
    seat_users = {int(k): v for k, v in (hand.players or {}).items()}
    active = set(hand.playing or [])  # frozen at the deal, as the ledger reads it
    payers = fee_seats(fee=int(table.fee), payer=table.fee_payer, playing=sorted(s for s in seat_users if s in active),
                       winner=(hand.result or {}).get("winner"), seat_users=seat_users)
    return {str(s): int(table.fee) for s in payers}


def hand_state(hand: Hand, view: dict, viewer: int | None) -> dict[str, Any]:
    """The hand as ``viewer`` sees it, from ``view`` (the engine's ``build_view(hand, viewer)``) and the
    public hand row only: never from the engine's hand itself (RULES.md §5.3, issue #41)."""
    out: dict[str, Any] = {
        "number": hand.number,
        "dealer": hand.dealer,
        "seed_hash": hand.seed_hash,
        "status": hand.status,
        "piao": hand.piao,
        "view": view,  # the viewer's legal actions and the turn are the view's (one copy of each)
    }
    if hand.status != HandStatus.PLAYING or view["finished"]:
        out.update(seed=hand.seed, result=hand.result, totals=hand.totals)
    return out


def legal_of(hand_part: dict | None) -> list[dict]:
    """The viewer's legal actions in a hand part (``state["hand"]``): the view's list while the hand
    is played, else none (what the page reads, static/js/table/board.js ``legalActions``)."""
    if not hand_part or hand_part.get("status") != HandStatus.PLAYING or hand_part["view"].get("finished"):
        return []
    return list(hand_part["view"].get("legal_actions") or [])


def turn_of(hand_part: dict | None) -> int | None:
    """The seat that must discard now in a hand part (public: the view's phase and turn), or None."""
    if not hand_part or hand_part.get("status") != HandStatus.PLAYING or hand_part["view"].get("finished"):
        return None
    view = hand_part["view"]
    return view["turn"] if view["phase"] == "discard" else None


def deadline_seconds(table: Table, kind: str) -> int | None:
    """The full length of a deadline of ``kind``: what a countdown starts from. ``None`` for a bot's
    deadline alone (a random short delay, no countdown) and for unknown kinds."""
    return {"turn": table.turn_seconds, "claim": table.claim_seconds, "piao": PIAO_SECONDS,
            "next": NEXT_HAND_SECONDS}.get(kind)


def _table_part(table: Table, summary: list | None, seats: list[Seat]) -> dict[str, Any]:
    """Everything of a viewer's screen that is the same for every viewer: the table, the deadline,
    the 解散 vote, the 大局 summary."""
    state: dict[str, Any] = {
        "id": table.pk,
        "name": table.name,
        "club_id": table.club_id,
        "status": table.status,
        "stage": table.stage,
        "preset": table.preset,
        "players": table.players,
        "base_score": table.base_score,
        "piao_choices": table.piao_choices,
        "hands_per_session": table.hands_per_session,
        "hands_played": table.hands_played,
        "turn_seconds": table.turn_seconds,
        "claim_seconds": table.claim_seconds,
        "dealer": table.dealer,
        "practice": table.practice,
        "created_by": table.created_by_id,
        "deadline": _ms(table.deadline),
        "deadline_kind": table.deadline_kind,
        "fee": 0 if table.practice else table.fee,
        "fee_payer": table.fee_payer,
        "dissolve": None,
        "summary": None,
    }
    info = table.deadline_info or {}
    if info.get("window"):
        # A claim window: everyone sees its end, not whose decision (a bot's or a person's) the
        # table waits for - who holds an option on the card is hidden (RULES.md §6).
        state["deadline"], state["deadline_kind"] = _ms(datetime.fromisoformat(info["window"])), "claim"
    state["deadline_seconds"] = deadline_seconds(table, state["deadline_kind"]) if state["deadline"] else None
    # A piao window that waits for its players to come (an arranged table's first hand): who has
    # not come yet (the seats' presence is public), and the wait's whole length for the ring.
    state["arriving"] = []
    if table.stage == Stage.PIAO and "arrive_by" in info:
        arrived = info.get("arrived") or {}
        state["arriving"] = [s.index for s in seats if s.piao is None and str(s.index) not in arrived]
        state["deadline_seconds"] = PIAO_ARRIVAL_SECONDS
    if table.dissolve_by is not None:
        state["dissolve"] = {
            "by": table.dissolve_by,
            "votes": table.dissolve_votes,
            "deadline": _ms(table.dissolve_deadline),
            "seconds": DISSOLVE_SECONDS,
        }
    if table.stage == Stage.OVER:  # (the outbox computes it once for all its viewers' copies)
        state["summary"] = summary if summary is not None else session_summary(table, seats)
    return state


def _seats_part(table: Table, seats: list[Seat], viewer: int | None) -> list[dict[str, Any]]:
    """The seats as ``viewer`` sees them: while piao is being chosen, only his own choice."""
    show_piao = table.stage != Stage.PIAO
    return [seat_state(s, show_piao=show_piao or s.index == viewer) for s in seats]


def _hand_part(table: Table, hand: Hand | None, engine_hand: Any, viewer: int | None,
               view: dict | None = None) -> dict[str, Any] | None:
    """The hand part of ``viewer``'s screen. The engine hand serves only to build his ``view``
    (when not given): everything else comes from that view and public table data."""
    if hand is None or engine_hand is None:
        return None
    if view is None:
        view = build_view(engine_hand, viewer)
    out = hand_state(hand, view, viewer)
    if out["status"] != HandStatus.PLAYING:
        out["fees"] = hand_fees(table, hand)
    elif viewer is not None and not table.arranged and view.get("escape"):
        # 逃跑 (§8.6): the least he would pay if he left now, from what he sees (the view's bound at
        # base 1), in his own copy only; the exact amount comes with the hand's end.
        out["escape"] = {"at_least": int(view["escape"]["at_least"]) * table.base_score}
    return out


def table_state(table: Table, seats: list[Seat], hand: Hand | None, engine_hand: Any,
                viewer: int | None, summary: list | None = None, nearby: dict | None = None) -> dict[str, Any]:
    """The whole screen of ``viewer``: table, seats, the current (or last) hand, votes, summary;
    for a seated viewer, ``nearby`` (read/nearby.py ``table_nearby``) when it was computed."""
    state = _table_part(table, summary, seats)
    state["me"] = viewer
    state["seats"] = _seats_part(table, seats, viewer)
    state["hand"] = _hand_part(table, hand, engine_hand, viewer)
    if viewer is not None and nearby is not None:  # the seated players' own: never a spectator's
        state["nearby"] = nearby
    return state


def encoded_states(table: Table, seats: list[Seat], hand: Hand | None, engine_hand: Any,
                   viewers: list[int | None], summary: list | None = None,
                   nearby: dict | None = None) -> dict[int | None, str]:
    """``table_state`` of each viewer as JSON text, what is the same for all of them built and
    encoded once (an update goes to every viewer at once). ``nearby``: given only when the seating
    changed (the page keeps the last one it got), for the seated viewers only."""
    common = to_json(_table_part(table, summary, seats))[1:-1]
    shared_seats = to_json(_seats_part(table, seats, None)) if table.stage != Stage.PIAO else None
    views = build_views(engine_hand, viewers) if hand is not None and engine_hand is not None else None
    nearby_json = "" if nearby is None else f',"nearby":{to_json(nearby)}'
    out = {}
    for i, viewer in enumerate(viewers):
        seats_json = shared_seats if shared_seats is not None else to_json(_seats_part(table, seats, viewer))
        hand_part = _hand_part(table, hand, engine_hand, viewer, None if views is None else views[i])
        out[viewer] = f'{{{common},"me":{to_json(viewer)},"seats":{seats_json},"hand":{to_json(hand_part)}'
        out[viewer] += (nearby_json if viewer is not None else "") + "}"
    return out
