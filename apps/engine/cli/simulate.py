"""Play whole seeded hands with the engine's bots, checking invariants (ENGINE_CLI.md "simulate").

Hand ``i`` of a run with seed ``S`` uses the 32-byte seed ``sha256(f"{S}:{i}")``; its bots draw from
``random.Random`` seeded with the same bytes, so the same ``S`` always plays the same hands.

``options`` (room options of RULES.md §3.8, §8.6, §9.6, or any other override) apply to every
configuration that accepts them; with ``escape_penalty`` on, before each action taken outside a
claim window (§8.6: no escape while one is open) a random active seat leaves the hand (``escape``) with probability ``ESCAPE_RATE`` — in simulate only: the bots of
bots never escape.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from ..actions import ESCAPE
from ..bots.choose import KINDS, bot_choose
from ..play.hand import Hand
from ..play.invariants import check, check_counts_fast
from ..rules import PRESET_PLAYERS, PRESETS, RuleError, RuleSet, resolve_ruleset

# A hand has at most a few hundred decisions; more means the engine is stuck in a loop.
MAX_STEPS = 2000
# With escape_penalty: the chance, before each action, that a random active seat escapes (§8.6).
ESCAPE_RATE = 0.005


def configurations(
    preset: str | None = None, players: int | None = None, options: dict[str, Any] | None = None
) -> list[RuleSet]:
    """Every (preset, player count) pair a run cycles through; 4 players use the preset's mode.

    With ``options``, only the pairs that accept them (the rest raise RuleError: ``remove_cards``
    is for 2 players, ``bottom_shown`` for 4 in ``sit_out``, …); ValueError when none does."""
    names = list(PRESETS) if preset in (None, "all") else [preset]
    out: list[RuleSet] = []
    errors: list[str] = []
    for name in names:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}")
        counts = PRESET_PLAYERS[name] if players is None else (players,)
        for n in counts:
            if not options:
                out.append(resolve_ruleset(name, {}, players=n))
                continue
            try:
                out.append(resolve_ruleset(name, options, players=n))
            except RuleError as exc:
                errors.append(f"{name} {n} players: {exc}")
    if not out:
        raise ValueError("no preset and player count accepts these options: " + "; ".join(errors[:3]))
    return out


def hand_seed(seed: object, index: int) -> bytes:
    """The 32-byte seed of hand ``index`` of a run."""
    return hashlib.sha256(f"{seed}:{index}".encode()).digest()


@dataclass
class HandOutcome:
    seed: bytes
    rules: RuleSet
    dealer: int
    events: int = 0
    winner: int | None = None
    win_by: str | None = None
    escape: int | None = None  # the seat that left (§8.6)
    error: str | None = None
    hand: Hand | None = field(default=None, repr=False)


def play_hand(
    rules: RuleSet,
    seed: bytes,
    dealer: int | None = None,
    bots: str = "random",
    check_invariants: bool = True,
    roundtrip_every: int = 0,
    roundtrip_at_end: bool = True,
) -> HandOutcome:
    """Play one hand to its end; any invariant violation or exception ends up in ``error``.

    The cheap checks (cards, counts) run after every action; the to_json/from_json round trip at
    the end of the hand (``roundtrip_at_end``) and every ``roundtrip_every`` actions (0: never).
    """
    rng = random.Random(seed)
    if dealer is None:
        dealer = _pick_dealer(rules, seed)
    outcome = HandOutcome(seed=seed, rules=rules, dealer=dealer)
    step = 0
    try:
        hand = Hand(rules, dealer=dealer, seed=seed)
        outcome.hand = hand
        if check_invariants:
            _raise_on(check(hand, roundtrip=False), "after the deal")
        while not hand.finished:
            step += 1
            if step > MAX_STEPS:
                raise RuntimeError(f"no end after {MAX_STEPS} actions")
            seats = hand.to_act()
            if not seats:
                raise RuntimeError("the hand is not finished but nobody is to act")
            if hand.escape_open() and rng.random() < ESCAPE_RATE:  # never in a claim window (§8.6)
                seat, action = rng.choice(hand.active_seats), ESCAPE
            else:
                seat = seats[0] if len(seats) == 1 else rng.choice(seats)
                action = bot_choose(hand, seat, kind=bots, rng=rng)
            hand.apply(seat, action)
            if check_invariants:
                deep = roundtrip_every and step % roundtrip_every == 0
                problems = check(hand, roundtrip=True) if deep else check_counts_fast(hand)
                _raise_on(problems, f"after action {step} ({seat}: {action.to_wire()})")
        if check_invariants:
            _raise_on(check(hand, roundtrip=roundtrip_at_end), "at the end of the hand")
        outcome.events = len(hand.events)
        result = hand.result or {}
        outcome.winner = result.get("winner")
        outcome.win_by = result.get("win_by")
        outcome.escape = result.get("escape")
    except Exception as exc:  # noqa: BLE001 - a crash is a finding to report, with its seed
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        outcome.error = f"{type(exc).__name__}: {exc}{where}"
        if outcome.hand is not None:
            outcome.events = len(outcome.hand.events)
    return outcome


def _write_record(directory: str, index: int, hand: Hand) -> None:
    from ..records.replay import record_of

    with open(os.path.join(directory, f"{index:05d}.json"), "w", encoding="utf-8") as fh:
        json.dump(record_of(hand), fh, ensure_ascii=False, separators=(",", ":"))
        fh.write("\n")


def _pick_dealer(rules: RuleSet, seed: bytes) -> int:
    return seed[0] % rules.players


def _raise_on(problems: list[str], when: str) -> None:
    if problems:
        raise AssertionError(f"invariant broken {when}: " + "; ".join(problems[:5]))


def simulate(
    preset: str | None = "all",
    hands: int = 100,
    seed: object = 0,
    bots: str = "random",
    players: int | None = None,
    check: bool = True,
    roundtrip_every: int = 0,
    roundtrip_hands: int = 1,
    options: dict[str, Any] | None = None,
    records: str | None = None,
) -> dict[str, Any]:
    """Play ``hands`` seeded hands, cycling through the configurations; the ENGINE_CLI result object.

    With ``check``, the cheap invariants run after every action of every hand, and the JSON round
    trip at the end of every ``roundtrip_hands``-th hand (1: all of them).

    Extra field ``failures``: up to 20 hands that crashed or broke an invariant, each with its seed.

    ``records``: a directory; each hand's record (``replay.record_of``, with its seed) is written to
    ``records/NNNNN.json`` (NNNNN the hand's index), so any hand can be replayed or reviewed offline.
    """
    if hands < 0:
        raise ValueError("hands must be >= 0")
    if roundtrip_hands < 0 or roundtrip_every < 0:
        raise ValueError("round trip intervals must be >= 0")
    if bots not in KINDS:
        raise ValueError(f"unknown bots {bots!r}")
    if records is not None:
        os.makedirs(records, exist_ok=True)
    configs = configurations(preset, players, options)
    totals = {"hands": 0, "wins": 0, "draws": 0, "invalid": 0, "events": 0}
    if options:
        totals["escapes"] = 0
    by_preset: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    start = time.perf_counter()
    for i in range(hands):
        rules = configs[i % len(configs)]
        seed_i = hand_seed(seed, i)
        out = play_hand(
            rules,
            seed_i,
            bots=bots,
            check_invariants=check,
            roundtrip_every=roundtrip_every,
            roundtrip_at_end=roundtrip_hands > 0 and i % roundtrip_hands == 0,
        )
        if records is not None and out.hand is not None:
            _write_record(records, i, out.hand)
        key = rules.preset
        row = by_preset.setdefault(
            key, {"hands": 0, "wins": 0, "draws": 0, "invalid": 0, "events": 0, "players": {}, "win_by": {}}
        )
        if options:
            row.setdefault("escapes", 0)
        row["players"][str(rules.players)] = row["players"].get(str(rules.players), 0) + 1
        for bucket in (totals, row):
            bucket["hands"] += 1
            bucket["events"] += out.events
            if out.error:
                bucket["invalid"] += 1
            elif out.escape is not None:
                bucket["escapes"] += 1
            elif out.winner is None:
                bucket["draws"] += 1
            else:
                bucket["wins"] += 1
        if out.error:
            if len(failures) < 20:
                failures.append(
                    {
                        "index": i,
                        "seed": seed_i.hex(),
                        "preset": rules.preset,
                        "players": rules.players,
                        "dealer": out.dealer,
                        "error": out.error,
                    }
                )
        elif out.win_by:
            row["win_by"][out.win_by] = row["win_by"].get(out.win_by, 0) + 1
    seconds = time.perf_counter() - start
    return {
        **totals,
        "seconds": round(seconds, 3),
        "hands_per_second": round(totals["hands"] / seconds, 1) if seconds > 0 else None,
        "by_preset": by_preset,
        "failures": failures,
    }
