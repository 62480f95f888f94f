"""A played hand as the platform exports it (``paohuzi-hand/1``, apps/engine/EXPORT.md), built with
nothing but the engine: the documents the verifier's and the reviewer's tests read."""

from __future__ import annotations

import hashlib
import json
import random

from apps.engine import settle
from apps.engine.actions import Action
from apps.engine.bots.choose import bot_choose
from apps.engine.play.hand import Hand
from apps.engine.records.chain import GENESIS_HASH, link_hash
from apps.engine.records.verifier import FORMAT
from apps.engine.rules import resolve_ruleset


def _event(events: list, type_: str, payload) -> None:
    prev = events[-1]["hash"] if events else GENESIS_HASH
    seq = events[-1]["seq"] + 1 if events else 1
    seat = payload.get("seat") if isinstance(payload, dict) else None
    events.append({"seq": seq, "created_at": "2026-01-01T00:00:00+00:00", "type": type_, "actor": seat,
                   "payload": payload, "prev_hash": prev, "hash": link_hash(prev, payload)})


def make_doc(preset="full", players=3, index=0, piao=None, base=2, want_win=True, options=None,
             escape_at=None, want=None) -> dict:
    """A session document of one hand played by greedy bots, logged as the platform logs it.

    ``escape_at``: after that many actions the last active seat escapes (RULES.md §8.6); ``want``: a
    test the finished hand must pass (else the next seed is tried)."""
    rs = resolve_ruleset(preset, {**({"piao": True} if piao else {}), **(options or {})}, players=players)
    for attempt in range(40):
        seed = hashlib.sha256(f"export-{preset}-{players}-{index}-{attempt}".encode()).digest()
        hand = Hand(rs, dealer=attempt % players, seed=seed)
        events: list[dict] = []
        piao_json = {str(k): v for k, v in (piao or {}).items()}
        _event(events, "table.open", {"name": "t", "preset": preset, "players": players})
        _event(events, "hand.start", {"number": 1, "dealer": hand.dealer,
                                      "seed_hash": hashlib.sha256(seed).hexdigest(), "piao": dict(piao_json)})
        for ev in hand.events:
            _event(events, "engine", json.loads(json.dumps(ev.to_wire())))
        rng = random.Random(attempt)
        while not hand.finished:
            seat = hand.to_act()[0]
            action = bot_choose(hand, seat, "greedy", rng)
            if escape_at is not None and len(hand.actions) == escape_at:
                seat, action = hand.active_seats[-1], Action.from_wire({"type": "escape"})
            _event(events, "action", {"seat": seat, "action": action.to_wire(), "by": "bot"})
            for ev in hand.apply(seat, action):
                _event(events, "engine", json.loads(json.dumps(ev.to_wire())))
        if want_win and hand.result.get("winner") is None and escape_at is None:
            continue
        if want is not None and not want(hand):
            continue
        result = json.loads(json.dumps(hand.result))
        totals = json.loads(json.dumps(settle(hand, base=base, piao=piao or {})))
        _event(events, "hand.end", {"number": 1, "seed": seed.hex(), "seed_hash": hashlib.sha256(seed).hexdigest(),
                                    "winner": result.get("winner"), "result": result, "totals": totals})
        entries = []
        for seat in range(players):
            for part in ("score", "piao"):
                amount = totals[part][str(seat)]
                if amount or result.get("winner") is not None or "escape" in result:
                    entries.append({"seat": seat, "kind": part, "amount": amount, "account": "member",
                                    "user_id": 100 + seat})
        part = {
            "id": 7, "number": 1, "status": "finished", "ruleset": rs.to_json(), "dealer": hand.dealer,
            "seats": [{"seat": s, "user_id": 100 + s, "name": f"p{s}", "bot": ""} for s in range(players)],
            "piao": piao_json, "seed_hash": hashlib.sha256(seed).hexdigest(), "seed": seed.hex(),
            "base_score": base, "started_at": None, "finished_at": None,
            "events": events[1:], "result": result, "totals": totals,
            "ledger": {"key": "hand:7", "practice": False, "entries": entries, "fee": None},
        }
        return {
            "format": FORMAT, "scope": "session", "engine_version": "1.0", "table": {"id": 1},
            "chain": {"start_seq": 0, "start_hash": GENESIS_HASH, "end_seq": events[-1]["seq"],
                      "end_hash": events[-1]["hash"]},
            "hands": [part], "other_events": events[:1],
        }
    raise AssertionError("no won hand")
