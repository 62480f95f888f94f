"""Hand records: re-run one (``replay``) and build one (``record_of``), ENGINE_CLI.md "replay".

A record is the document the platform exports for a hand: preset, options, players, dealer, the
seed (64 hex digits) or the dealt deck (80 cards), the players' choices (forced actions are never
in it) and, optionally, the events and the result to check.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..actions import Action, IllegalAction
from ..cards import DECK_SIZE, card_name, counts_of, parse_card
from ..play.hand import Hand
from ..rules import RuleError, overrides_of, resolve_ruleset
from ..shuffle import parse_seed


class ReplayMismatch(ValueError):
    """The re-run hand differs from the record at event ``index`` (or in its result)."""

    def __init__(self, index: int | None, expected: Any, got: Any, what: str = "event") -> None:
        self.index, self.expected, self.got, self.what = index, expected, got, what
        where = f"event {index}" if what == "event" else what
        path = first_difference(expected, got)
        at = f" at {path}" if path else ""
        super().__init__(
            f"{where} differs{at}: record has {short(value_at(expected, path))}, replay gives {short(value_at(got, path))}"
        )

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "index": self.index, "expected": self.expected, "got": self.got,
                "message": str(self)}


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """The path of the first place where two JSON values differ ("" when the roots differ)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key, _MISSING) != b.get(key, _MISSING):
                if key not in a or key not in b:
                    return f"{path}.{key}"
                return first_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return path


_MISSING = object()


def value_at(obj: Any, path: str) -> Any:
    """The value at a path made by ``first_difference`` (or the missing marker's text)."""
    for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path):
        if index:
            obj = obj[int(index)]
        elif isinstance(obj, dict) and key in obj:
            obj = obj[key]
        elif isinstance(obj, dict) and key.lstrip("-").isdigit() and int(key) in obj:
            obj = obj[int(key)]
        else:
            return "(missing)"
    return obj


def short(obj: Any) -> str:
    text = json.dumps(obj, ensure_ascii=False, sort_keys=True)
    return text if len(text) < 300 else text[:297] + "..."


def _require(record: dict, key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in record:
        raise ValueError(f"record: missing {key!r}")
    value = record[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise ValueError(f"record: {key!r} has the wrong type")
    return value


def hand_of(record: Any) -> Hand:
    """The dealt hand of a record (before any action); ValueError for a malformed header."""
    if not isinstance(record, dict):
        raise ValueError("record: expected a JSON object")
    preset = _require(record, "preset", str)
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError("record: 'options' must be an object")
    players = _require(record, "players", int)
    dealer = _require(record, "dealer", int)
    try:
        rules = resolve_ruleset(preset, options, players=players)
    except RuleError as exc:
        raise ValueError(f"record: {exc}") from exc
    if not 0 <= dealer < rules.players:
        raise ValueError(f"record: dealer {dealer} is not a seat")
    if "deck" in record and record["deck"] is not None:
        deck = record["deck"]
        if not isinstance(deck, list) or len(deck) != DECK_SIZE:
            raise ValueError(f"record: 'deck' must list {DECK_SIZE} cards")
        ints = [parse_card(c) for c in deck]
        if any(n != 4 for n in counts_of(ints)):
            raise ValueError("record: 'deck' must hold each card exactly 4 times")
        return Hand(rules, dealer=dealer, deck=ints)
    seed = _require(record, "seed", str)
    return Hand(rules, dealer=dealer, seed=parse_seed(seed))


def parse_actions(record: dict) -> list[tuple[int, Action]]:
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise ValueError("record: 'actions' must be a list")
    out = []
    for i, item in enumerate(actions):
        if not isinstance(item, dict) or "seat" not in item or "action" not in item:
            raise ValueError(f"record: action {i} must be {{'seat': n, 'action': {{...}}}}")
        seat = item["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ValueError(f"record: action {i} has a bad seat")
        try:
            out.append((seat, Action.from_wire(item["action"])))
        except ValueError as exc:
            raise ValueError(f"record: action {i}: {exc}") from exc
    return out


def replay(record: Any, check_events: bool = True) -> Hand:
    """Re-run a record's actions and return the hand.

    Raises ``ValueError`` for a malformed record, ``IllegalAction`` (with ``.index``) for an
    illegal action and, when the record has ``events`` (and ``check_events``), ``ReplayMismatch``
    naming the first event that differs (or the result).
    """
    hand = hand_of(record)
    for i, (seat, action) in enumerate(parse_actions(record)):
        try:
            hand.apply(seat, action)
        except IllegalAction as exc:
            err = IllegalAction(f"action {i} ({seat}: {action.to_wire()}): {exc}")
            err.index = i  # type: ignore[attr-defined]
            raise err from exc
    if check_events and record.get("events") is not None:
        if not isinstance(record["events"], list):
            raise ValueError("record: 'events' must be a list")
        expected = _jsonable(record["events"])
        got = _jsonable([ev.to_wire() for ev in hand.events])
        for i in range(max(len(expected), len(got))):
            exp = expected[i] if i < len(expected) else None
            new = got[i] if i < len(got) else None
            if exp != new:
                raise ReplayMismatch(i, exp, new)
        if "result" in record and _jsonable(record["result"]) != _jsonable(hand.result):
            raise ReplayMismatch(None, record["result"], _jsonable(hand.result), what="result")
    return hand


def _jsonable(obj: Any) -> Any:
    """The value as it reads back from a JSON file (int dict keys become strings)."""
    return json.loads(json.dumps(obj))


def legal_wire(hand: Hand, seat: int) -> list[dict]:
    return [a.to_wire() for a in hand.legal_actions(seat)]


def record_of(hand: Hand) -> dict[str, Any]:
    """The hand record of a finished or running hand (JSON-able): header, actions, events, result."""
    rules = hand.rs
    # the preset's overrides; a player-count default the hand did without (luzhou 4 players without
    # bottom_shown, RULES.md §3.8) is written out, so the record resolves to the hand's rules
    options = overrides_of(rules)
    record: dict[str, Any] = {
        "preset": rules.preset,
        "options": options,
        "players": rules.players,
        "dealer": hand.dealer,
    }
    if hand.seed is not None:
        record["seed"] = bytes(hand.seed).hex()
    else:
        record["deck"] = [card_name(c) for c in hand.deck]
    record["actions"] = [{"seat": seat, "action": action.to_wire()} for seat, action in hand.actions]
    record["events"] = _jsonable([ev.to_wire() for ev in hand.events])
    record["result"] = _jsonable(hand.result)
    return record
