"""The standalone verifier of exported hands (format ``paohuzi-hand/1``, EXPORT.md beside this file).

``verify_document(doc)`` re-checks an export with nothing but the engine: no Django, no database.
It returns one check per hand and kind::

    {"hand": 3, "key": "commitment" | "deck" | "replay" | "chain" | "settlement" | "ledger",
     "ok": bool, "detail": "what was checked, or what differs"}

(A session export adds one ``{"hand": None, "key": "chain"}`` check for the table events between
hands and the end of the log.) ``BadDocument`` (a ValueError) means the file is not an export at
all: the CLI exits 2 for it, 1 for a failed check, 0 when every check holds.
"""

from __future__ import annotations

import json
from typing import Any

from ..actions import Action, IllegalAction
from ..play.hand import Hand
from ..rules import RuleError, RuleSet
from ..scoring.settlement import settle
from ..shuffle import parse_seed
from .chain import GENESIS_HASH, link_hash, seed_commitment
from .replay import first_difference, short, value_at

FORMAT = "paohuzi-hand/1"
SCOPES = ("hand", "session")
CHECK_KEYS = ("commitment", "deck", "replay", "chain", "settlement", "ledger")
ENDED = ("finished", "dissolved")
# Events the deck decides after the deal, before anyone acts (RULES.md §3.2, §3.8, §9.6).
DECK_EVENTS = ("reveal", "set_aside", "bottom_shown", "bottom_to_top")


class BadDocument(ValueError):
    """Not a ``paohuzi-hand/1`` document (wrong format, a missing or mistyped field)."""


# ---- shape ---------------------------------------------------------------------------------------

def _need(obj: Any, key: str, kind: type | tuple[type, ...], where: str, *, null: bool = False) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise BadDocument(f"{where}: missing {key!r}")
    value = obj[key]
    if value is None and null:
        return value
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int,))):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise BadDocument(f"{where}: {key!r} must be {names}")
    return value


def _check_events(events: Any, where: str) -> None:
    if not isinstance(events, list):
        raise BadDocument(f"{where}: 'events' must be a list")
    for i, ev in enumerate(events):
        at = f"{where} event {i}"
        if not isinstance(ev, dict):
            raise BadDocument(f"{at}: must be an object")
        _need(ev, "seq", int, at)
        _need(ev, "type", str, at)
        _need(ev, "prev_hash", str, at)
        _need(ev, "hash", str, at)
        if "payload" not in ev:
            raise BadDocument(f"{at}: missing 'payload'")


def check_shape(doc: Any) -> None:
    """Raise ``BadDocument`` unless ``doc`` has the shape of EXPORT.md (values are checked later)."""
    if not isinstance(doc, dict):
        raise BadDocument("an export is a JSON object")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise BadDocument(f"not a {FORMAT} document (format: {fmt!r})")
    if doc.get("scope") not in SCOPES:
        raise BadDocument(f"'scope' must be one of {', '.join(SCOPES)}")
    chain = _need(doc, "chain", dict, "document")
    for key in ("start_seq", "end_seq"):
        _need(chain, key, int, "chain")
    for key in ("start_hash", "end_hash"):
        _need(chain, key, str, "chain")
    hands = _need(doc, "hands", list, "document")
    if not hands:
        raise BadDocument("document: 'hands' is empty")
    if doc["scope"] == "hand" and len(hands) != 1:
        raise BadDocument("a hand export holds exactly one hand")
    _check_events(doc.get("other_events", []), "other_events")
    for i, hand in enumerate(hands):
        where = f"hand {i}"
        if not isinstance(hand, dict):
            raise BadDocument(f"{where}: must be an object")
        _need(hand, "number", int, where)
        where = f"hand {hand['number']}"
        status = _need(hand, "status", str, where)
        if status not in ENDED:
            raise BadDocument(f"{where}: only ended hands are exported (status {status!r})")
        _need(hand, "ruleset", dict, where)
        _need(hand, "dealer", int, where)
        _need(hand, "seed", str, where)
        _need(hand, "seed_hash", str, where)
        _need(hand, "base_score", int, where)
        _need(hand, "piao", dict, where)
        _need(hand, "result", dict, where, null=True)
        _need(hand, "totals", dict, where, null=True)
        _need(hand, "ledger", dict, where, null=True)
        _check_events(hand.get("events"), where)
        ledger = hand["ledger"]
        if ledger is not None:
            entries = _need(ledger, "entries", list, f"{where} ledger")
            for j, entry in enumerate(entries):
                at = f"{where} ledger entry {j}"
                _need(entry, "amount", int, at)
                _need(entry, "kind", str, at)
                _need(entry, "account", str, at)
                _need(entry, "seat", int, at, null=True)


