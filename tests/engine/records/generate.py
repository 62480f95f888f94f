"""Regenerate the recorded hands of this folder: ``python -m tests.engine.records.generate``.

Each record is a seeded greedy-bot game found by searching hand seeds ``sha256("records:<i>")`` for
the first hand that matches a wanted situation; the files are what ``record_of`` exports, and the
replay tests check that the engine still reproduces every event. Regenerate only on purpose (a
deliberate rule change), and say why in the commit.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from apps.engine.actions import Action
from apps.engine.bots.choose import bot_choose
from apps.engine.cards import card_name
from apps.engine.cli.simulate import hand_seed
from apps.engine.play.hand import Hand
from apps.engine.records.replay import record_of
from apps.engine.rules import resolve_ruleset
from apps.engine.shuffle import deck_from_seed

HERE = Path(__file__).parent


def play(preset: str, players: int, index: int, bots: str = "greedy", options: dict | None = None) -> Hand:
    """A greedy game; with ``escape_penalty`` the last active seat leaves after 12 actions, at the first
    moment no claim window is open (§8.6: ``escape`` is legal only then)."""
    seed = hand_seed("records", index)
    hand = Hand(resolve_ruleset(preset, options or {}, players=players), dealer=index % players, seed=seed)
    rng = random.Random(seed)
    while not hand.finished:
        seat = hand.to_act()[0]
        if hand.rs.escape_penalty and len(hand.actions) >= 12 and hand.escape_open():
            hand.apply(hand.active_seats[-1], Action.from_wire({"type": "escape"}))
            break
        hand.apply(seat, bot_choose(hand, seat, bots, rng))
    return hand


def _types(hand: Hand) -> set[str]:
    return {e.type for e in hand.events}


def _win_by(kind: str) -> Callable[[Hand], bool]:
    return lambda h: (h.result or {}).get("win_by") == kind


WANTED: list[tuple[str, str, int, Callable[[Hand], bool]]] = [
    ("full_3p_self_draw", "full", 3, lambda h: _win_by("self_draw")(h) and "chi" in _types(h)),
    ("full_3p_other_draw_pao", "full", 3, lambda h: _win_by("other_draw")(h) and "pao" in _types(h)),
    ("basic_3p_huang", "basic", 3, lambda h: h.result["winner"] is None and "peng" in _types(h)),
    ("half_3p_wei", "half", 3, lambda h: h.result["winner"] is not None and "wei" in _types(h)),
    ("changsha_3p_win", "changsha", 3, lambda h: h.result["winner"] is not None and "wei" in _types(h)),
    ("quanmin_3p_win", "quanmin", 3, lambda h: h.result["winner"] is not None),
    ("chenzhou_3p_discard_win", "chenzhou", 3, _win_by("discard")),
    ("chenzhou_2p_win", "chenzhou", 2, lambda h: h.result["winner"] is not None),
    ("chenzhou_4p_deal_all", "chenzhou", 4, lambda h: h.result["winner"] is not None),
    ("luzhou_4p_sit_out", "luzhou", 4, lambda h: h.result["winner"] is not None),
    ("luzhou_2p_win", "luzhou", 2, lambda h: h.result["winner"] is not None),
]

# Records of the room options (RULES.md §3.8, §8.6, §9.6): (name, preset, players, options, wanted).
WANTED_OPTIONS: list[tuple[str, str, int, dict, Callable[[Hand], bool]]] = [
    ("luzhou_4p_bottom_shown", "luzhou", 4, {},
     lambda h: "bottom_to_top" in _types(h) and (h.result or {}).get("winner") is not None),
    ("luzhou_2p_remove_cards_huang", "luzhou", 2, {"remove_cards": 20}, lambda h: "huang" in _types(h)),
    ("chenzhou_2p_remove_cards_win", "chenzhou", 2, {"remove_cards": 20},
     lambda h: (h.result or {}).get("winner") is not None),
    ("full_3p_escape", "full", 3, {"escape_penalty": True}, lambda h: "escape" in _types(h)),
    ("full_3p_score_cap", "full", 3, {"score_cap": 2, "qi_hu": 18, "forced_win": True},
     lambda h: "cap" in ((h.result or {}).get("settlement") or {})),
]


def find(
    preset: str, players: int, wanted: Callable[[Hand], bool], limit: int = 3000, options: dict | None = None
) -> Hand:
    for index in range(limit):
        hand = play(preset, players, index, options=options)
        if wanted(hand):
            return hand
    raise LookupError(f"no hand of {preset}/{players} matched in {limit} seeds")


def main() -> None:
    for old in HERE.glob("*.json"):
        old.unlink()
    for name, preset, players, wanted in WANTED:
        # luzhou_4p_sit_out was recorded before §3.8 made bottom_shown luzhou's 4-player default
        options = {"bottom_shown": False} if name == "luzhou_4p_sit_out" else {}
        record = record_of(find(preset, players, wanted, options=options))
        (HERE / f"{name}.json").write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        print(name, record["result"] and record["result"].get("win_by"), len(record["events"]), "events")
    for name, preset, players, options, wanted in WANTED_OPTIONS:
        record = record_of(find(preset, players, wanted, options=options))
        (HERE / f"{name}.json").write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        print(name, sorted(record["options"]), len(record["events"]), "events")
    # One record that gives the dealt deck instead of the seed (audits of physical games).
    record = record_of(find("full", 3, _win_by("other_draw")))
    record = {**record, "deck": [card_name(c) for c in deck_from_seed(bytes.fromhex(record.pop("seed")))]}
    hand = Hand(resolve_ruleset("full", {}, players=3), dealer=record["dealer"], deck=record["deck"])
    for item in record["actions"]:
        hand.apply(item["seat"], Action.from_wire(item["action"]))
    (HERE / "full_3p_deck.json").write_text(json.dumps(record_of(hand), ensure_ascii=False, indent=1) + "\n")
    print("full_3p_deck", len(record["events"]), "events")


if __name__ == "__main__":
    main()
