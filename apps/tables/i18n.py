"""The table page's UI strings, translated on the server and handed to the ES modules as JSON."""

from __future__ import annotations

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from apps.engine.mingtang import CHINESE_NAMES


def mingtang_labels() -> dict[str, str]:
    """名堂 and bonus names -> what the viewer reads: the engine's Chinese words, or in another
    language the pinyin ("hong_hu" -> "Hong Hu")."""
    if (get_language() or "zh-hans").startswith("zh"):
        return dict(CHINESE_NAMES)
    return {name: name.replace("_", " ").title() for name in CHINESE_NAMES}


def table_strings() -> dict:
    return {
        "mingtangNames": mingtang_labels(),
        "error_generic": _("That did not work; the table was refreshed."),
        "error_no_hand": _("No hand is being played."), "error_bad_stage": _("Not possible at this moment."),
        "error_piao_chosen": _("You have already chosen."), "error_bad_piao": _("Choose one of the offered piao values."),
        "error_not_seated": _("You have no seat at this table."), "error_table_closed": _("This table is closed."),
        "error_not_allowed": _("You may not do that."), "error_not_your_card": _("That card is not in your hand."),
        "error_bad_action": _("That move is not allowed now."), "error_bad_card": _("That card is not in your hand."),
        "chi": _("Chi"), "peng": _("Peng"), "hu": _("Hu"), "pass": _("Pass"), "discard": _("Discard"),
        "ti": _("Ti"), "pao": _("Pao"), "wei": _("Wei"), "chou_wei": _("Chou wei"), "kan": _("Kan"),
        "sentence": _("Sentence"), "jiao": _("Jiao"), "jiang": _("Pair"),
        "huxi": _("Huxi"), "tun": _("Tun"), "fan": _("Fan"), "mingtang": _("Mingtang"), "score": _("Score"),
        "piao": _("Piao"), "fee": _("Table fee"), "total": _("Total"), "wins": _("Wins"), "dealer": _("Dealer"),
        "stock": _("Stock"), "reveal": _("Reveal"), "offline": _("Offline"), "tuoguan": _("Auto-play"),
        "cancelTuoguan": _("Stop auto-play"), "ready": _("Ready"), "readyDone": _("Ready ✓"),
        "nextHand": _("Next hand"), "waitingPlayers": _("Waiting for players"), "join": _("Take a seat"),
        "leave": _("Leave seat"), "addBot": _("Add a bot"), "emptySeat": _("Empty seat"), "botName": _("Bot %(n)s"),
        "you": _("You"), "yourTurn": _("Your turn: discard a card"), "turnOf": _("%(name)s to discard"),
        "claimsOpen": _("Waiting for claims"), "yourChoice": _("Your choice"), "chooseChi": _("Choose a chi"),
        "cancel": _("Cancel"), "choosePiao": _("Choose piao"), "piaoWaiting": _("Waiting for piao choices"),
        "dissolve": _("Dissolve"), "dissolveAsk": _("%(name)s asks to dissolve the table"),
        "agree": _("Agree"), "refuse": _("Refuse"), "dissolveTable": _("Dissolve table"),
        "dissolved": _("The table was dissolved"), "finished": _("Session over"),
        "summary": _("Session results"), "settlement": _("Hand result"), "winner": _("Winner"),
        "draw": _("Draw (huang zhuang)"), "winBy": _("Win by"), "seed": _("Seed"), "seedHash": _("Seed hash"),
        "change": _("Hand change"), "player": _("Player"), "hand": _("Hand"), "of": _("of"), "reconnecting": _("Reconnecting…"),
        "connected": _("Connected"), "spectator": _("Watching"), "backToClub": _("Back to club"),
        "replay": _("Replay"), "from": _("from"), "selfDraw": _("self-drawn"), "otherDraw": _("drawn"),
        "discarded": _("discarded"), "tapAgain": _("Tap again to discard"), "dead": _("Dead hand"),
        "deadline": _("Time left"), "hands": _("Hands"),
        "error_stale_seq": _("The table moved on; refreshed."), "error_not_your_turn": _("It is not your turn."),
        "error_illegal_action": _("That move is not allowed now."),
        "win_self_draw": _("Self-drawn"), "win_other_draw": _("On a drawn card"), "win_discard": _("On a discard"),
        "win_reveal": _("On the reveal card"), "win_natural": _("Natural win"),
        "botThinking": _("Bot is thinking…"),
        "preset_basic": _("Basic rules"), "preset_half": _("Half mingtang"), "preset_full": _("Full mingtang"),
        "preset_changsha": _("Changsha rules"), "preset_quanmin": _("Quanmin rules"),
        "preset_chenzhou": _("Chenzhou rules"), "preset_luzhou": _("Luzhou rules"),
        # The table screen (issue #11): seats named from the viewer's seat, the 大局 summary, sound.
        "shangjia": _("Previous seat"), "xiajia": _("Next seat"), "duijia": _("Opposite seat"),
        "waitingJoin": _("Waiting to join"), "bigWinner": _("Big winner"), "zimo": _("Self-drawn wins"),
        "dianpao": _("Dealt in"), "bestHuxi": _("Best huxi"), "rematch": _("Play again"),
        "rules": _("Table rules"), "soundOn": _("Sound on"), "soundOff": _("Sound off"),
        # Issue 24: the 托管 switch, the 解散 confirmation, the result of a dissolved table.
        "tuoguanOn": _("Auto-play on"), "tuoguanHelp": _("Let the computer play for you until you switch it off"),
        "error_not_playing": _("Auto-play can be switched on only while the table plays."),
        "error_not_your_seat": _("You may only act for your own seat."),
        "dissolvePropose": _("Ask to dissolve"),
        "dissolveConfirmWaiting": _("Dissolve this table? Everyone seated leaves it and it cannot be reopened."),
        "dissolveConfirmVote": _("Ask the other players to dissolve the table? It ends when all agree; "
                                 "the hand in play is not scored."),
        "handCutShort": _("Hand %(n)s was not finished and is not scored."),
        "noHandPlayed": _("No hand was played at this table."),
        # Issue 26: the room options (RULES.md §3.8, §8.6, §9.6).
        "escape": _("Escape"), "escapeTitle": _("Leave this hand?"),
        "escapeConfirm": _("Leaving ends this hand at once. You pay %(n)s points now, split among the other "
                           "players."),
        "escapeResult": _("%(name)s escaped and pays %(n)s points."),
        "error_escape_off": _("Leaving a hand is not allowed at this table."),
        "bottomCard": _("Last card"), "notWinnable": _("No hu on it"),
        "setAside": _("%(n)s cards set aside"), "capped": _("capped at %(n)s"),
        "sittingOut": _("You sit this hand out and watch it."),
        "escaped": _("escaped"), "bottomShownEv": _("last card shown"), "bottomToTop": _("red last card to the top"),
    }