# ---- the checks ----------------------------------------------------------------------------------

def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _check(number: int | None, key: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"hand": number, "key": key, "ok": bool(ok), "detail": detail}


def _first(events: list[dict], type_: str) -> dict | None:
    return next((e for e in events if e["type"] == type_), None)


def _payload(ev: dict | None) -> dict:
    return ev["payload"] if ev is not None and isinstance(ev.get("payload"), dict) else {}


def _difference(expected: Any, got: Any) -> str:
    path = first_difference(expected, got)
    at = f" at {path}" if path else ""
    return f"differs{at}: stored {short(value_at(expected, path))}, the engine gives {short(value_at(got, path))}"


def _seed_of(hand: dict) -> bytes | None:
    try:
        return parse_seed(hand["seed"])
    except ValueError:
        return None


def _commitment(hand: dict) -> dict:
    n, events = hand["number"], hand["events"]
    seed = _seed_of(hand)
    if seed is None:
        return _check(n, "commitment", False, f"the seed {hand['seed']!r} is not 64 hex digits")
    digest = seed_commitment(seed)
    if digest != hand["seed_hash"]:
        return _check(n, "commitment", False,
                      f"sha256(seed) is {digest}, the published commitment is {hand['seed_hash']}")
    start = _first(events, "hand.start")
    if start is None:
        return _check(n, "commitment", False, "no hand.start event publishes the commitment")
    if _payload(start).get("seed_hash") != digest:
        return _check(n, "commitment", False,
                      f"the hand.start event (seq {start['seq']}) published {_payload(start).get('seed_hash')}, "
                      f"sha256(seed) is {digest}")
    first_engine = _first(events, "engine")
    if first_engine is not None and first_engine["seq"] < start["seq"]:
        return _check(n, "commitment", False, "the commitment was published after the deal")
    end = _first(events, "hand.end") or _first(events, "hand.dissolve")
    if end is not None and _payload(end).get("seed") != hand["seed"]:
        return _check(n, "commitment", False,
                      f"the seed revealed by {end['type']} (seq {end['seq']}) is not the seed of the header")
    return _check(n, "commitment", True,
                  f"sha256(seed) = {digest}, the commitment published at seq {start['seq']} before the deal")


def _ruleset(hand: dict) -> RuleSet | str:
    try:
        return RuleSet.from_json(hand["ruleset"])
    except (RuleError, TypeError, ValueError) as exc:
        return f"the ruleset snapshot is not valid: {exc}"


