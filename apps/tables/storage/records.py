"""A table's hands as engine records (ENGINE_CLI.md "replay") and its ended hands as
``paohuzi-hand/1`` document parts (apps/engine/EXPORT.md).

``apps.replays`` adds the ledger part to the same document (tables never imports ledgers);
``apps.tables.storage.verify`` checks these documents with the engine's standalone verifier.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from apps.engine import __version__ as ENGINE_VERSION
from apps.engine.records.chain import GENESIS_HASH
from apps.engine.records.verifier import FORMAT
from apps.engine.rules import RuleSet, overrides_of
from apps.tables.models import ENDED_HAND_STATUSES, Hand, Seat, Table
from apps.tables.storage.eventlog import Event, TableLog, hand_events

ENDED = ENDED_HAND_STATUSES


def hand_record(hand: Hand) -> dict:
    """The engine's hand record (ENGINE_CLI.md "replay") rebuilt from the table's rows."""
    return record_from_rows(hand, [(e.type, e.payload) for e in hand_events(hand)])


def record_from_rows(hand: Hand, events: list[tuple[str, Any]]) -> dict:
    """The record of ``hand`` from its ``(type, payload)`` event rows in seq order."""
    rules = dict(hand.ruleset)
    return {
        "preset": rules["preset"],
        # The overrides that resolve back to the stored ruleset, defaults that depend on the player
        # count included (a luzhou 4-player hand played without bottom_shown, RULES.md §3.8).
        "options": overrides_of(RuleSet.from_json(rules)),
        "players": rules["players"],
        "dealer": hand.dealer,
        "seed": hand.seed,
        "actions": [{"seat": p["seat"], "action": p["action"]} for t, p in events if t == "action"],
        "events": [p for t, p in events if t == "engine"],
    }


# ---- document parts ------------------------------------------------------------------------------

def _iso(dt) -> str | None:
    return dt.isoformat() if dt else None


EVENT_COLUMNS = ("seq", "created_at", "type", "payload", "prev_hash", "hash", "hand_id")


def event_part(row: Event) -> dict:
    """An export event from a log event (``apps.tables.storage.eventlog``; its fields are ``EVENT_COLUMNS``)."""
    seq, created_at, type_, payload, prev_hash, hash_, _hand_id = row
    seat = payload.get("seat") if isinstance(payload, dict) else None
    return {
        "seq": seq, "created_at": _iso(created_at), "type": type_,
        "actor": seat if isinstance(seat, int) and not isinstance(seat, bool) else None,
        "payload": payload, "prev_hash": prev_hash, "hash": hash_,
    }


def table_part(table: Table) -> dict:
    return {
        "id": table.pk, "name": table.name, "preset": table.preset, "players": table.players,
        "base_score": table.base_score, "fee": table.fee, "fee_payer": table.fee_payer,
        "practice": table.practice, "hands_per_session": table.hands_per_session, "status": table.status,
    }


def hand_part(hand: Hand, table: Table, events: list[Event], seats: dict[int, Seat], names: dict) -> dict:
    """The header, events, result and totals of one ended hand (``ledger`` None: replays adds it)."""
    players = {int(k): v for k, v in (hand.players or {}).items()}
    seat_rows = []
    for index in range(int(hand.ruleset.get("players", table.players))):
        user_id = players.get(index, seats[index].user_id if index in seats else None)
        bot = seats[index].bot if index in seats and user_id is None else ""
        seat_rows.append({"seat": index, "user_id": user_id, "name": names.get(user_id, "") if user_id else "",
                          "bot": bot})
    return {
        "id": hand.pk, "number": hand.number, "status": hand.status,
        "ruleset": hand.ruleset,
        "dealer": hand.dealer, "seats": seat_rows,
        "piao": {str(k): v for k, v in (hand.piao or {}).items()},
        "seed_hash": hand.seed_hash, "seed": hand.seed, "base_score": table.base_score,
        "started_at": _iso(hand.started_at), "finished_at": _iso(hand.finished_at),
        "events": [event_part(e) for e in events],
        "result": hand.result, "totals": hand.totals,
        "ledger": None,
    }


def document(table: Table, hands: list[Hand], *, scope: str, log: TableLog | None = None) -> dict:
    """A ``paohuzi-hand/1`` document of ended ``hands`` (in order) of ``table``, without ledger parts.

    Queries: the events of the covered seq range (one), the event after it (one), the seats and
    the players' names (two): a constant number whatever the hands' length. A compacted table's
    events come from its archive (``eventlog``: one more query, decoded once). ``scope`` "hand" covers
    the hand's events from its first to its last (and any table event between them); "session"
    covers the table's log from seq 1 (the genesis hash) to its end, or to just before a hand in play.
    ``log``: the table's reader when the caller reads more of the log (it decodes an archive once).
    """
    if not hands or any(h.status not in ENDED for h in hands):
        raise ValueError("only ended hands are exported")
    log = log or TableLog(table.pk)
    span = log.span([h.pk for h in hands])
    if span is None:
        raise ValueError("the hand has no events")
    first, last = span
    if scope == "session":  # the whole log, but never an event of a hand in play (or after it)
        first = 1
        playing = log.playing_start()
        last = playing - 1 if playing is not None else max(last, table.seq)
    rows = log.events(first, last)
    following = log.after(last)
    end_hash = following.prev_hash if following else table.last_hash
    seats = {s.index: s for s in Seat.objects.filter(table=table)}
    user_ids = {u for h in hands for u in (h.players or {}).values() if u} | {s.user_id for s in seats.values() if s.user_id}
    names = {u.pk: u.name for u in get_user_model().objects.filter(pk__in=user_ids)}
    by_hand: dict[int, list[tuple]] = {h.pk: [] for h in hands}
    other = []
    for row in rows:
        (by_hand[row.hand_id] if row.hand_id in by_hand else other).append(row)
    start_seq = rows[0].seq - 1 if scope == "hand" and rows else 0
    start_hash = rows[0].prev_hash if scope == "hand" and rows else GENESIS_HASH
    return {
        "format": FORMAT,
        "scope": scope,
        "engine_version": ENGINE_VERSION,
        "table": table_part(table),
        "chain": {"start_seq": start_seq, "start_hash": start_hash, "end_seq": last, "end_hash": end_hash},
        "hands": [hand_part(h, table, by_hand[h.pk], seats, names) for h in hands],
        "other_events": [event_part(e) for e in other],
    }

