"""How the live tables use the engine's hand: build, load, save, redact, settle, choose for bots.

Redaction is the engine's alone (``Event.for_viewer`` / ``Hand.view``): nothing here adds or
removes a field. A spectator is ``None`` and sees no hidden card, no other seat's ``pass`` and no
claimant (tests/tables/test_tables_leaks.py checks every copy sent; tests/engine/test_views_redaction.py
the engine's rules).
"""

from __future__ import annotations

import json
import random
from typing import Any

from django.conf import settings

from apps.engine import Action, Hand, IllegalAction  # noqa: F401 - re-exported
from apps.engine import settle as engine_settle
from apps.engine.bots.choose import bot_choose
from apps.engine.bots.search import Budget
from apps.engine.play.dealer import next_dealer  # noqa: F401 - re-exported
from apps.engine.play.observer import build_view, build_views
from apps.engine.rules import RuleSet


def ruleset_of(data: dict) -> RuleSet:
    return RuleSet.from_json(data)


def new_hand(rules: RuleSet, *, dealer: int, seed: bytes) -> Hand:
    return Hand(rules, dealer=dealer, seed=seed)


def load_hand(state: dict) -> Hand:
    return Hand.from_json(state)


def dump_hand(hand: Hand) -> dict:
    return hand.to_json()


def apply_logged(hand: Hand, payloads: list[dict]) -> None:
    """Re-apply logged ``action`` events (``{"seat", "action"}``) to a hand, in order."""
    for p in payloads:
        hand.apply(p["seat"], Action.from_wire(p["action"]))


def event_for(ev: Any, viewer: int | None) -> dict | None:
    """The engine event as ``viewer`` (seat int, or None for a spectator) may see it; None when the
    viewer must not learn it happened (another seat's ``pass``). The rule is the engine's."""
    return ev.for_viewer(viewer)


def view_for(hand: Hand, viewer: int | None) -> dict:
    """``hand.view`` for a seat, or for a spectator (``None``): the engine hides every hidden card
    and, while claims are open, every claimant but the viewer himself (``views._public_to_act``)."""
    return build_view(hand, viewer)


def views_for(hand: Hand, viewers: list[int | None]) -> list[dict]:
    """``view_for`` of each viewer, built together (an update's copies): the same redaction."""
    return build_views(hand, viewers)


def legal_wire(hand: Hand, seat: int) -> list[dict]:
    return [a.to_wire() for a in hand.legal_actions(seat)]


def discard_seat(hand: Hand) -> int | None:
    """The seat that must discard now (public knowledge), if any."""
    for seat in hand.to_act():
        if any(a.type == "discard" for a in hand.legal_actions(seat)):
            return seat
    return None


def bot_action(hand: Hand, seat: int, *, kind: str, salt: str) -> Action:
    """The engine bot's choice; ``hard`` decides from the seat's view within ``search_budget()``."""
    rng = random.Random(f"{salt}:{len(hand.events)}:{seat}")
    return bot_choose(hand, seat, kind=kind or "greedy", rng=rng, budget=search_budget())


def search_budget() -> Budget:
    """The searching bot's budget per decision (settings.TABLES_BOT_SEARCH_*): it runs in the
    thread that holds the table's lock, never in the event loop."""
    return Budget(worlds=settings.TABLES_BOT_SEARCH_WORLDS or None, cpu_ms=settings.TABLES_BOT_SEARCH_MS or None,
                  wall_ms=settings.TABLES_BOT_SEARCH_WALL_MS or None)


def hand_seed_hex(hand: Hand) -> str:
    return bytes(hand.seed).hex()


def settle(hand: Hand, *, base: int, piao: dict[int, int]) -> dict:
    """The engine's ``settle``: per-seat score, piao and total lines (zero-sum)."""
    return engine_settle(hand, base=base, piao=piao)


def hand_card_names(hand: Hand, seat: int) -> list[str]:
    """The seat's own hidden cards, in notation."""
    return list(build_view(hand, seat)["hands"][seat] or [])


def jsonable(value: Any) -> Any:
    """The value as it reads back from JSON (int dict keys become strings)."""
    return json.loads(json.dumps(value))