def _deck(hand: dict, rules: RuleSet | str) -> dict:
    n, events = hand["number"], hand["events"]
    seed = _seed_of(hand)
    if seed is None or isinstance(rules, str):
        return _check(n, "deck", False, "cannot deal: " + (rules if isinstance(rules, str) else "no valid seed"))
    start = _payload(_first(events, "hand.start"))
    if "dealer" in start and start["dealer"] != hand["dealer"]:
        return _check(n, "deck", False, f"the header's dealer {hand['dealer']} is not hand.start's {start['dealer']}")
    try:
        dealt = Hand(rules, dealer=hand["dealer"], seed=seed)
    except ValueError as exc:
        return _check(n, "deck", False, f"cannot deal: {exc}")
    # The events the deck decides before anyone acts: the deal, then (room options, RULES.md §3.8,
    # §9.6) the set-aside count, the reveal card or the shown last stock card and its moves.
    want = _jsonable([e.to_wire() for e in dealt.events])
    n_deck = 1
    while n_deck < len(want) and want[n_deck]["type"] in DECK_EVENTS:
        n_deck += 1
    want = want[:n_deck]
    stored = [e for e in events if e["type"] == "engine"][:n_deck]
    if len(stored) < n_deck:
        return _check(n, "deck", False, "the log has no deal and reveal events" if n_deck == 2
                      else f"the log has fewer than the {n_deck} events of the deal")
    deal = stored[0]["payload"]
    if not isinstance(deal, dict) or deal.get("type") != "deal":
        return _check(n, "deck", False, f"the first engine event (seq {stored[0]['seq']}) is not the deal")
    hands = deal.get("hands") if isinstance(deal.get("hands"), dict) else {}
    for seat, cards in want[0]["hands"].items():
        if hands.get(seat) != cards:
            return _check(n, "deck", False,
                          f"seat {seat}'s dealt hand (seq {stored[0]['seq']}) is {short(hands.get(seat))}; "
                          f"the deck from the seed gives {short(cards)}")
    if set(hands) != set(want[0]["hands"]):
        return _check(n, "deck", False, f"the deal lists seats {sorted(hands)}, the deck deals {sorted(want[0]['hands'])}")
    for ev, expected in zip(stored[1:], want[1:], strict=True):
        have = ev["payload"]
        if have == expected:
            continue
        shown = have.get("card", have.get("cards")) if isinstance(have, dict) else have
        what = "the reveal card" if expected["type"] == "reveal" else f"the {expected['type']} event"
        return _check(n, "deck", False, f"{what} (seq {ev['seq']}) is {short(shown)}; "
                                        f"the deck from the seed gives {short(expected.get('card', expected.get('cards')))}")
    opened = [e["type"] for e in want[1:]]
    if opened == ["reveal"]:
        tail = f"and the reveal card {want[1]['card']}"
    else:
        tail = "and the events " + ", ".join(
            f"{e['type']} {e['card']}" if "card" in e else f"{e['type']} ({e['count']} cards)" for e in want[1:]
        )
    return _check(n, "deck", True,
                  f"the deck of RULES.md §11.7 from the seed deals the stored hands of {len(hands)} seats {tail}")


def _replay(hand: dict, rules: RuleSet | str) -> tuple[dict, Hand | None]:
    """The replay check, and the re-run hand (None when it could not run to the log's end)."""
    n, events = hand["number"], hand["events"]
    seed = _seed_of(hand)
    if seed is None or isinstance(rules, str):
        reason = rules if isinstance(rules, str) else "no valid seed"
        return _check(n, "replay", False, f"cannot re-run the hand: {reason}"), None
    try:
        engine = Hand(rules, dealer=hand["dealer"], seed=seed)
    except ValueError as exc:
        return _check(n, "replay", False, f"cannot deal: {exc}"), None
    produced = [(None, e) for e in engine.events]  # (table seq of the action that produced it, event)
    actions = 0
    for ev in events:
        if ev["type"] != "action":
            continue
        payload = ev["payload"]
        try:
            seat = payload["seat"]
            action = Action.from_wire(payload["action"])
        except (KeyError, TypeError, ValueError) as exc:
            return _check(n, "replay", False, f"the action at seq {ev['seq']} is not an action: {exc}"), None
        try:
            new = engine.apply(seat, action)
        except IllegalAction as exc:
            return _check(n, "replay", False,
                          f"the action at seq {ev['seq']} (seat {seat}: {short(payload['action'])}) is illegal: {exc}"), None
        produced.extend((ev["seq"], e) for e in new)
        actions += 1
    stored = [e for e in events if e["type"] == "engine"]
    got = _jsonable([e.to_wire() for _, e in produced])
    for i in range(max(len(stored), len(got))):
        have = stored[i]["payload"] if i < len(stored) else None
        new = got[i] if i < len(got) else None
        if have == new:
            continue
        if have is None:
            return _check(n, "replay", False,
                          f"the engine produces {len(got)} events, the log stores {len(stored)}: "
                          f"engine event {i + 1} ({new['type']}) is missing from the log"), engine
        if new is None:
            return _check(n, "replay", False,
                          f"the log stores {len(stored)} engine events, the replay produces {len(got)}: "
                          f"seq {stored[i]['seq']} ({short(have)}) has no counterpart"), engine
        return _check(n, "replay", False,
                      f"the engine event at seq {stored[i]['seq']} ({have.get('type') if isinstance(have, dict) else '?'}) "
                      f"{_difference(have, new)}"), engine
    return _check(n, "replay", True,
                  f"{actions} recorded actions re-run by the engine reproduce all {len(stored)} stored engine events"), engine


