"""Check a finished hand: the table's hash chain, the seed commitment, and the engine's replay
reproducing every logged engine event and the settlement."""

from __future__ import annotations

from apps.engine.replay import replay
from apps.engine.rules import PRESETS

from . import engine_io
from .chain import seed_commitment, verify_chain
from .models import Hand, TableEvent


def hand_record(hand: Hand) -> dict:
    """The engine's hand record (ENGINE_CLI.md "replay") rebuilt from the table's rows."""
    rules = dict(hand.ruleset)
    defaults = PRESETS[rules["preset"]].to_json()
    events = TableEvent.objects.filter(hand=hand).order_by("seq")
    return {
        "preset": rules["preset"],
        "options": {k: v for k, v in rules.items() if k not in ("preset", "players") and defaults.get(k) != v},
        "players": rules["players"],
        "dealer": hand.dealer,
        "seed": hand.seed,
        "actions": [{"seat": e.payload["seat"], "action": e.payload["action"]} for e in events if e.type == "action"],
        "events": [e.payload for e in events if e.type == "engine"],
    }


def verify_hand(hand: Hand) -> str | None:
    """None when the hand checks out; else what is wrong."""
    if hand.status != "finished" or not hand.seed:
        return "the hand is not finished"
    if seed_commitment(bytes.fromhex(hand.seed)) != hand.seed_hash:
        return "the seed does not match its commitment"
    problem = verify_chain(TableEvent.objects.filter(table=hand.table_id).order_by("seq"))
    if problem:
        return f"hash chain: {problem}"
    record = hand_record(hand)
    try:
        replayed = replay(engine_io.jsonable(record))
    except Exception as exc:  # noqa: BLE001 - any failure to replay is the finding
        return f"replay: {exc}"
    if engine_io.jsonable(replayed.result) != hand.result:
        return "replay: the result differs"
    piao = {int(k): v for k, v in (hand.piao or {}).items()}
    totals = engine_io.settle(replayed, base=hand.table.base_score, piao=piao)
    if engine_io.jsonable(totals) != hand.totals:
        return "replay: the settlement differs"
    return None


def verify_table_hands(table_id: int) -> list[str | None]:
    return [verify_hand(h) for h in Hand.objects.filter(table_id=table_id).select_related("table")]
