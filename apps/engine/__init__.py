"""The Paohuzi (跑胡子) rules engine: pure Python, standard library only (no Django).

Public API (see README.md beside this file): rulesets, the ``Hand`` state machine with its actions and
events, replay, scoring and settlement, bots, the shuffle and card notation.
"""

from .actions import Action, IllegalAction
from .bots.choose import bot_choose
from .cards import card_name, parse_card
from .play.events import AUDIT, Event
from .play.hand import Hand
from .records.replay import ReplayMismatch, replay
from .rules import PRESETS, RuleError, RuleSet, resolve_ruleset
from .scoring.fast import score_win
from .scoring.settlement import settle
from .shuffle import deck_from_seed

# The engine's version, written into exports (EXPORT.md): bump it with any change that makes a
# recorded hand replay differently (a rule reading, an event field).
__version__ = "1.0"

__all__ = [
    "AUDIT",
    "PRESETS",
    "Action",
    "Event",
    "Hand",
    "IllegalAction",
    "ReplayMismatch",
    "RuleError",
    "RuleSet",
    "bot_choose",
    "card_name",
    "deck_from_seed",
    "parse_card",
    "replay",
    "resolve_ruleset",
    "score_win",
    "settle",
]
