"""The verification checklist of an ended hand, shown on its replay page and run by ``verify_hands``.

``checklist(hand)`` is the engine's standalone verifier (``apps.engine.records.verifier.verify_document``) run
on the hand's export as built from the database (``export.hand_document``) — so the page says
exactly what ``python -m apps.engine verify`` says of the downloaded file — plus the database
facts a document cannot show:

- the chain's anchors: the event before the hand's first one really has the hash the hand links
  to (or the hand starts the log at the genesis hash), and the table row's ``seq``/``last_hash``
  point at the log's last event (an event removed before or after the hand breaks them);
- a finished hand without its ``hand:<id>`` ledger transaction is "not settled"; the fee lines go
  to the seats the fee rule names (``clubs.fees.fee_seats``);
- the hand row's saved engine state holds the same actions and events as the log (``snapshot``).

A dissolved hand (ended before its end by a vote or an admin) shows the commitment, deck, replay
and chain checks of the moves it had; its settlement check says "nothing to settle" and its ledger
check that no transaction exists (both green when that is so).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.clubs.fees import fee_seats
from apps.engine.records.chain import GENESIS_HASH
from apps.engine.records.verifier import BadDocument, verify_document
from apps.engine.rules import RuleSet
from apps.tables.models import Hand, HandStatus, Table
from apps.tables.storage.eventlog import TableLog
from apps.tables.storage.records import ENDED

from .export import hand_document, session_document

LABELS = {
    "ended": _("The hand has ended (only ended hands are verified)"),
    "document": _("The hand's records form a valid export"),
    "commitment": _("The commitment published before the deal equals sha256(seed)"),
    "deck": _("The deck re-derived from the seed gives the dealt hands"),
    "replay": _("The engine re-runs every recorded action and reproduces every stored event"),
    "chain": _("The hash chain of the table's log is intact"),
    "settlement": _("The replayed result and settlement equal the stored ones"),
    "ledger": _("The ledger's hand entries equal the settlement and sum to zero"),
    "snapshot": _("The hand's saved state matches its event log"),
}

# What each check means for a player, in plain words (the label says what was compared; the
# engine's own ``detail`` is technical and shown only under the page's 技术细节 disclosure).
EXPLAIN = {
    "ended": _("Only a hand that is over can be checked from start to end."),
    "document": _("Everything the site recorded about this hand is complete and readable."),
    "commitment": _("Before the cards were dealt, the site published a fingerprint of the shuffle. The shuffle "
                    "revealed after the hand has exactly that fingerprint, so it was fixed before anyone "
                    "played and could not be changed afterwards."),
    "deck": _("Shuffling again with the revealed shuffle gives exactly the cards each player was dealt."),
    "replay": _("Playing every recorded move again by the rules gives the same game, move by move: no move "
                "was added, dropped or changed."),
    "chain": _("Each record of the table is linked to the one before it, so none can be removed or changed "
               "without breaking the links."),
    "settlement": _("Counting the result again (胡息, 名堂, points) gives what was announced at the end of the "
                    "hand."),
    "ledger": _("The points booked in the club's ledger are exactly those of the settlement, and what some "
                "won the others paid."),
    "snapshot": _("The state the table saved agrees with its records."),
}


@dataclass(frozen=True)
class Check:
    key: str
    label: Any  # a lazy translation
    ok: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": str(self.label), "explain": str(EXPLAIN.get(self.key, "")), "ok": self.ok,
                "detail": self.detail}


def _check(key: str, ok: bool, detail: str) -> Check:
    return Check(key, LABELS[key], bool(ok), detail)


def checklist(hand: Hand) -> list[Check]:
    """Every check of one ended hand, in order; a hand in play gets one red ``ended`` check."""
    if hand.status not in ENDED:
        return [_check("ended", False, "the hand is still being played: nothing is verified or shown")]
    log = TableLog(hand.table_id)  # one reader for the export and the anchors (an archive decoded once)
    try:
        doc = hand_document(hand, log=log)
        found = verify_document(doc)
    except (BadDocument, ValueError, KeyError, TypeError) as exc:
        return [_check("document", False, f"the hand's rows do not make an export: {exc}")]
    return checks_of(hand, doc, found, log=log)


def session_checklists(table: Table, hands: list[Hand]) -> tuple[dict[int, list[Check]], list[Check]]:
    """The checklists of several ended hands of one table from ONE session export (what
    ``verify_hands`` runs: a few queries per table, not per hand). Returns ``({hand id: checks},
    table-level checks)``; the latter holds the chain of the events between hands, if broken."""
    ended_ids = list(Hand.objects.filter(table=table, status__in=ENDED).order_by("number").values_list("pk", flat=True))
    given = sorted(hands, key=lambda h: h.number)
    log = TableLog(table.pk)
    try:  # the caller's rows when they are the table's ended hands (verify_hands), else loaded
        doc = session_document(table, given if [h.pk for h in given] == ended_ids else None, log=log)
        found = verify_document(doc)
    except (BadDocument, ValueError, KeyError, TypeError) as exc:
        bad = [_check("document", False, f"the table's rows do not make an export: {exc}")]
        return {h.pk: bad for h in hands}, []
    parts = {p["id"]: p for p in doc["hands"]}
    anchor = anchor_problem(table.pk, doc["chain"], log=log)  # one table, one log: checked once
    out = {}
    for hand in hands:
        part = parts.get(hand.pk)
        if part is None:
            out[hand.pk] = [_check("ended", False, "the hand is still being played")]
            continue
        own = [c for c in found if c["hand"] == part["number"]]
        out[hand.pk] = checks_of(hand, {**doc, "hands": [part]}, own, anchor=anchor)
    table_level = [_check("chain", False, f"between hands: {c['detail']}") for c in found
                   if c["hand"] is None and not c["ok"]]
    return out, table_level


def checks_of(hand: Hand, doc: dict, found: list[dict], *, anchor: str | None | bool = False,
              log: TableLog | None = None) -> list[Check]:
    """The engine's checks of ``doc`` (an export whose one hand is ``hand``) with the database facts
    (``anchor``: the ``anchor_problem`` of ``doc``'s chain if already known; ``log``: the table's
    reader, if the caller has one)."""
    out = []
    finished = hand.status == HandStatus.FINISHED
    for c in found:
        ok, detail = c["ok"], c["detail"]
        if c["key"] == "chain" and ok:
            problem = anchor_problem(hand.table_id, doc["chain"], log=log) if anchor is False else anchor
            if problem:
                ok, detail = False, problem
        if c["key"] == "ledger" and finished:
            if doc["hands"][0]["ledger"] is None:
                detail = f"not settled: no hand:{hand.pk} transaction in the ledger"
            elif ok:
                problem = fee_problem(hand, doc)
                if problem:
                    ok, detail = False, problem
        out.append(_check(c["key"], ok, detail))
    out.append(_check("snapshot", *snapshot_state(hand, doc)))
    return out


def anchor_problem(table_id: int, chain: dict, *, log: TableLog | None = None) -> str | None:
    """Why the document's chain is not anchored in the stored log (its rows, or the archive of a
    compacted table), or None."""
    start_seq, start_hash = chain["start_seq"], chain["start_hash"]
    log = log or TableLog(table_id)
    if start_seq == 0:
        if start_hash != GENESIS_HASH:
            return "the table's first event does not link to the genesis hash"
    else:
        event = log.at(start_seq)
        before = event.hash if event else None
        if before is None:
            return f"seq {start_seq}, the event before this hand, is missing from the log"
        if before != start_hash:
            return f"the hand links to a hash that is not the one of seq {start_seq} before it"
    seq, last_hash = Table.objects.filter(pk=table_id).values_list("seq", "last_hash").get()
    event = log.at(seq) if seq else None
    last = event.hash if event else None
    if seq and last != last_hash:
        return (f"the table row says its log ends at seq {seq}, but that event is "
                f"{'missing' if last is None else 'not the one it names'}: events at the end were removed or changed")
    return None


def fee_problem(hand: Hand, doc: dict) -> str | None:
    """Do the fee lines go to the seats the table's fee rule names? (None when they do.)"""
    part = doc["hands"][0]
    ledger, table = part["ledger"], doc["table"]
    if ledger is None or table["practice"]:
        return None
    active = set(RuleSet.from_json(hand.ruleset).active_seats(hand.dealer))  # the engine's rule (§2)
    seat_users = {int(k): v for k, v in (hand.players or {}).items()}
    playing = sorted(s for s in seat_users if s in active)
    winner = (hand.result or {}).get("winner")
    want = fee_seats(fee=int(table["fee"]), payer=table["fee_payer"], playing=playing, winner=winner,
                     seat_users=seat_users)
    got = sorted((ledger.get("fee") or {}).get("seats", []))
    per = (ledger.get("fee") or {}).get("per_seat", 0)
    if got != sorted(want) or (want and per != int(table["fee"])):
        return f"the fee was charged to seats {got} ({per} each); the table's fee rule names {sorted(want)} ({table['fee']} each)"
    return None


def snapshot_state(hand: Hand, doc: dict) -> tuple[bool, str]:
    """Compare the hand row's saved engine state with the log of the document."""
    state = hand.state or {}
    events = doc["hands"][0]["events"]
    logged_actions = [{"seat": e["payload"]["seat"], "action": e["payload"]["action"]}
                      for e in events if e["type"] == "action"]
    logged_events = [e["payload"] for e in events if e["type"] == "engine"]
    saved_events = [{k: v for k, v in e.items() if k != "_secret"} for e in state.get("events") or []]
    if json.loads(json.dumps(state.get("actions") or [])) != logged_actions:
        return False, (f"the saved state holds {len(state.get('actions') or [])} actions, "
                       f"the log {len(logged_actions)}, or they differ")
    if json.loads(json.dumps(saved_events)) != logged_events:
        return False, "the saved state's events differ from the logged engine events"
    if state.get("seed") != hand.seed or state.get("dealer") != hand.dealer:
        return False, "the saved state's seed or dealer differs from the hand's"
    return True, f"{len(logged_actions)} actions and {len(logged_events)} events, as in the log"