def _settlement(hand: dict, engine: Hand | None) -> dict:
    n, events, status = hand["number"], hand["events"], hand["status"]
    if engine is None:
        return _check(n, "settlement", False, "cannot check: the hand could not be re-run")
    start = _payload(_first(events, "hand.start"))
    stored_piao = {str(k): v for k, v in hand["piao"].items()}
    if "piao" in start and _jsonable(start["piao"]) != stored_piao:
        return _check(n, "settlement", False,
                      f"the header's piao {short(stored_piao)} is not hand.start's {short(start['piao'])}")
    if status == "dissolved":
        if engine.finished:
            return _check(n, "settlement", False, "the hand is marked dissolved but its actions play it to the end")
        if hand["result"] is not None or hand["totals"] is not None:
            return _check(n, "settlement", False, "a dissolved hand has a stored result or totals")
        if _first(events, "hand.dissolve") is None:
            return _check(n, "settlement", False, "no hand.dissolve event ends the hand")
        return _check(n, "settlement", True, "dissolved before its end: nothing to settle, and nothing is stored")
    if not engine.finished:
        return _check(n, "settlement", False, "the recorded actions do not play the hand to its end")
    result = _jsonable(engine.result)
    try:
        piao = {int(k): int(v or 0) for k, v in hand["piao"].items()}
        totals = _jsonable(settle(engine, base=hand["base_score"], piao=piao))
    except (TypeError, ValueError) as exc:
        return _check(n, "settlement", False, f"cannot settle: {exc}")
    end = _first(events, "hand.end")
    copies = [("the header", hand["result"], hand["totals"])]
    if end is not None:
        copies.append((f"hand.end (seq {end['seq']})", _payload(end).get("result"), _payload(end).get("totals")))
    else:
        return _check(n, "settlement", False, "no hand.end event records the result")
    for where, stored_result, stored_totals in copies:
        if stored_result != result:
            return _check(n, "settlement", False, f"the result in {where} {_difference(stored_result, result)}")
        if stored_totals != totals:
            return _check(n, "settlement", False, f"the totals in {where} {_difference(stored_totals, totals)}")
    winner = result.get("winner")
    what = "a draw (荒庄): all zero" if winner is None else f"seat {winner} wins, totals {short(totals['total'])}"
    return _check(n, "settlement", True, f"the replayed result and settlement equal the stored ones: {what}")


