"""The live part of a match page, as one JSON payload: the match's state (in words), the
viewer's own entry (status, the buttons that apply now, his table), the standings. The page's
first render and its poll (``standings.json``) share it, so the page never shows what the poll
would not. A constant number of queries whatever the number of entrants or rounds
(tests/matches/test_views_authz.py, test_live.py).

Hidden information: only the viewer's own table is named for him (``me``); other players' tables
are linked only for those who may watch them (managers, staff).
"""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.ledgers import selectors as ledger_selectors

from . import formats, selectors, services
from .models import Entrant, EntrantStatus, Match, MatchState, MatchTable
from .services import clock
from .status import entrant_status, entrant_statuses, in_field, round_byes


def entry_options(*, match: Match, entry: Entrant | None, membership, balance: int | None, now) -> dict:
    """The buttons of the viewer's entry box (register, withdraw, check in) and why not: the verbs'
    own ``check_*`` answers."""
    options = {"register": False, "withdraw": False, "check_in": False, "why_not": "", "withdraw_note": ""}
    if match.is_ended:
        return options
    if membership is None:
        options["why_not"] = _("Only members of the club can enter.")
        return options
    if entry is None:
        refusal = services.check_register(match=match, entrant=None, balance=balance, now=now)
        options["register"] = refusal is None
        options["why_not"] = refusal or ""
        return options
    if services.check_withdraw(match=match, entrant=entry) is not None:
        if entry.status == EntrantStatus.WITHDRAWN and clock.registration_open(match, now):
            options["why_not"] = services.check_register(match=match, entrant=entry, balance=balance, now=now)
        return options
    options["withdraw"] = True
    options["withdraw_note"] = services.withdraw_note(match=match, entrant=entry, now=now)
    if entry.checked_in_at is None:
        refusal = services.check_check_in(match=match, entrant=entry, now=now)
        options["check_in"] = refusal is None
        if refusal and now < match.checkin_opens_at:
            options["why_not"] = refusal
    return options


def balance_of(match: Match, membership, user) -> int | None:
    """The viewer's points in the match's club when the match has a fee (None otherwise)."""
    if membership is None or not match.entry_fee:
        return None
    account = ledger_selectors.member_account(club=match.club, user=user)
    return account.balance if account else 0


def _table_urls(table_ids) -> dict[int, str]:
    template = reverse("tables:detail", args=[0])[:-2]  # "/tables/" without the id and the slash
    return {tid: f"{template}{tid}/" for tid in table_ids if tid}


def standings_payload(*, match: Match, user, can_watch: bool) -> dict:
    """The standings with each row's status (one vocabulary: status.py) and table, and ``me``."""
    rows = selectors.standings(match=match)
    numbers = dict(
        MatchTable.objects.filter(match=match, round__number=match.current_round).values_list("table_id", "number")
    ) if match.current_round else {}
    urls = _table_urls(numbers)
    statuses = entrant_statuses([r.entrant for r in rows], match)
    out_rows = []
    me = None
    my_table = next((r.current_table_id for r in rows if r.user_id == user.pk and r.state == "active"), None)
    for r in rows:
        table_id = r.current_table_id if r.state == "active" else None
        table = None
        if table_id:
            # Links only to tables the viewer may open: his own, or any for those who may watch.
            table = {"id": table_id, "number": numbers.get(table_id),
                     "url": urls.get(table_id) if (can_watch or table_id == my_table) else None}
        status = statuses[r.user_id]
        out_rows.append({
            "rank": r.rank, "user_id": r.user_id, "name": r.name, "match_points": r.match_points,
            "game_points": r.game_points, "best_hand": r.best_hand, "chips": r.chips,
            "state": r.state, "status": status.as_dict(), "prize": r.prize, "table": table,
        })
        if r.user_id == user.pk:
            me = {"state": r.state, "status": status.as_dict(), "table_id": table_id,
                  "table_number": numbers.get(table_id), "table_url": urls.get(table_id)}
    return {
        "match": match.pk,
        "state": match.state,
        "paused": match.paused,
        "round": match.current_round,
        "rounds": match.rounds if formats.of(match).knows_rounds else None,
        "in_final": match.in_final,
        "rows": out_rows,
        "me": me,
    }


def page_payload(*, match: Match, user, membership, can_watch: bool, now=None) -> dict:
    """Everything the live match page shows: ``standings_payload`` plus the state in words, the
    entrant count, and the viewer's entry (status with its reason, the buttons that apply)."""
    now = now or timezone.now()
    data = standings_payload(match=match, user=user, can_watch=can_watch)
    state = clock.due_state(match, now)
    entries = list(Entrant.objects.filter(match=match).only(
        "user_id", "status", "out_round", "absent_rounds", "rank", "checked_in_at", "registered_order",
        "match_id"))
    entry = next((e for e in entries if e.user_id == user.pk), None)
    balance = balance_of(match, membership, user)
    options = entry_options(match=match, entry=entry, membership=membership, balance=balance, now=now)
    data.update({
        "state": state,
        "state_label": str(dict(MatchState.choices)[state]),
        "entrants": sum(1 for e in entries if in_field(e, match)),
        "standings": match.state in (MatchState.RUNNING, MatchState.FINISHED),
        "options": options,
        "entry": None if entry is None else {
            # An active player's status is his standings row's (who sits the round out included).
            "status": data["me"]["status"] if entry.status == EntrantStatus.ACTIVE and data["me"]
            else entrant_status(entry, match, member=membership is not None).as_dict(),
            "checked_in": entry.checked_in_at is not None,
            "checked_in_at": timezone.localtime(entry.checked_in_at).strftime("%H:%M") if entry.checked_in_at else "",
        },
        "balance": balance,
    })
    return data


def my_table(*, match: Match, user) -> dict:
    """The viewer's own place in the match (two queries): the match's state and round, his status
    (轮空 or 等待下一轮 between his tables) and his table now (``None`` between rounds, after the last one, or if he is not playing). A
    spectator or a member not in the match gets no table: nobody learns another player's table."""
    entry = (Entrant.objects.filter(match=match, user=user)
             .only("user_id", "status", "out_round", "absent_rounds", "rank", "current_table_id", "match_id")
             .first())
    table = None
    if entry is not None and entry.current_table_id and entry.status == EntrantStatus.ACTIVE:
        number = (MatchTable.objects.filter(table_id=entry.current_table_id)
                  .values_list("number", flat=True).first())
        table = {"id": entry.current_table_id, "number": number,
                 "url": _table_urls([entry.current_table_id])[entry.current_table_id]}
    return {
        "match": match.pk,
        "state": match.state,
        "round": match.current_round,
        "url": reverse("matches:detail", args=[match.pk]),
        "table": table,
        # Between his tables: sitting the round out, or waiting for the next one (one more query).
        "status": entrant_status(entry, match, byes=round_byes(match) if table is None else None).as_dict()
        if entry else None,
    }
