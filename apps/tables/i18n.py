"""The table page's UI strings, translated on the server and handed to the ES modules as JSON."""

from __future__ import annotations

from django.utils.translation import gettext as _


def table_strings() -> dict[str, str]:
    return {
        "chi": _("Chi"), "peng": _("Peng"), "hu": _("Hu"), "pass": _("Pass"), "discard": _("Discard"),
        "ti": _("Ti"), "pao": _("Pao"), "wei": _("Wei"), "chou_wei": _("Chou wei"), "kan": _("Kan"),
        "sentence": _("Sentence"), "jiao": _("Jiao"), "jiang": _("Pair"),
        "huxi": _("Huxi"), "tun": _("Tun"), "fan": _("Fan"), "mingtang": _("Mingtang"), "score": _("Score"),
        "piao": _("Piao"), "total": _("Total"), "wins": _("Wins"), "dealer": _("Dealer"),
        "stock": _("Stock"), "reveal": _("Reveal"), "offline": _("Offline"), "tuoguan": _("Auto-play"),
        "cancelTuoguan": _("Stop auto-play"), "ready": _("Ready"), "readyDone": _("Ready ✓"),
        "nextHand": _("Next hand"), "waitingPlayers": _("Waiting for players"), "join": _("Take a seat"),
        "leave": _("Leave seat"), "addBot": _("Add a bot"), "emptySeat": _("Empty seat"),
        "you": _("You"), "yourTurn": _("Your turn: discard a card"), "turnOf": _("{name} to discard"),
        "claimsOpen": _("Waiting for claims"), "yourChoice": _("Your choice"), "chooseChi": _("Choose a chi"),
        "cancel": _("Cancel"), "choosePiao": _("Choose piao"), "piaoWaiting": _("Waiting for piao choices"),
        "dissolve": _("Dissolve"), "dissolveAsk": _("{name} asks to dissolve the table"),
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
    }
