"""The table page's UI strings, translated on the server and handed to the ES modules as JSON."""

from __future__ import annotations

from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

from apps.engine.scoring.mingtang import CHINESE_NAMES


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
        "nextHand": _("Next hand"), "nextHandAuto": _("The next hand starts by itself in"), "waitingPlayers": _("Waiting for players"), "join": _("Take a seat"),
        "leave": _("Leave seat"), "addBot": _("Add a bot"), "emptySeat": _("Empty seat"), "botName": _("Bot %(n)s"),
        "you": _("You"), "yourTurn": _("Your turn: discard a card"), "turnOf": _("%(name)s to discard"),
        "claimsOpen": _("Waiting for claims"), "yourChoice": _("Your choice"), "chooseChi": _("Choose a chi"),
        "cancel": _("Cancel"), "choosePiao": _("Choose piao"), "piaoWaiting": _("Waiting for piao choices"),
        "piaoArriving": _("Waiting for %(names)s to come to the table"),
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
        "rules": _("Table rules"),
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
        # §8.6: the formula, and the least he would pay from what he sees (the exact amount counts
        # cards he may not see: it comes with the hand's end).
        "escapeConfirm": _("Leaving ends this hand at once. You pay ((the other players' huxi − 12) ÷ 3 + 8) × the "
                           "base score (rounded down; huxi under 12 counts as 12). From what you see now, at least "
                           "%(n)s points; the exact amount is worked out when the hand ends and split among the "
                           "other players."),
        "escapeMovedOn": _("The table moved on: the least you would pay is now %(n)s points."),
        "escapeResult": _("%(name)s escaped and pays %(n)s points."),
        "error_escape_off": _("Leaving a hand is not allowed at this table."),
        "error_escape_claim": _("You cannot leave while a card awaits answers."),
        "bottomCard": _("Last card"), "notWinnable": _("No hu on it"),
        "setAside": _("%(n)s cards set aside"), "capped": _("capped at %(n)s"),
        "sittingOut": _("You sit this hand out and watch it."),
        "escaped": _("escaped"), "bottomShownEv": _("last card shown"), "bottomToTop": _("red last card to the top"),
        # Issue #41: taps made while the socket is down wait in an outbox; the connection banner.
        "outboxSending": _("Sending…"), "outboxSlow": _("Still sending…"),
        "outboxOffline": _("Not sent yet: the network is down; it goes out by itself once reconnected"),
        "notSent": _("Not sent"), "notSentWhy": _("Not sent: %(why)s"),
        "notSentMoved": _("The table moved on; that move was not sent"),
        "notSentGaveUp": _("Not sent: the network was down for too long"),
        "notSentUnsure": _("The connection broke as that move went out; the table shows whether it counted"),
        "connecting": _("Connecting…"), "offlineRetry": _("Network down, reconnecting…"),
        "serverBusy": _("The server is busy, reconnecting…"),
        "refused_4401": _("Please sign in first."), "signIn": _("Sign in"),
        "refused_4403": _("You may not see this table."),
        "refused_4404": _("This table does not exist or has been dissolved."),
        "refused_4429": _("This table is open in too many pages: close the others, then reload this one."),
        "reload": _("Reload"),
        "error_rate_limited": _("Too many at once; wait a moment."), "error_no_vote": _("There is no dissolve vote to answer."),
        "error_no_table": _("This table does not exist or has been dissolved."),
        "error_illegal": _("That move is not allowed now."), "error_bad_message": _("The page sent a message the server did not understand."),
        "error_not_member": _("You are not a member of this club."),
        # Issue #46: what is happening, in words (discard hint, event lines, who is ready, away).
        "aCard": _("a card"),
        "cardSmall": _("small %(n)s"),
        "cardBig": _("big %(n)s"),
        "evDiscard": _("%(who)s discarded %(card)s"),
        "evChi": _("%(who)s chi %(card)s"),
        "evPeng": _("%(who)s peng %(card)s"),
        "evPao": _("%(who)s pao %(card)s"),
        "evTi": _("%(who)s ti %(card)s"),
        "evTiDeal": _("%(who)s ti %(card)s from the deal"),
        "evHu": _("%(who)s hu on %(card)s"),
        "evWei": _("%(who)s wei %(card)s"),
        "evChouWei": _("%(who)s chou wei %(card)s"),
        "evWeiHidden": _("%(who)s wei a hidden card"),
        "evNatural": _("%(who)s wins with the dealt hand"),
        "evHuang": _("Nobody won: the stock ran out (huang zhuang)"),
        "evEscape": _("%(who)s escaped"),
        "evTimeout": _("%(who)s timed out: a card was played for them"),
        "evTuoguanOn": _("%(who)s is on auto-play"),
        "evTuoguanOff": _("%(who)s left auto-play"),
        "evOnline": _("%(who)s is back"),
        "evOffline": _("%(who)s went offline"),
        "timedOut": _("Timed out, auto-played"),
        "discardHint": _("Tap a card to raise it, then tap it again or press Discard"),
        "raiseFirst": _("Tap a card to raise it first"),
        "seatReady": _("is ready"),
        "seatNotReady": _("not ready"),
        "allReady": _("Everyone is ready: the hand starts now"),
        "waitingReady": _("Waiting for %(names)s to get ready"), "youInLine": _("you"),
        "yourOptions": _("You may %(list)s"),
        "orList": _("%(some)s or %(last)s"),
        "backOnline": _("Reconnected"),
        "awayTitle": _("While you were away: "),
        "awayNothing": _("Reconnected: nothing changed meanwhile"),
        "awayNewHand": _("While you were away the table moved on to hand %(n)s"),
        "awayPlayedForMe": _("the system played %(cards)s for you"),
        "awayDiscards": _("%(who)s discarded %(cards)s"),
        # Issue #47: players on one network or close together (static/js/table/nearby.js; the
        # warning's sentences themselves: read/nearby.page_strings).
        "nearbyTitle": _("Same network / close together"),
        # Issue #47: 邀请 at a waiting table (static/js/table/invite.js).
        "invite": _("Invite"), "invited": _("Invited"), "inviteTitle": _("Invite club members who are online"),
        "inviteLoading": _("Loading…"), "inviteHelp": _("Each one you invite is told at once, on whatever page he is, and can join from there."),
        "inviteFailed": _("That did not work. Please try again."),
        "inviteNobody": _("No other member of the club is online right now."),
        "shareLocation": _("Share location"), "locationShared": _("Location shared"),
        "locationDenied": _("Location not available: allow it in the browser to share it."),
        "locationHelp": _("Only the distance class between seated players is kept, never your position."),
        # Issue #47: the public moves called out loud; the switch 语音 / 音效 / 静音 (static/js/table/speech.js).
        "soundVoice": pgettext("sound mode", "Voice"), "soundTones": pgettext("sound mode", "Tones"),
        "soundMute": pgettext("sound mode", "Mute"), "soundTitle": _("Sound: %(mode)s"), "soundMenu": _("Sound"),
        "soundNoVoice": _("No Chinese voice on this device: tones instead"),
        # Issue #46: every moment of a table says what is happening.
        "error_not_waiting": _("This table has already started."),
        "error_match_no_dissolve": _("A match table cannot be dissolved; it ends with its match round."),
        "dissolveAgreed": _("%(who)s agreed to dissolve"),
        "dissolveRefused": _("%(who)s refused to dissolve; the game goes on"),
        "dissolveTimedOut": _("Not everyone answered in time; the game goes on"),
        "dissolveNotPassed": _("The dissolve vote did not pass; the game goes on"),
        "dissolveDone": _("Everyone agreed: the table is dissolved"),
        "dissolvedByOwner": _("The table's creator dissolved it"),
        "dissolvedByAdmin": _("A club manager dissolved the table"),
        "dissolveWaitingFor": _("Waiting for %(n)s more"),
        "techDetails": _("Technical details"), "colon": pgettext("label colon", ": "),
        "close": _("Close"),
    }
