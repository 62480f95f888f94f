"""One status vocabulary for entrants: every page that shows an entrant's status (list, card, my
matches, the match page, its live endpoint, the table page's "next table" panel) takes its words
here, so one state reads the same everywhere. (A match's state is its ``MatchState`` label — 报名中,
签到中, 进行中, 已结束 — and a round or a match table reads 进行中 / 已结束 with the same words.)

An entrant's shown status is derived from his stored one and the match's: a finished match's
players have 完赛 (with their place), not 比赛中; a player who never came to his table (托管
played for him) is 缺席 — still in the match after one such round, withdrawn after two; a player
who left the club during the match is 取消资格. While the match runs, a player sitting the round
out (a bye: the format says what it means for him) is 轮空, and one whose table has finished while
others still play is 等待下一轮 — so no page says "the next round starts by itself" once it has.
Each comes with the reason in a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from . import formats
from .models import Entrant, EntrantStatus, Match, MatchRound, MatchState


@dataclass(frozen=True)
class Status:
    key: str  # CSS class suffix and the key the live pages switch on
    label: str
    reason: str = ""

    def as_dict(self) -> dict:
        return {"key": self.key, "label": self.label, "reason": self.reason}


def _label(key: str) -> str:
    return {
        "registered": pgettext("entrant status", "Registered"),
        "waitlisted": pgettext("entrant status", "Waitlisted"),
        "checked_in": pgettext("entrant status", "Checked in"),
        "playing": pgettext("entrant status", "Playing"),
        "bye": pgettext("entrant status", "Bye"),
        "waiting": pgettext("entrant status", "Waiting for the next round"),
        "absent": pgettext("entrant status", "Absent"),
        "done": pgettext("entrant status", "Finished"),
        "out": pgettext("entrant status", "Out"),
        "withdrawn": pgettext("entrant status", "Withdrawn"),
        "disqualified": pgettext("entrant status", "Disqualified"),
        "dropped": pgettext("entrant status", "Not checked in"),
        "cancelled": pgettext("entrant status", "Match cancelled"),
    }[key]


def round_byes(match: Match) -> frozenset[int]:
    """Who sits the running match's current round out (one query; none when it does not run)."""
    if match.state != MatchState.RUNNING or not match.current_round:
        return frozenset()
    byes = MatchRound.objects.filter(match=match, number=match.current_round).values_list("byes", flat=True).first()
    return frozenset(byes or ())


def entrant_status(entrant: Entrant, match: Match, *, member: bool = True,
                   byes: frozenset[int] | None = None) -> Status:
    """The status shown for ``entrant`` of ``match``; ``member``: he is still in the club;
    ``byes``: who sits the current round out (``round_byes``; None: not told apart from playing)."""
    s = entrant.status
    if s == EntrantStatus.REGISTERED:
        return Status("registered", _label("registered"), _("Check in when check-in opens to get a seat."))
    if s == EntrantStatus.WAITLISTED:
        return Status("waitlisted", _label("waitlisted"),
                      _("You are on the waitlist: you get a place, in order of registration, when someone withdraws."))
    if s == EntrantStatus.CHECKED_IN:
        return Status("checked_in", _label("checked_in"))  # the page says when he checked in and what follows
    if s == EntrantStatus.DROPPED:
        return Status("dropped", _label("dropped"), _("Not checked in at the start: the entry fee was refunded."))
    if s == EntrantStatus.CANCELLED or match.state == MatchState.CANCELLED:
        return Status("cancelled", _label("cancelled"), _("The match was cancelled: the entry fee was refunded."))
    if s == EntrantStatus.OUT:
        return Status("out", _label("out"), _("Out after round %(n)s.") % {"n": entrant.out_round or 1})
    if s == EntrantStatus.WITHDRAWN:
        if entrant.out_round is None:
            return Status("withdrawn", _label("withdrawn"), _("Withdrew before the start."))
        if not member:
            return Status("disqualified", _label("disqualified"),
                          _("Left the club during round %(n)s: no longer seated.") % {"n": entrant.out_round})
        if entrant.absent_rounds >= 2:
            return Status("absent", _label("absent"),
                          _("Never came to his table for %(n)s rounds in a row (auto-play played for him): "
                            "withdrawn in round %(r)s.") % {"n": entrant.absent_rounds, "r": entrant.out_round})
        return Status("withdrawn", _label("withdrawn"), _("Withdrew in round %(n)s.") % {"n": entrant.out_round})
    # ACTIVE
    if match.state == MatchState.FINISHED:
        if entrant.rank:
            return Status("done", _label("done"), _("Finished in place %(n)s.") % {"n": entrant.rank})
        return Status("done", _label("done"))
    between = byes is not None and match.state == MatchState.RUNNING and not entrant.current_table_id
    if between and entrant.user_id in byes:
        return Status("bye", _label("bye"), formats.of(match).bye_note(_))
    if entrant.absent_rounds:
        return Status("absent", _label("absent"),
                      _("Did not come to his table last round: auto-play played for him. Absent two rounds in a row "
                        "withdraws him."))
    if between:
        if match.in_final or (formats.of(match).knows_rounds and match.current_round >= match.rounds):
            return Status("waiting", _label("waiting"),
                          _("Table finished: the final standings come when every table of this round has finished."))
        return Status("waiting", _label("waiting"),
                      _("Table finished: the next round starts by itself when every table of this round has finished."))
    return Status("playing", _label("playing"))


def entrant_statuses(entrants: list[Entrant], match: Match) -> dict[int, Status]:
    """``entrant_status`` of each entrant by user id (two queries: who is still in the club, who
    sits the round out)."""
    from apps.clubs.models import Membership

    gone = [e.user_id for e in entrants if e.status == EntrantStatus.WITHDRAWN and e.out_round is not None]
    members = set(Membership.objects.filter(club_id=match.club_id, user_id__in=gone)
                  .values_list("user_id", flat=True)) if gone else set()
    byes = round_byes(match)
    return {e.user_id: entrant_status(e, match, member=e.user_id in members or e.user_id not in gone, byes=byes)
            for e in entrants}


def in_field(entrant: Entrant, match: Match) -> bool:
    """Counted among the match's entrants: holding a place before the start, playing after it —
    and, once started, everyone who took part (out, absent or withdrawn while in are listed too)."""
    if match.started_at is None:
        return entrant.status in (EntrantStatus.REGISTERED, EntrantStatus.CHECKED_IN)
    return entrant.status in (EntrantStatus.ACTIVE, EntrantStatus.OUT) or (
        entrant.status == EntrantStatus.WITHDRAWN and entrant.out_round is not None)
