"""How a bot or 托管 seat of a live table chooses: the engine's bot, with the platform's seeding and budget.

The choice is the engine's (``apps.engine.bots.choose.bot_choose``); the platform adds only a random
generator salted by the hand (so a replayed hand chooses the same) and the searching bot's budget
from the settings.
"""

from __future__ import annotations

import random

from django.conf import settings

from apps.engine.bots.choose import bot_choose
from apps.engine.bots.search import Budget
from apps.engine.play.hand import Action, Hand


def bot_action(hand: Hand, seat: int, *, kind: str, salt: str) -> Action:
    """The engine bot's choice; ``hard`` decides from the seat's view within ``search_budget()``."""
    rng = random.Random(f"{salt}:{len(hand.events)}:{seat}")
    return bot_choose(hand, seat, kind=kind or "greedy", rng=rng, budget=search_budget())


def search_budget() -> Budget:
    """The searching bot's budget per decision (settings.TABLES_BOT_SEARCH_*): it runs in the
    thread that holds the table's lock, never in the event loop."""
    return Budget(worlds=settings.TABLES_BOT_SEARCH_WORLDS or None, cpu_ms=settings.TABLES_BOT_SEARCH_MS or None,
                  wall_ms=settings.TABLES_BOT_SEARCH_WALL_MS or None)
