"""RULES.md §3.8: 底牌明示 (bottom_shown)."""

from __future__ import annotations

import random

import pytest

from apps.engine.actions import Action
from apps.engine.cards import RED, card_name, parse_card
from apps.engine.cli.simulate import hand_seed
from apps.engine.groups import Group
from apps.engine.play.events import AUDIT
from apps.engine.play.hand import Hand
from apps.engine.play.invariants import check
from apps.engine.play.observer import build_view
from apps.engine.rules import PRESETS, RuleError, resolve_ruleset
from apps.engine.scoring import can_win
from apps.engine.shuffle import deck_from_seed
from tests.engine.hand_support import act, make_deck, pass_all, types_of, wires
from tests.engine.rules.support import WINS_ON_S6, last_card_hand, luzhou4, to_stock_end


def test_s3_8_allowed_only_with_4_players_in_sit_out():
    """§3.8: "Allowed only with 4 players in sit_out"."""
    for preset, players, options in (("luzhou", 3, {}), ("luzhou", 2, {}), ("chenzhou", 4, {}),
                                     ("luzhou", 4, {"four_player_mode": "deal_all"}), ("full", 3, {})):
        with pytest.raises(RuleError, match="^bottom_shown:"):
            resolve_ruleset(preset, {**options, "bottom_shown": True}, players=players)
    assert resolve_ruleset("chenzhou", {"four_player_mode": "sit_out", "bottom_shown": True}, players=4).bottom_shown


def test_s3_8_on_by_default_for_luzhou_with_4_players_off_everywhere_else():
    """§3.8: "on by default for luzhou with 4 players, off everywhere else"."""
    assert resolve_ruleset("luzhou", players=4).bottom_shown is True
    assert resolve_ruleset("luzhou", {"bottom_shown": False}, players=4).bottom_shown is False
    assert resolve_ruleset("luzhou", {"four_player_mode": "deal_all"}, players=4).bottom_shown is False
    assert resolve_ruleset("chenzhou", {"four_player_mode": "sit_out"}, players=4).bottom_shown is False
    for name, rs in PRESETS.items():
        assert rs.bottom_shown is False, name
        for n in (2, 3):
            if n in (2, 3) and name in ("chenzhou", "luzhou") or n == 3:
                assert resolve_ruleset(name, players=n).bottom_shown is False


def test_s3_8_1_no_reveal_card_the_dealer_gets_the_21st_face_down():
    """§3.8.1: "There is no reveal card: the card that would be turned up goes face down to the dealer
    as his 21st card"; the deal event gives the dealer 21 cards (ENGINE_CLI.md), the others see none."""
    deck = deck_from_seed(bytes(32))
    h = luzhou4(deck, dealer=1)
    assert h.reveal is None and "reveal" not in types_of(h.events)
    order = [1, 2, 0]  # the seat opposite dealer 1 (seat 3) sits out
    assert sorted(h.events[0].to_wire()["hands"][1]) == sorted(card_name(c) for c in deck[0:20] + [deck[60]])
    for position, seat in enumerate(order[1:], start=1):
        assert sorted(h.events[0].to_wire()["hands"][seat]) == sorted(
            card_name(c) for c in deck[20 * position : 20 * (position + 1)])
    assert h.stock[:] == [c for c in deck[61:]] or "bottom_to_top" in types_of(h.events)
    assert len(h.stock) == 19
    own = h.events[0].for_viewer(1)["hands"][1]
    assert len(own) == 21 and None not in own  # the dealer sees his own 21st card
    for viewer in (0, 2, 3, None):
        assert h.events[0].for_viewer(viewer)["hands"][1] == [None] * 21
        assert build_view(h, viewer)["reveal"] is None
        assert build_view(h, viewer)["hands"][1] is None
    assert build_view(h, 1)["hands"][1] == sorted(h.events[0].to_wire()["hands"][1], key=parse_card)
    assert h.to_act() == [1] and h.phase == "discard"  # the dealer holds 21: he discards first
    assert check(h) == []