def _ledger(hand: dict) -> dict:
    n, ledger, status = hand["number"], hand["ledger"], hand["status"]
    if status == "dissolved":
        if ledger is None:
            return _check(n, "ledger", True, "dissolved: no hand:<id> transaction, as expected")
        return _check(n, "ledger", False, "a dissolved hand has a ledger transaction")
    if ledger is None:
        return _check(n, "ledger", False, "the finished hand has no hand:<id> ledger transaction (not settled)")
    entries = ledger["entries"]
    total = sum(e["amount"] for e in entries)
    if total != 0:
        return _check(n, "ledger", False, f"the entries sum to {total}, not zero")
    totals = hand["totals"] or {}
    if ledger.get("practice"):
        if entries:
            return _check(n, "ledger", False, f"a practice hand has {len(entries)} ledger entries")
        return _check(n, "ledger", True, "practice table: its transaction has no entries, as designed")
    seats = {str(s.get("seat")): s for s in hand.get("seats", []) if isinstance(s, dict)}
    by_seat: dict[str, dict[str, int]] = {}
    for e in entries:
        if e["kind"] in ("score", "piao"):
            seat = str(e["seat"])
            by_seat.setdefault(seat, {"score": 0, "piao": 0})[e["kind"]] += e["amount"]
            player = seats.get(seat, {})
            want = "club" if player.get("user_id") is None else "member"
            if e["account"] != want or (want == "member" and e.get("user_id") != player.get("user_id")):
                return _check(n, "ledger", False,
                              f"seat {seat}'s {e['kind']} line is on the {e['account']} account "
                              f"{e.get('user_id') or ''}, not its player's")
    for seat in sorted(set(by_seat) | set(totals.get("total") or {})):
        got = by_seat.get(seat, {"score": 0, "piao": 0})
        for part in ("score", "piao"):
            want = int((totals.get(part) or {}).get(seat, 0))
            if got[part] != want:
                return _check(n, "ledger", False,
                              f"seat {seat}'s {part} entries sum to {got[part]}, the hand's totals say {want}")
        want_total = int((totals.get("total") or {}).get(seat, 0))
        if got["score"] + got["piao"] != want_total:
            return _check(n, "ledger", False, f"seat {seat}: score + piao entries ≠ total {want_total}")
    fee = ledger.get("fee") or {}
    fees = [e for e in entries if e["kind"] == "fee"]
    per, payers = fee.get("per_seat", 0), [str(s) for s in fee.get("seats", [])]
    members = sorted(str(e["seat"]) for e in fees if e["account"] == "member")
    if sorted(payers) != members:
        return _check(n, "ledger", False, f"fee lines for seats {members}, the transaction says {sorted(payers)} pay")
    for e in fees:
        want = -per if e["account"] == "member" else per
        if e["amount"] != want:
            return _check(n, "ledger", False, f"a fee line of {e['amount']} for seat {e['seat']}, the fee is {per}")
    if sum(e["amount"] for e in fees) != 0:
        return _check(n, "ledger", False, "the fee lines do not balance (each payer's −fee and the club's +fee)")
    others = [e for e in entries if e["kind"] not in ("score", "piao", "fee")]
    if others:
        return _check(n, "ledger", False, f"unexpected {others[0]['kind']} lines in a hand settlement")
    fee_text = f"; fee {per} from seats {', '.join(payers)} to the club" if payers else ""
    return _check(n, "ledger", True,
                  f"{len(entries)} entries of {ledger.get('key', 'hand:<id>')} equal the totals per seat "
                  f"and sum to zero{fee_text}")


