"""快捷语 and reactions (issue #47): the fixed list a seated player may send at the table.

Written by us, once, here: a row stores only the id (``TablePhrase.phrase``, checked by the
database against ``PHRASE_IDS``), and each reader is shown the words in his own language. There is
no free text anywhere on this path. Ids are stable (rows and the managers' log keep them); a new
entry is added at the end of its list, and the model's check constraint takes a migration.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Phrase:
    id: str
    text: Promise  # the words, translated when read
    emoji: str = ""  # a reaction's picture; a phrase has none

    @property
    def reaction(self) -> bool:
        return bool(self.emoji)


# In the register of the club apps' 快捷语: short, friendly, a little teasing.
PHRASES: tuple[Phrase, ...] = (
    Phrase("hurry", _("Hurry up, the flowers have wilted waiting for you")),
    Phrase("dropped", _("Sorry, my connection dropped just now")),
    Phrase("well_played", _("You play really well")),
    Phrase("winning", _("I'm going to win this hand")),
    Phrase("hello", _("Hello everyone, good to see you")),
    Phrase("one_more", _("Don't leave, one more round")),
    Phrase("lucky", _("Lucky hands today")),
    Phrase("bad_net", _("My network is bad, please wait a moment")),
    Phrase("calm", _("No arguing, let's just play")),
    Phrase("hopeless", _("These cards are hopeless")),
    Phrase("mercy", _("Thanks for going easy on me")),
    Phrase("bye", _("I have to go, next time")),
)
REACTIONS: tuple[Phrase, ...] = (
    Phrase("like", _("Like"), "👍"),
    Phrase("laugh", _("Laugh"), "😂"),
    Phrase("wow", _("Wow"), "😮"),
    Phrase("cry", _("Cry"), "😭"),
    Phrase("rose", _("Rose"), "🌹"),
    Phrase("bomb", _("Bomb"), "💣"),
)
BY_ID: dict[str, Phrase] = {p.id: p for p in (*PHRASES, *REACTIONS)}
PHRASE_IDS: tuple[str, ...] = tuple(BY_ID)
MAX_ID_LENGTH = 16  # the column's width (every id fits: checked by a test)

# How long the rows are kept (the daily retention job purges older ones: apps/replays/tasks.py).
KEEP_DAYS = 30


def words(phrase_id: str) -> str:
    """What a reader is shown for ``phrase_id``: the words (a reaction: its picture and name).

    >>> from django.utils.translation import override
    >>> with override("en"):
    ...     words("like")
    '👍 Like'
    """
    phrase = BY_ID.get(phrase_id)
    if phrase is None:
        return phrase_id
    return f"{phrase.emoji} {phrase.text}" if phrase.reaction else str(phrase.text)


def page_list() -> dict[str, list[dict]]:
    """The lists for the table page (static/js/table/phrases.js), in the current language."""
    def item(p: Phrase) -> dict:
        return {"id": p.id, "text": str(p.text), **({"emoji": p.emoji} if p.reaction else {})}

    return {"phrases": [item(p) for p in PHRASES], "reactions": [item(p) for p in REACTIONS]}


def page_strings() -> dict[str, str]:
    """The words of the table page's 快捷语 sheet and its refusals."""
    return {
        "phrasesButton": gettext("Quick phrases"),
        "phrasesTitle": gettext("Quick phrases and reactions"),
        "phrasesMute": gettext("Hide others' phrases"),
        "phrasesUnmute": gettext("Show others' phrases"),
        "phrasesMuted": gettext("Phrases hidden"),
        "error_bad_phrase": gettext("Choose one of the quick phrases."),
        "error_phrases_off": gettext("Quick phrases are turned off at this table."),
        "error_phrase_too_fast": gettext("Not so fast: wait a moment before the next phrase."),
        "phrasesSeatedOnly": gettext("Only seated players may send phrases."),
    }