def test_s3_8_1_no_reveal_win():
    """§3.8.1: "Step 4 (reveal wins, 天胡/地胡 on the reveal card) does not happen"."""
    waiting = "b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10 s4 s5"  # wins on s6
    deck = make_deck(["", waiting, ""], "s6")
    plain = luzhou4(deck, bottom_shown=False)
    assert plain.pending == {1: ["hu", "pass"]}  # without the option: a reveal win is offered
    shown = luzhou4(deck)
    assert shown.pending == {} and shown.to_act() == [0] and shown.hands[0][parse_card("s6")] >= 1


def test_s3_8_1_natural_win_is_checked_with_the_dealers_21_cards():
    """§3.8.1: "the natural win of step 3 is checked with the dealer's 21 cards"."""
    deck = make_deck(["s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3", "", ""], "s3")  # the 21st makes the 3rd 提
    h = luzhou4(deck)
    assert types_of(h.events)[:1] == ["deal"] and "natural_win" in types_of(h.events)
    assert h.result["winner"] == 0 and h.result["win_by"] == "natural"
    assert check(h, roundtrip=True) == []


def test_s3_8_2_the_last_stock_card_is_turned_up_for_everyone():
    """§3.8.2: "the last card of the stock (the one that would be drawn last) is turned face up for
    everyone"; views carry it as ``bottom_card``."""
    deck = to_stock_end(make_deck(["", "", ""], "b5", stock="s4"), "s4")
    h = luzhou4(deck)
    assert [e.to_wire() for e in h.events if e.type.startswith("bottom")] == [
        {"seq": 2, "type": "bottom_shown", "card": "s4"}]
    assert h.stock[-1] == parse_card("s4") and h.bottom_card == parse_card("s4")
    for viewer in (0, 1, 2, 3, None, AUDIT):
        assert build_view(h, viewer)["bottom_card"] == "s4"
        assert h.events[1].for_viewer(viewer) is not None and h.events[1].for_viewer(viewer)["card"] == "s4"


def test_s3_8_2_a_red_last_card_moved_twice():
    """§3.8.2: "While that card is red, it is moved to the top of the stock (it is the next card drawn)
    and the new last card is turned up ... Each move is an event all viewers see"."""
    deck = to_stock_end(make_deck(["", "", ""], "b5", stock="s4 b7 s2"), "s4 b7 s2")  # last: s2, then b7, s4
    h = luzhou4(deck)
    bottom = [e.to_wire() for e in h.events if e.type.startswith("bottom")]
    assert [(e["type"], e["card"]) for e in bottom] == [
        ("bottom_shown", "s2"), ("bottom_to_top", "s2"), ("bottom_shown", "b7"), ("bottom_to_top", "b7"),
        ("bottom_shown", "s4")]
    assert [card_name(c) for c in h.stock[:2]] == ["b7", "s2"]  # the last moved is drawn first
    assert card_name(h.stock[-1]) == "s4" and len(h.stock) == 19
    for ev in h.events[1:6]:
        for viewer in (0, 1, 2, 3, None):
            assert {**ev.for_viewer(viewer), "seq": 0} == {**ev.to_wire(), "seq": 0}
    # the moved cards are the first two draws
    h.apply(0, Action.from_wire({"type": "discard", "card": card_name(max(
        c for c in range(20) if 0 < h.hands[0][c] < 3))}))
    pass_all(h)
    draws = [e.to_wire()["card"] for e in h.events if e.type == "draw"]
    assert draws[:1] == ["b7"]
    assert check(h) == []


def test_s3_8_2_if_every_stock_card_is_red_the_last_one_stays():
    """§3.8.2: "if every stock card is red, the last one stays"."""
    red = [c for c in range(20) for _ in range(4) if c in RED]  # 24 red cards
    others = [c for c in range(20) for _ in range(4) if c not in RED] + red[19:]
    random.Random(1).shuffle(others)
    deck = others + red[:19]  # the whole stock is red
    h = luzhou4(deck)
    assert all(c in RED for c in h.stock)
    assert [e.type for e in h.events if e.type.startswith("bottom")] == ["bottom_shown"]
    assert h.stock == deck[61:]