def _chain(doc: dict) -> list[dict]:
    """Per hand: do its events link (each hash from its payload, each prev_hash the previous hash)?"""
    chain = doc["chain"]
    out = []
    owner: dict[int, int | None] = {}
    merged = []
    for hand in doc["hands"]:
        for ev in hand["events"]:
            merged.append(ev)
            owner[id(ev)] = hand["number"]
    for ev in doc.get("other_events", []):
        merged.append(ev)
        owner[id(ev)] = None
    merged.sort(key=lambda e: e["seq"])
    problems: dict[int | None, list[str]] = {}
    if doc["scope"] == "session" and (chain["start_seq"] != 0 or chain["start_hash"] != GENESIS_HASH):
        problems.setdefault(None, []).append("a session export must start at the genesis hash (seq 0)")
    prev_seq, prev_hash = chain["start_seq"], chain["start_hash"]
    for ev in merged:
        where = owner[id(ev)]
        seq = ev["seq"]
        if seq == prev_seq:
            problems.setdefault(where, []).append(f"seq {seq} appears twice")
        elif seq < prev_seq:  # pragma: no cover - merged is sorted
            problems.setdefault(where, []).append(f"seq {seq} follows {prev_seq}: out of order")
        elif seq != prev_seq + 1:
            missing = f"seq {prev_seq + 1}" if seq == prev_seq + 2 else f"seqs {prev_seq + 1}–{seq - 1}"
            problems.setdefault(where, []).append(f"seq {seq} follows {prev_seq}: {missing} missing")
        if ev["prev_hash"] != prev_hash:
            problems.setdefault(where, []).append(
                f"seq {seq}: prev_hash does not match the previous event's hash (an event was removed, "
                "inserted or moved)")
        if ev["hash"] != link_hash(ev["prev_hash"], ev["payload"]):
            problems.setdefault(where, []).append(f"seq {seq}: hash does not match its payload (the payload was edited)")
        prev_seq, prev_hash = seq, ev["hash"]
    if (prev_seq, prev_hash) != (chain["end_seq"], chain["end_hash"]):
        last = merged[-1] if merged else None
        where = owner[id(last)] if last is not None else None
        problems.setdefault(where, []).append(
            f"the log continues from seq {chain['end_seq']} hash {chain['end_hash'][:12]}…, but the last event "
            f"here is seq {prev_seq} hash {prev_hash[:12]}… (events at the end are missing or changed)")
    for hand in doc["hands"]:
        found = problems.get(hand["number"], [])
        evs = hand["events"]
        if found:
            out.append(_check(hand["number"], "chain", False, "; ".join(found[:3])))
        elif evs:
            out.append(_check(hand["number"], "chain", True,
                              f"seq {evs[0]['seq']}–{evs[-1]['seq']}: every hash is sha256(prev_hash + "
                              "canonical_json(payload)) and links to the event before"))
        else:
            out.append(_check(hand["number"], "chain", False, "the hand has no events"))
    if doc["scope"] == "session" or None in problems:
        found = problems.get(None, [])
        detail = "; ".join(found[:3]) if found else (
            f"the table's log links from the genesis hash to seq {chain['end_seq']}, the table's last event")
        out.append(_check(None, "chain", not found, detail))
    return out


def verify_document(doc: Any, keys: tuple[str, ...] = CHECK_KEYS) -> list[dict[str, Any]]:
    """Every check of an export, in order (per hand: commitment, deck, replay, chain, settlement,
    ledger; ``keys`` keeps only some kinds). ``BadDocument`` when ``doc`` is not a ``paohuzi-hand/1``
    document."""
    check_shape(doc)
    chains = {c["hand"]: c for c in _chain(doc)} if "chain" in keys else {}
    out: list[dict[str, Any]] = []
    for hand in doc["hands"]:
        rules = _ruleset(hand)
        replay_check, engine = _replay(hand, rules) if {"replay", "settlement"} & set(keys) else (None, None)
        for key in CHECK_KEYS:
            if key not in keys:
                continue
            if key == "commitment":
                out.append(_commitment(hand))
            elif key == "deck":
                out.append(_deck(hand, rules))
            elif key == "replay":
                out.append(replay_check)
            elif key == "chain":
                out.append(chains[hand["number"]])
            elif key == "settlement":
                out.append(_settlement(hand, engine))
            else:
                out.append(_ledger(hand))
    if None in chains:
        out.append(chains[None])
    return out


def summary(checks: list[dict[str, Any]]) -> dict[str, Any]:
    """The CLI's verdict (ENGINE_CLI.md "verify"): ``ok``, per check kind ``{"ok", "failed_hands"}``,
    the first failure's kind and detail, and every check."""
    kinds: dict[str, dict[str, Any]] = {}
    for c in checks:
        k = kinds.setdefault(c["key"], {"ok": True, "failed_hands": []})
        if not c["ok"]:
            k["ok"] = False
            k["failed_hands"].append(c["hand"])
    failed = next((c for c in checks if not c["ok"]), None)
    out: dict[str, Any] = {"ok": failed is None, "checks": kinds}
    if failed is not None:
        out["failed"] = failed["key"]
        out["hand"] = failed["hand"]
        out["detail"] = failed["detail"]
    out["results"] = checks
    return out