def test_s3_8_3_nobody_wins_on_the_last_card_while_peng_and_chi_on_it_still_work():
    """§3.8.3: "Nobody may win on the last stock card when it is drawn ... every other claim works as
    usual": 碰 (the dealer's pair) and 吃 (the drawer, his next) are offered, 胡 (seat 3) is not."""
    before_last = last_card_hand(17, WINS_ON_S6, "s7 s8")
    assert before_last.claim.source == "draw" and not before_last.claim.last_card
    assert before_last.pending[3][-2:] == ["hu", "pass"] and before_last.pending[0] == ["pass", "peng"]
    last = last_card_hand(18, WINS_ON_S6, "s7 s8")
    assert last.claim.source == "draw" and last.claim.last_card
    s6 = parse_card("s6")
    assert can_win(last.rs, tuple(last.hands[3]), last.groups[3], s6, "other_draw")  # he would win
    assert last.pending == {0: ["pass", "peng"], 1: ["chi", "pass"], 3: ["chi", "pass"]}
    act(last, 3, {"type": "pass"})
    act(last, 1, {"type": "pass"})
    act(last, 0, {"type": "peng"})
    assert last.groups[0][-1] == Group("peng", (s6, s6, s6)) and last.to_act() == [0]


def test_s3_8_3_no_wei_hu_on_the_last_card_so_no_hai_di():
    """§3.8.3: "on that draw there is no 胡 option (§5.2.3 偎胡/提胡 ...), so 海底 cannot happen"."""
    wei_wins = "s6 s6 b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10"
    before_last = last_card_hand(17, "", wei_wins, dealer="")
    assert before_last.pending == {1: ["hu", "pass"]} and before_last.claim.source == "self"
    last = last_card_hand(18, "", wei_wins, dealer="")
    assert last.events[-1].type == "wei" and last.events[-1].seat == 1
    assert last.pending == {} and last.to_act() == [1] and last.phase == "discard"
    assert {"type": "hu"} not in wires(last.legal_actions(1))


def test_s3_8_4_the_sitter_sees_only_what_a_spectator_sees():
    """§3.8.4: "The sitter ... takes no part in the hand and sees only what a spectator sees"."""
    for i in range(6):
        seed = hand_seed("sitter", i)
        h = Hand(resolve_ruleset("luzhou", {"escape_penalty": i % 2 == 0}, players=4), i % 4, seed)
        sitter = h.rs.sitter(h.dealer)
        rng = random.Random(seed)
        from apps.engine.bots.choose import bot_choose

        while True:
            spectator, own = build_view(h, None), build_view(h, sitter)
            assert own["hands"][sitter] == [] and spectator["hands"][sitter] in (None, [])  # he holds none
            own["hands"][sitter] = spectator["hands"][sitter]
            assert {k: v for k, v in own.items() if k not in ("viewer", "chou")} == {
                k: v for k, v in spectator.items() if k != "viewer"}
            assert own["legal_actions"] == [] and own["pending"] == [] and own["chou"] == []
            if h.finished:
                break
            seat = h.to_act()[0]
            h.apply(seat, bot_choose(h, seat, "greedy", rng))
        assert [e.for_viewer(sitter) for e in h.events] == [e.for_viewer(None) for e in h.events]
        assert h.rs.bottom_shown and "bottom_shown" in types_of(h.events)


def test_s3_8_the_hard_bot_plays_from_a_view_with_the_shown_bottom_card():
    """The searching bot (托管) decides from a bottom_shown view: no reveal card, a public last card."""
    from apps.engine.bots.choose import bot_choose
    from apps.engine.bots.search import Budget

    h = Hand(resolve_ruleset("luzhou", players=4), 0, hand_seed("hard-bottom", 0))
    rng = random.Random(0)
    for _ in range(6):
        if h.finished:
            break
        seat = h.to_act()[0]
        action = bot_choose(h, seat, "hard", rng, budget=Budget(worlds=3, cpu_ms=None, wall_ms=None))
        assert action in h.legal_actions(seat)
        h.apply(seat, action)
